// What a location URI answers, built element by element: the patient's latest fix as a PIDF-LO (RFC 4119,
// shapes of RFC 5491), alone for a GET (RFC 6753) or inside a HELD locationResponse for a POST (RFC 5985),
// or a HELD error. The shape is what Kamailio's lost module and LoST read: a gml:Point, or a gs:Circle
// whose radius is the fix's accuracy, each declaring its own namespaces so that it can be lifted out as is.
import type { HeldErrorCode } from "../../sdk/src/protocol.ts";
import { GEO_SHAPES_NS, GML_NS, serializeXml, type XmlNode } from "../lost/xml.ts";
import { HELD_NS } from "./request.ts";

export const PIDF_MEDIA_TYPE = "application/pidf+xml";
const PIDF_NS = "urn:ietf:params:xml:ns:pidf";
const GEOPRIV_NS = "urn:ietf:params:xml:ns:pidf:geopriv10";
const BASIC_POLICY_NS = "urn:ietf:params:xml:ns:pidf:geopriv10:basicPolicy";
const WGS84 = "urn:ogc:def:crs:EPSG::4326";
const METRES = "urn:ogc:def:uom:EPSG::9001";

/** The fix a URI gives out, and what the document says about it. */
export interface HeldFix {
  latitude: number;
  longitude: number;
  /** Metres; null or 0: a Point. */
  accuracy: number | null;
  /** When the fix was taken (ms). */
  at: number;
}

export interface HeldDocumentMeta {
  /** The URI's id (`luri_...`): the presentity, never a name, a platform or a session. */
  uriId: string;
  /** The host the URI is served from, for the presentity's domain. */
  host: string;
  /** The URI's expiry (ms): how long a recipient may keep what it was given. */
  expiresAt: number;
}

/** `GET /held/{token}`: the PIDF-LO alone (RFC 6753 section 6.2). */
export function pidfDocument(fix: HeldFix, meta: HeldDocumentMeta): string {
  return serializeXml(presence(fix, meta));
}

/** `POST /held/{token}`: a locationResponse holding the PIDF-LO. */
export function locationResponse(fix: HeldFix, meta: HeldDocumentMeta): string {
  return serializeXml({ ns: HELD_NS, name: "locationResponse", children: [presence(fix, meta)] });
}

/** A HELD error (RFC 5985 section 6.3), its message in English and never quoting the request. */
export function heldError(code: HeldErrorCode, message: string): string {
  return serializeXml({
    ns: HELD_NS,
    name: "error",
    attributes: { code },
    children: [{ ns: HELD_NS, name: "message", lang: "en", text: message }],
  });
}

function presence(fix: HeldFix, meta: HeldDocumentMeta): XmlNode {
  return {
    ns: PIDF_NS,
    name: "presence",
    // pres: URIs name a presentity; the URI's own id says nothing about who or where the patient is.
    attributes: { entity: `pres:${meta.uriId}@${meta.host}` },
    children: [
      {
        ns: PIDF_NS,
        name: "tuple",
        attributes: { id: "fix" },
        children: [
          {
            ns: PIDF_NS,
            name: "status",
            children: [
              {
                ns: GEOPRIV_NS,
                name: "gp:geopriv",
                children: [
                  { ns: GEOPRIV_NS, name: "gp:location-info", children: [shape(fix)] },
                  usageRules(meta.expiresAt),
                ],
              },
            ],
          },
          { ns: PIDF_NS, name: "timestamp", text: new Date(fix.at).toISOString() },
        ],
      },
    ],
  };
}

/** A recipient may not pass the fix on, and keeps it no longer than the URI lives. */
function usageRules(expiresAt: number): XmlNode {
  return {
    ns: GEOPRIV_NS,
    name: "gp:usage-rules",
    attributes: { "xmlns:gbp": BASIC_POLICY_NS },
    children: [
      { ns: BASIC_POLICY_NS, name: "gbp:retransmission-allowed", text: "false" },
      { ns: BASIC_POLICY_NS, name: "gbp:retention-expiry", text: new Date(expiresAt).toISOString() },
    ],
  };
}

function shape(fix: HeldFix): XmlNode {
  const pos: XmlNode = {
    ns: GML_NS,
    name: "gml:pos",
    text: `${decimal(fix.latitude)} ${decimal(fix.longitude)}`,
  };
  if (!fix.accuracy) {
    return {
      ns: GML_NS,
      name: "gml:Point",
      attributes: { "xmlns:gml": GML_NS, srsName: WGS84 },
      children: [pos],
    };
  }
  return {
    ns: GEO_SHAPES_NS,
    name: "gs:Circle",
    attributes: { "xmlns:gs": GEO_SHAPES_NS, "xmlns:gml": GML_NS, srsName: WGS84 },
    children: [
      pos,
      { ns: GEO_SHAPES_NS, name: "gs:radius", attributes: { uom: METRES }, text: decimal(fix.accuracy) },
    ],
  };
}

/** A number as XML Schema's decimal writes it: never in exponent form (1e-7 is 0.0000001). */
function decimal(value: number): string {
  const text = String(value);
  return /e/i.test(text) ? value.toFixed(12).replace(/\.?0+$/, "") : text;
}
