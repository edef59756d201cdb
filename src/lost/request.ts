// A LoST findService request (RFC 5222 section 8), read: the location to use, the service asked for, and
// whether to validate. Anything else is one of LoST's own errors, with a message saying what.
import type { Element } from "@xmldom/xmldom";
import { LOST_LIMITS } from "../../lib/config.ts";
import { BadShapeError, readShape, type ShapeFix } from "./shapes.ts";
import { childElements, LOST_NS, parseXml, UnreadableXmlError } from "./xml.ts";

/** The errors this server answers with (RFC 5222 section 13.1), each in an `errors` element. */
export type LostErrorKind =
  | "badRequest"
  | "locationProfileUnrecognized"
  | "serviceNotImplemented"
  | "notFound"
  | "internalError";

export class LostError extends Error {
  readonly kind: LostErrorKind;
  /** For `locationProfileUnrecognized`: the profiles the request used. */
  readonly unsupportedProfiles: string[];
  constructor(kind: LostErrorKind, message: string, unsupportedProfiles: string[] = []) {
    super(message);
    this.name = "LostError";
    this.kind = kind;
    this.unsupportedProfiles = unsupportedProfiles;
  }
}

/** The services answered: emergency calls (the first PSAP) and counseling (the country's crisis line). */
export type LostServiceKind = "sos" | "counseling";

export interface FindServiceRequest {
  /** The `id` of the location used, for `locationUsed`. */
  locationId: string;
  fix: ShapeFix;
  /** The service URN as asked (answered as it was asked). */
  service: string;
  kind: LostServiceKind;
  validateLocation: boolean;
}

const PROFILE = "geodetic-2d";
/** A location profile's name as RFC 5222's schema types it (an NMTOKEN), bounded. */
const PROFILE_TOKEN = /^[A-Za-z0-9._:-]{1,64}$/;

/** Which of the answered services a service URN is: itself or one of its sub-services (RFC 5031). */
export function serviceKind(urn: string): LostServiceKind | null {
  for (const kind of ["sos", "counseling"] as const) {
    const base = `urn:service:${kind}`;
    if (urn === base || (urn.startsWith(`${base}.`) && /^[a-z0-9.-]+$/i.test(urn.slice(base.length + 1))))
      return kind;
  }
  return null;
}

function lostChild(parent: Element, name: string): Element[] {
  return childElements(parent).filter((c) => c.namespaceURI === LOST_NS && c.localName === name);
}

/** The location to use: the first of profile geodetic-2d; none, and some civic or other: that error. */
function chooseLocation(root: Element): Element {
  const locations = lostChild(root, "location");
  if (locations.length === 0) throw new LostError("badRequest", "the findService has no location");
  const usable = locations.find((l) => l.getAttribute("profile") === PROFILE);
  if (usable) return usable;
  // Named back as the schema's NMTOKENs: a profile that is not one is the caller's noise, not a profile.
  const profiles = [
    ...new Set(locations.map((l) => l.getAttribute("profile") ?? "").filter((p) => PROFILE_TOKEN.test(p))),
  ];
  throw new LostError(
    "locationProfileUnrecognized",
    `only the ${PROFILE} location profile is answered (a civic address is not geocoded here)`,
    profiles.length > 0 ? profiles : ["unknown"],
  );
}

/** Reads a findService request; throws LostError for anything LoST answers with an error. */
export function readFindService(text: string): FindServiceRequest {
  let root: Element;
  try {
    root = parseXml(text, LOST_LIMITS.maxXmlDepth);
  } catch (err) {
    if (err instanceof UnreadableXmlError) throw new LostError("badRequest", err.message);
    throw err;
  }
  if (root.namespaceURI !== LOST_NS)
    throw new LostError("badRequest", `the document is not in LoST's namespace ${LOST_NS}`);
  if (root.localName !== "findService")
    throw new LostError("badRequest", "the document is not a findService, the only request answered here");
  const serviceEl = lostChild(root, "service")[0];
  const service = (serviceEl?.textContent ?? "").trim();
  if (!service) throw new LostError("badRequest", "the findService names no service");
  const location = chooseLocation(root);
  const locationId = (location.getAttribute("id") ?? "").trim();
  if (!locationId || /\s/.test(locationId)) throw new LostError("badRequest", "the location has no id");
  const kind = serviceKind(service);
  if (!kind)
    throw new LostError(
      "serviceNotImplemented",
      "only urn:service:sos and urn:service:counseling (and their sub-services) are answered here",
    );
  const shape = childElements(location)[0];
  if (!shape) throw new LostError("badRequest", "the location holds no shape");
  let fix: ShapeFix;
  try {
    fix = readShape(shape);
  } catch (err) {
    if (err instanceof BadShapeError) throw new LostError("badRequest", err.message);
    throw err;
  }
  const validate = root.getAttribute("validateLocation");
  return { locationId, fix, service, kind, validateLocation: validate === "true" || validate === "1" };
}
