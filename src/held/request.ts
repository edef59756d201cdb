// A HELD locationRequest (RFC 5985 section 6.1) sent to a location URI (RFC 6753), read for what it can
// change about the answer: nothing but whether it is one, and whether it insists on a kind of location
// this service cannot give. Its device identity, if any, is ignored: the URI names the target already.
import type { Element } from "@xmldom/xmldom";
import { HELD_LIMITS } from "../../lib/config.ts";
import type { HeldErrorCode } from "../../sdk/src/protocol.ts";
import { childElements, parseXml, UnreadableXmlError } from "../lost/xml.ts";

export const HELD_NS = "urn:ietf:params:xml:ns:geopriv:held";
export const HELD_MEDIA_TYPE = "application/held+xml";

/** Why a request gets a HELD error instead of the location, in words that never quote the request. */
export interface HeldRefusal {
  code: Extract<HeldErrorCode, "xmlError" | "unsupportedMessage" | "cannotProvideLiType">;
  message: string;
}

const LOCATION_TYPES = new Set(["any", "civic", "geodetic", "locationURI"]);
const RESPONSE_TIMES = new Set(["emergencyRouting", "emergencyDispatch"]);

/**
 * The refusal a POSTed body earns, or null for a locationRequest this service answers with the fix.
 * `text` is null when the bytes are not UTF-8; `complete` false when the body broke off.
 */
export function readLocationRequest(
  contentType: string | undefined,
  text: string | null,
  complete: boolean,
): HeldRefusal | null {
  if (!complete) return xmlError("the request body broke off before its end");
  const [mediaType = "", ...parameters] = (contentType ?? "").split(";").map((p) => p.trim().toLowerCase());
  if (mediaType !== HELD_MEDIA_TYPE) return xmlError(`the request's Content-Type must be ${HELD_MEDIA_TYPE}`);
  const charset = parameters.find((p) => p.startsWith("charset="))?.slice("charset=".length);
  if (charset !== undefined && charset.replaceAll('"', "") !== "utf-8") {
    return xmlError("the request's charset must be utf-8");
  }
  if (text === null) return xmlError("the request body is not valid UTF-8");
  let root: Element;
  try {
    root = parseXml(text, HELD_LIMITS.maxXmlDepth);
  } catch (error) {
    if (error instanceof UnreadableXmlError) return xmlError(error.message);
    throw error;
  }
  if (root.namespaceURI !== HELD_NS || root.localName !== "locationRequest") {
    return {
      code: "unsupportedMessage",
      message: `only a locationRequest in the namespace ${HELD_NS} is answered here`,
    };
  }
  return checkAttributes(root) ?? checkLocationType(root);
}

/** responseTime, when given, is a number of milliseconds or one of HELD's two emergency words. */
function checkAttributes(root: Element): HeldRefusal | null {
  const responseTime = root.getAttribute("responseTime");
  if (responseTime === null) return null;
  const value = responseTime.trim();
  return /^\d{1,15}$/.test(value) || RESPONSE_TIMES.has(value)
    ? null
    : xmlError("responseTime must be a number of milliseconds, emergencyRouting or emergencyDispatch");
}

/**
 * HELD's own children: at most one locationType, of known words, and nothing else of HELD's. With
 * `exact="true"`, a request that does not take a geodetic location cannot be answered (a civic address or
 * a location URI is all it takes, and this service has neither to give).
 */
function checkLocationType(root: Element): HeldRefusal | null {
  const held = childElements(root).filter((el) => el.namespaceURI === HELD_NS);
  if (held.some((el) => el.localName !== "locationType")) {
    return xmlError("a locationRequest holds no HELD element but locationType");
  }
  if (held.length > 1) return xmlError("a locationRequest holds at most one locationType");
  const locationType = held[0];
  if (!locationType) return null;
  const types = (locationType.textContent ?? "").trim().split(/\s+/).filter(Boolean);
  const unknown = types.some((type) => !LOCATION_TYPES.has(type));
  if (types.length === 0 || unknown || (types.includes("any") && types.length > 1)) {
    return xmlError("locationType takes any, or a list of civic, geodetic and locationURI");
  }
  const exact = (locationType.getAttribute("exact") ?? "false").trim();
  if (!["true", "false", "1", "0"].includes(exact))
    return xmlError("locationType's exact must be true or false");
  const strict = exact === "true" || exact === "1";
  if (strict && !types.includes("geodetic") && !types.includes("any")) {
    return {
      code: "cannotProvideLiType",
      message: "only a geodetic location (the patient's latest fix) is provided here",
    };
  }
  return null;
}

function xmlError(message: string): HeldRefusal {
  return { code: "xmlError", message };
}
