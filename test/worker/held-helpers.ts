// Location URIs in worker tests: make one, dereference it, and read what it answered.
import { DOMParser, type Element } from "@xmldom/xmldom";
import type { LocationUriResponse, SessionCreateResponse } from "../../sdk/src/protocol.ts";
import { call, postJson, sessionPath } from "./helpers.ts";

export const HELD_NS = "urn:ietf:params:xml:ns:geopriv:held";
export const PIDF_NS = "urn:ietf:params:xml:ns:pidf";
export const GEOPRIV_NS = "urn:ietf:params:xml:ns:pidf:geopriv10";
export const BASIC_POLICY_NS = "urn:ietf:params:xml:ns:pidf:geopriv10:basicPolicy";
export const GML_NS = "http://www.opengis.net/gml";
export const GS_NS = "http://www.opengis.net/pidflo/1.0";

/** What Kamailio's lost_held_dereference sends (RFC 6753's example, with emergencyDispatch). */
export const LOCATION_REQUEST =
  '<?xml version="1.0"?><locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held" ' +
  'responseTime="emergencyDispatch"><locationType exact="false">geodetic civic</locationType></locationRequest>';

export function mintAsCounselor(session: SessionCreateResponse): Promise<Response> {
  return postJson(
    sessionPath(session, "/location-uri"),
    {},
    { Authorization: `Bearer ${session.counselor_token}` },
  );
}

export function mintAsPlatform(session: SessionCreateResponse, apiKey: string): Promise<Response> {
  return call(sessionPath(session, "/location-uri"), { method: "POST", headers: { "X-API-Key": apiKey } });
}

/** A URI made by the counselor; throws unless it was made. */
export async function newLocationUri(session: SessionCreateResponse): Promise<LocationUriResponse> {
  const res = await mintAsCounselor(session);
  if (res.status !== 201) throw new Error(`location URI refused: ${res.status} ${await res.text()}`);
  return res.json();
}

/** The URI's path on the test worker (the URI's own origin is the test worker's). */
export function heldPath(uri: string): string {
  return new URL(uri).pathname;
}

export function heldPost(
  uri: string,
  body = LOCATION_REQUEST,
  contentType = "application/held+xml;charset=utf-8",
): Promise<Response> {
  return call(heldPath(uri), { method: "POST", headers: { "Content-Type": contentType }, body });
}

export function heldGet(uri: string): Promise<Response> {
  return call(heldPath(uri));
}

export function parse(xml: string): Element {
  const root = new DOMParser().parseFromString(xml, "text/xml").documentElement;
  if (!root) throw new Error(`not XML: ${xml}`);
  return root;
}

/** The first element of that name and namespace under `root`, or null. */
export function find(root: Element, ns: string, name: string): Element | null {
  return root.getElementsByTagNameNS(ns, name)[0] ?? null;
}

/** The HELD error code of a document, or null when it is no HELD error. */
export function heldErrorCode(xml: string): string | null {
  const root = parse(xml);
  return root.namespaceURI === HELD_NS && root.localName === "error" ? root.getAttribute("code") : null;
}

/** The position and radius (null for a Point) of the PIDF-LO in a document. */
export function fixOf(xml: string): { pos: string; radius: string | null; shape: string } | null {
  const info = find(parse(xml), GEOPRIV_NS, "location-info");
  const shape = info
    ? (Array.from(info.childNodes).find((n) => n.nodeType === 1) as Element | undefined)
    : undefined;
  if (!shape) return null;
  return {
    shape: shape.localName ?? "",
    pos: find(shape, GML_NS, "pos")?.textContent ?? "",
    radius: find(shape, GS_NS, "radius")?.textContent ?? null,
  };
}
