// HELD and PIDF-LO documents checked with xmllint (Debian's libxml2-utils) against the XML Schemas of
// RFC 5985 (HELD), RFC 3863 (PIDF), RFC 4119 (geopriv, usage rules) and the RFC 5491 shapes (held-schema/).
import { fileURLToPath } from "node:url";
import { schemaErrors } from "./validate-lost.ts";

/** Imports every namespace a HELD answer of this service holds, so nothing under a lax wildcard goes unchecked. */
export const HELD_SCHEMA = fileURLToPath(new URL("./held-schema/held-pidf-lo.xsd", import.meta.url));

/** xmllint's errors for `xml` (a locationRequest, locationResponse, HELD error or PIDF-LO): none when valid. */
export function validateHeld(xml: string): Promise<string[]> {
  return schemaErrors(["--schema", HELD_SCHEMA], xml);
}
