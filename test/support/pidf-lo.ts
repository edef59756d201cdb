// PIDF-LO location objects as a SIP caller sends them: RFC 4119's presence document carrying an RFC 5491
// geodetic shape (GML Point, or PIDF-LO Circle with its radius in metres), and RFC 6442's way of attaching
// one to an INVITE (a multipart/mixed body with the SDP, referenced by a Geolocation header).

export const GML_NS = "http://www.opengis.net/gml";
export const PIDFLO_SHAPES_NS = "http://www.opengis.net/pidflo/1.0";
export const EPSG_4326 = "urn:ogc:def:crs:EPSG::4326";
export const EPSG_METRE = "urn:ogc:def:uom:EPSG::9001";

export type GeodeticFix =
  | { shape: "Point"; latitude: number; longitude: number }
  | { shape: "Circle"; latitude: number; longitude: number; radiusMeters: number };

/** `lat lon`, as RFC 5491 orders a `gml:pos` in EPSG::4326. */
export function gmlPos(fix: GeodeticFix): string {
  return `${fix.latitude} ${fix.longitude}`;
}

function shapeXml(fix: GeodeticFix): string {
  if (fix.shape === "Point") {
    return `<gml:Point srsName="${EPSG_4326}"><gml:pos>${gmlPos(fix)}</gml:pos></gml:Point>`;
  }
  return (
    `<gs:Circle srsName="${EPSG_4326}"><gml:pos>${gmlPos(fix)}</gml:pos>` +
    `<gs:radius uom="${EPSG_METRE}">${fix.radiusMeters}</gs:radius></gs:Circle>`
  );
}

/** A PIDF-LO (RFC 4119, shapes of RFC 5491) for one fix; numbers only, so nothing needs escaping. */
export function pidfLo(fix: GeodeticFix): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<presence xmlns="urn:ietf:params:xml:ns:pidf"
    xmlns:gp="urn:ietf:params:xml:ns:pidf:geopriv10"
    xmlns:gml="${GML_NS}"
    xmlns:gs="${PIDFLO_SHAPES_NS}"
    entity="pres:caller@example.org">
  <tuple id="fix">
    <status>
      <gp:geopriv>
        <gp:location-info>
          ${shapeXml(fix)}
        </gp:location-info>
        <gp:usage-rules/>
        <gp:method>GPS</gp:method>
      </gp:geopriv>
    </status>
    <timestamp>2026-11-20T12:00:00Z</timestamp>
  </tuple>
</presence>
`;
}

/** An INVITE body and headers carrying a PIDF-LO by value. */
export interface LocationCarriage {
  contentType: string;
  body: string;
  /** Extra request headers (RFC 6442's Geolocation and Geolocation-Routing), none for a bare PIDF-LO. */
  headers: string[];
}

/** The PIDF-LO as the INVITE's whole body (`application/pidf+xml`), no SDP. */
export function pidfBody(fix: GeodeticFix): LocationCarriage {
  return { contentType: "application/pidf+xml", body: pidfLo(fix), headers: [] };
}

/** The SDP of every test call: an offer only, no media is ever sent. */
const OFFER_SDP = [
  "v=0",
  "o=caller 1 1 IN IP4 127.0.0.1",
  "s=-",
  "c=IN IP4 127.0.0.1",
  "t=0 0",
  "m=audio 49170 RTP/AVP 0",
  "a=rtpmap:0 PCMU/8000",
  "",
].join("\r\n");

/** RFC 6442: SDP and PIDF-LO in a multipart/mixed body, the PIDF-LO named by `Geolocation: <cid:...>`. */
export function rfc6442Body(fix: GeodeticFix): LocationCarriage {
  const boundary = "pidf-lo-boundary-7f3a";
  const contentId = "fix1@caller.example.org";
  const body = [
    `--${boundary}`,
    "Content-Type: application/sdp",
    "",
    OFFER_SDP,
    `--${boundary}`,
    "Content-Type: application/pidf+xml",
    `Content-ID: <${contentId}>`,
    "",
    pidfLo(fix),
    `--${boundary}--`,
    "",
  ].join("\r\n");
  return {
    contentType: `multipart/mixed;boundary=${boundary}`,
    body,
    headers: [`Geolocation: <cid:${contentId}>`, "Geolocation-Routing: yes"],
  };
}

/** RFC 6442 by reference: the Geolocation header carries a location URI (HTTP), the body is the SDP alone. */
export function referenceCarriage(locationUri: string): LocationCarriage {
  return {
    contentType: "application/sdp",
    body: OFFER_SDP,
    headers: [`Geolocation: <${locationUri}>`, "Geolocation-Routing: yes"],
  };
}
