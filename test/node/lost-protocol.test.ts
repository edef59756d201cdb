// LoST's protocol pieces, without the route: findService requests read (every RFC 5491 shape, civic,
// other services, hostile XML), answers built from the lookup, and every document this server writes
// valid against RFC 5222's RELAX NG schema (xmllint).
import { beforeAll, describe, expect, it } from "vitest";
import { buildIndex } from "../../data/index/build.ts";
import type { PsapDataset } from "../../data/index/dataset.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import { answerFindService } from "../../src/lost/answer.ts";
import { type FindServiceRequest, LostError, readFindService } from "../../src/lost/request.ts";
import { errorsResponse, findServiceResponse } from "../../src/lost/response.ts";
import { resetPsapLookupCache } from "../../src/psap/lookup.ts";
import { psap } from "../support/psap-fixtures.ts";
import { validateLost, xmllintMissing } from "../support/validate-lost.ts";

const LOST = "urn:ietf:params:xml:ns:lost1";
const GML = "http://www.opengis.net/gml";
const GS = "http://www.opengis.net/pidflo/1.0";
const WGS84 = "urn:ogc:def:crs:EPSG::4326";

function findService(location: string, service = "urn:service:sos", attributes = ""): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<findService xmlns="${LOST}" xmlns:gml="${GML}" xmlns:gs="${GS}" ${attributes}>
  ${location}
  <service>${service}</service>
</findService>`;
}
const point = (lat: number, lon: number, id = "loc1") =>
  `<location id="${id}" profile="geodetic-2d"><gml:Point srsName="${WGS84}"><gml:pos>${lat} ${lon}</gml:pos></gml:Point></location>`;

function lostError(text: string): LostError {
  try {
    readFindService(text);
  } catch (err) {
    if (err instanceof LostError) return err;
    throw err;
  }
  throw new Error("the request was read");
}

describe("reading a findService", () => {
  it("reads a Point, its service and whether to validate, whatever prefixes the client uses", () => {
    const r = readFindService(
      `<lost:findService xmlns:lost="${LOST}" validateLocation="true"><lost:location id="zz2k" profile="geodetic-2d"><g:Point xmlns:g="${GML}" srsName="urn:ogc:def:crs:EPSG::4979"><g:pos>30.2672 -97.7431 150</g:pos></g:Point></lost:location><lost:service>urn:service:sos.police</lost:service></lost:findService>`,
    );
    expect(r).toMatchObject({
      locationId: "zz2k",
      service: "urn:service:sos.police",
      kind: "sos",
      validateLocation: true,
    });
    expect(r.fix).toMatchObject({
      latitude: 30.2672,
      longitude: -97.7431,
      accuracy: 0,
      elements: ["gml:Point", "gml:pos"],
    });
  });

  it("takes a Circle's radius as the fix's accuracy, and Kamailio's cut-short coordinates (30.)", () => {
    const r = readFindService(
      findService(
        `<location id="c1" profile="geodetic-2d"><gs:Circle srsName="${WGS84}"><gml:pos>30. -97.</gml:pos><gs:radius uom="urn:ogc:def:uom:EPSG::9001">850</gs:radius></gs:Circle></location>`,
      ),
    );
    expect(r.fix).toMatchObject({ latitude: 30, longitude: -97, accuracy: 850 });
  });

  it("answers a polygon, an ellipse and an arc band from their centroid, with their reach as the accuracy", () => {
    const polygon = readFindService(
      findService(
        `<location id="p" profile="geodetic-2d"><gml:Polygon srsName="${WGS84}"><gml:exterior><gml:LinearRing><gml:posList>40 -75 40 -74.98 40.02 -74.98 40.02 -75 40 -75</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></location>`,
      ),
    ).fix;
    expect(polygon.latitude).toBeCloseTo(40.01, 6);
    expect(polygon.longitude).toBeCloseTo(-74.99, 6);
    expect(polygon.accuracy).toBeGreaterThan(1_300);
    expect(polygon.accuracy).toBeLessThan(1_600);
    const ellipse = readFindService(
      findService(
        `<location id="e" profile="geodetic-2d"><gs:Ellipse srsName="${WGS84}"><gml:pos>40 -75</gml:pos><gs:semiMajorAxis uom="urn:ogc:def:uom:EPSG::9001">700</gs:semiMajorAxis><gs:semiMinorAxis uom="urn:ogc:def:uom:EPSG::9001">300</gs:semiMinorAxis><gs:orientation uom="urn:ogc:def:uom:EPSG::9102">45</gs:orientation></gs:Ellipse></location>`,
      ),
    ).fix;
    expect(ellipse).toMatchObject({ latitude: 40, longitude: -75, accuracy: 700 });
    const band = readFindService(
      findService(
        `<location id="a" profile="geodetic-2d"><gs:ArcBand srsName="${WGS84}"><gml:pos>40 -75</gml:pos><gs:innerRadius uom="urn:ogc:def:uom:EPSG::9001">1000</gs:innerRadius><gs:outerRadius uom="urn:ogc:def:uom:EPSG::9001">3000</gs:outerRadius><gs:startAngle uom="urn:ogc:def:uom:EPSG::9102">0</gs:startAngle><gs:openingAngle uom="urn:ogc:def:uom:EPSG::9102">0</gs:openingAngle></gs:ArcBand></location>`,
      ),
    ).fix;
    // Due north, halfway between the radii: 2 km north of the centre.
    expect(band.latitude).toBeCloseTo(40 + 2 / 111.195, 3);
    expect(band.longitude).toBeCloseTo(-75, 6);
  });

  it("uses the first geodetic-2d location and refuses a civic one as locationProfileUnrecognized", () => {
    const civic = `<location id="c" profile="civic"><civicAddress xmlns="urn:ietf:params:xml:ns:pidf:geopriv10:civicAddr"><country>US</country></civicAddress></location>`;
    expect(readFindService(findService(civic + point(40, -75, "g"))).locationId).toBe("g");
    const refused = lostError(findService(civic));
    expect(refused.kind).toBe("locationProfileUnrecognized");
    expect(refused.unsupportedProfiles).toEqual(["civic"]);
  });

  it("answers counseling and its sub-services, and refuses any other service", () => {
    expect(readFindService(findService(point(40, -75), "urn:service:counseling.suicide")).kind).toBe(
      "counseling",
    );
    expect(lostError(findService(point(40, -75), "urn:service:sosx")).kind).toBe("serviceNotImplemented");
    expect(lostError(findService(point(40, -75), "urn:service:test.sos")).kind).toBe("serviceNotImplemented");
  });

  it("refuses what it cannot read as badRequest, with a message, never an exception of its own", () => {
    const bad = [
      "",
      "not xml",
      "<findService",
      `<findService xmlns="urn:example:other"><service>urn:service:sos</service></findService>`,
      `<listServices xmlns="${LOST}"/>`,
      findService(""),
      findService(point(40, -75), ""),
      findService(point(95, -75)),
      findService(point(40, -75).replace("40 -75", "forty -75")),
      findService(point(40, -75).replace(WGS84, "urn:ogc:def:crs:EPSG::3857")),
      findService(`<location id="x" profile="geodetic-2d"/>`),
      findService(
        `<location profile="geodetic-2d"><gml:Point><gml:pos>40 -75</gml:pos></gml:Point></location>`,
      ),
      findService(
        `<location id="x" profile="geodetic-2d"><gml:LineString><gml:pos>40 -75</gml:pos></gml:LineString></location>`,
      ),
      // No DTD, so no entity of any kind.
      `<?xml version="1.0"?><!DOCTYPE findService [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>${findService(point(40, -75))}`,
      `<!DOCTYPE findService SYSTEM "file:///etc/passwd">${findService(point(40, -75))}`,
      // Deeper than 32 elements.
      findService(point(40, -75)).replace("<service>", `${"<x>".repeat(40)}${"</x>".repeat(40)}<service>`),
    ];
    for (const text of bad) {
      const err = lostError(text);
      expect(err.kind, text.slice(0, 120)).toBe("badRequest");
      expect(err.message.length).toBeGreaterThan(5);
    }
  });

  it("reads a depth of exactly 32 elements", () => {
    // findService > location > Point > pos is 4 deep; 28 more under an extension element make 32.
    const deep = `${"<x>".repeat(30)}${"</x>".repeat(30)}`;
    expect(readFindService(findService(point(40, -75)).replace("<service>", `${deep}<service>`)).kind).toBe(
      "sos",
    );
  });
});

describe.skipIf(xmllintMissing() !== null)("what this server answers, against RFC 5222's schema", () => {
  let store: MemoryPsapStore;
  const request = (
    fix: Partial<FindServiceRequest["fix"]>,
    service = "urn:service:sos",
  ): FindServiceRequest => ({
    locationId: "loc1",
    fix: { latitude: 41.5, longitude: -87.5, accuracy: 20, elements: ["gml:Point", "gml:pos"], ...fix },
    service,
    kind: service.startsWith("urn:service:sos") ? "sos" : "counseling",
    validateLocation: false,
  });
  beforeAll(() => {
    const withPhone = psap("8927", 41.5, -87.5);
    withPhone.phone = "+17085551234";
    withPhone.phone_kind = "dispatch";
    const line = {
      kind: "dispatch" as const,
      label: "Non-emergency, answered by dispatch 24/7",
      source: "https://www.example.gov/southland",
      checked_on: "2026-11-28",
      origin: "directory" as const,
    };
    withPhone.lines = [{ phone: "+17085551234", ...line }];
    withPhone.state = "IL";
    withPhone.name = "Southland Dispatch Center";
    // A centre with only a business line: LoST gives it no uri (it may ring out at night).
    const businessOnly = psap("8928", 41.9, -87.9);
    businessOnly.state = "IL";
    businessOnly.name = "Business Line Only Center";
    businessOnly.lines = [
      { phone: "+17085550199", ...line, kind: "administrative", label: "Business office" },
    ];
    const dataset: PsapDataset = {
      dataVersion: "lost-test",
      psaps: [withPhone, businessOnly],
      areas: [
        {
          kind: "county",
          id: "17031",
          name: "Cook",
          state: "IL",
          rings: [
            [
              [-88, 41],
              [-87, 41],
              [-87, 42],
              [-88, 42],
              [-88, 41],
            ],
          ],
          psapIds: ["8927"],
        },
        {
          kind: "city",
          id: "1799999",
          name: "Business Town",
          state: "IL",
          rings: [
            [
              [-87.95, 41.85],
              [-87.85, 41.85],
              [-87.85, 41.95],
              [-87.95, 41.95],
              [-87.95, 41.85],
            ],
          ],
          psapIds: ["8928"],
        },
      ],
    };
    store = MemoryPsapStore.fromIndex(buildIndex(dataset, { version: "lost" }));
    resetPsapLookupCache(store);
  });

  it("maps an emergency call to the first PSAP: its name and state, its number as tel:, 911, and a stable sourceId", async () => {
    const now = Date.parse("2026-11-27T10:00:00Z");
    const mapping = await answerFindService(store, request({}), { now });
    expect(mapping).toMatchObject({
      displayName: "Southland Dispatch Center (IL)",
      service: "urn:service:sos",
      uris: ["tel:+17085551234"],
      serviceNumber: "911",
      expires: "2026-11-27T10:00:30.000Z",
    });
    expect((await answerFindService(store, request({ latitude: 41.6 }), { now })).sourceId).toBe(
      mapping.sourceId,
    );
    const xml = findServiceResponse({
      source: "sos.example.org",
      mapping,
      locationId: "loc1",
      validated: ["gml:Point", "gml:pos"],
    });
    expect(await validateLost(xml)).toEqual([]);
    // With a SIP domain configured, the number is also a SIP URI (what Kamailio routes to), after the tel: one.
    const sip = await answerFindService(store, request({}), { now, sipDomain: "gw.example.org" });
    expect(sip.uris).toEqual(["tel:+17085551234", "sip:+17085551234@gw.example.org;user=phone"]);
    expect(
      await validateLost(
        findServiceResponse({ source: "sos.example.org", mapping: sip, locationId: "loc1" }),
      ),
    ).toEqual([]);
  });

  it("gives no uri for a centre with only a business line: an emergency call is never routed to one", async () => {
    const now = Date.parse("2026-11-27T10:00:00Z");
    const mapping = await answerFindService(store, request({ latitude: 41.9, longitude: -87.9 }), {
      now,
      sipDomain: "gw.example.org",
    });
    expect(mapping.displayName).toBe("Business Line Only Center (IL)");
    expect(mapping.uris).toEqual([]);
  });

  it("maps counseling to the country's crisis line: tel:988 in the US, the Samaritans with their country code in London", async () => {
    const us = await answerFindService(store, request({}, "urn:service:counseling"), { now: 0 });
    expect(us).toMatchObject({ uris: ["tel:988"], serviceNumber: "988" });
    const gb = await answerFindService(
      store,
      request({ latitude: 51.5074, longitude: -0.1278 }, "urn:service:counseling"),
      { now: 0 },
    );
    expect(gb.uris).toEqual(["tel:116123;phone-context=+44"]);
    expect(
      await validateLost(findServiceResponse({ source: "sos.example.org", mapping: gb, locationId: "x" })),
    ).toEqual([]);
  });

  it("answers notFound outside the US and internalError when the PSAP data cannot be read, each valid", async () => {
    const abroad = await answerFindService(store, request({ latitude: 48.8566, longitude: 2.3522 }), {
      now: 0,
    }).catch((e: unknown) => e);
    expect(abroad).toBeInstanceOf(LostError);
    expect((abroad as LostError).kind).toBe("notFound");
    const broken = await answerFindService(new MemoryPsapStore(), request({}), { now: 0 }).catch(
      (e: unknown) => e,
    );
    expect((broken as LostError).kind).toBe("internalError");
    for (const err of [
      abroad as LostError,
      broken as LostError,
      new LostError("locationProfileUnrecognized", "civic", ["civic"]),
    ]) {
      expect(await validateLost(errorsResponse("sos.example.org", err))).toEqual([]);
    }
  });
});
