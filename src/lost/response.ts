// LoST answers (RFC 5222 sections 8.3 and 13), built element by element: a findServiceResponse with one
// mapping, or an errors element with one error. Every element Kamailio's client reads is there and nothing
// it trips on is: one mapping, a displayName always, no comment or stray text anywhere.
import type { LostError } from "./request.ts";
import { GEO_SHAPES_NS, GML_NS, serializeXml, type XmlNode } from "./xml.ts";

export interface LostMapping {
  /** Never empty. */
  displayName: string;
  /** The service as asked. */
  service: string;
  uris: readonly string[];
  serviceNumber: string | null;
  /** ISO 8601 times. */
  expires: string;
  lastUpdated: string;
  /** Stable per answering centre and data version. */
  sourceId: string;
}

export interface LostAnswer {
  /** This server's name as LoST writes it (a dotted host name). */
  source: string;
  mapping: LostMapping;
  locationId: string;
  /** The shape's element names, when the request asked for validation. */
  validated?: readonly string[];
}

export function findServiceResponse(answer: LostAnswer): string {
  const m = answer.mapping;
  const mapping: XmlNode = {
    name: "mapping",
    attributes: {
      expires: m.expires,
      lastUpdated: m.lastUpdated,
      source: answer.source,
      sourceId: m.sourceId,
    },
    children: [
      { name: "displayName", lang: "en", text: m.displayName },
      { name: "service", text: m.service },
      ...m.uris.map((uri) => ({ name: "uri", text: uri })),
      ...(m.serviceNumber ? [{ name: "serviceNumber", text: m.serviceNumber }] : []),
    ],
  };
  const children: XmlNode[] = [mapping];
  if (answer.validated) {
    children.push({
      name: "locationValidation",
      attributes: { "xmlns:gml": GML_NS, "xmlns:gs": GEO_SHAPES_NS },
      children: [{ name: "valid", text: [...new Set(answer.validated)].join(" ") }],
    });
  }
  children.push(
    { name: "path", children: [{ name: "via", attributes: { source: answer.source } }] },
    { name: "locationUsed", attributes: { id: answer.locationId } },
  );
  return serializeXml({ name: "findServiceResponse", children });
}

export function errorsResponse(source: string, error: LostError): string {
  const attributes: Record<string, string> = { message: error.message };
  if (error.kind === "locationProfileUnrecognized")
    attributes.unsupportedProfiles = error.unsupportedProfiles.join(" ");
  return serializeXml({
    name: "errors",
    attributes: { source },
    children: [{ name: error.kind, attributes, lang: "en" }],
  });
}
