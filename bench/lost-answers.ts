// What the LoST part sends and how it reads the two answers it compares: a findService for a fix (a GML
// Point, as a SIP server sends a caller's position), the PSAP a LoST answer names, the first PSAP of the
// session API's location answer, and whether they agree. Pure: no request is made here.
import { DOMParser, type Element } from "@xmldom/xmldom";
import type { PsapResultsBody } from "../sdk/src/protocol.ts";
import { GML_NS, LOST_NS } from "../src/lost/xml.ts";
import type { QueryPoint } from "./synthetic.ts";

/** What a LoST answer says: the mapping's displayName, or the name of its one error (notFound, ...). */
export type LostAnswer = { psap: string } | { error: string };

/** What the session API's answer says: its first PSAP as LoST names it, or why there is none. */
export type SessionAnswer = { psap: string } | { none: string };

/**
 * A findService (RFC 5222) for the fix as a GML Point in EPSG:4326 ("lat lon"). The text is built from
 * numbers alone, so nothing in it needs escaping.
 */
export function findServiceXml(fix: QueryPoint, locationId: string): string {
  if (!/^[A-Za-z0-9-]+$/.test(locationId)) throw new RangeError("a location id of letters, digits and -");
  const pos = `${Number(fix.latitude)} ${Number(fix.longitude)}`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<findService xmlns="${LOST_NS}" serviceBoundary="reference" recursive="true">` +
    `<location id="${locationId}" profile="geodetic-2d">` +
    `<gml:Point xmlns:gml="${GML_NS}" srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>${pos}</gml:pos></gml:Point>` +
    `</location><service>urn:service:sos</service></findService>`
  );
}

/** The PSAP a LoST answer names, or its error; throws on anything that is neither. */
export function readLostAnswer(xml: string): LostAnswer {
  // An answer that is not well-formed is a finding of the bench: thrown, never read as far as it goes.
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level !== "warning") throw new Error(`LoST answer not well-formed: ${message.split("\n")[0]}`);
    },
  });
  const root = parser.parseFromString(xml, "text/xml").documentElement;
  if (!root || root.namespaceURI !== LOST_NS) throw new Error("not a LoST answer");
  if (root.localName === "errors") {
    const first = Array.from(root.childNodes).find((n) => n.nodeType === 1) as Element | undefined;
    return { error: first?.localName ?? "errors without an error" };
  }
  if (root.localName !== "findServiceResponse") throw new Error(`unexpected LoST answer ${root.localName}`);
  const name = root.getElementsByTagNameNS(LOST_NS, "displayName")[0]?.textContent;
  if (!name) throw new Error("a findServiceResponse without a displayName");
  return { psap: name };
}

/** The session API's first PSAP as LoST's displayName writes it (`name (state)`), or its reason for none. */
export function readSessionAnswer(body: Pick<PsapResultsBody, "psaps" | "reason">): SessionAnswer {
  const first = body.psaps[0];
  if (first) return { psap: `${first.name} (${first.state})` };
  return { none: body.reason ?? "no reason given" };
}

/**
 * null when the two agree: the same PSAP, or LoST's notFound where the session found none outside
 * coverage (both say no US PSAP serves the fix). Otherwise what differs, with no coordinates in it.
 */
export function disagreement(lost: LostAnswer, session: SessionAnswer): string | null {
  if ("psap" in lost && "psap" in session) {
    return lost.psap === session.psap ? null : `LoST "${lost.psap}", session "${session.psap}"`;
  }
  if ("error" in lost && "none" in session) {
    return lost.error === "notFound" && session.none === "outside_coverage"
      ? null
      : `LoST ${lost.error}, session none (${session.none})`;
  }
  return "psap" in lost
    ? `LoST "${lost.psap}", session none (${"none" in session ? session.none : "?"})`
    : `LoST ${lost.error}, session "${"psap" in session ? session.psap : "?"}"`;
}
