// Kamailio's own LoST client (its `lost` module, through http_client with HTTP Basic: platform id and API
// key) routes emergency INVITEs carrying a PIDF-LO, a point and a circle, as a LoST server answers. The
// server here is a stand-in with fixed answers, to pin what the client does with each kind of answer (a
// tel: URI alone, an error, the 401 challenge); lost-dev.test.ts runs the same calls against `POST /lost`
// on `npm run dev`. Skipped without Kamailio or xmllint, except in CI.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EmergencyCall,
  kamailioMissing,
  type LostConnection,
  routeEmergencyCalls,
} from "../support/kamailio.ts";
import {
  errorsResponse,
  findServiceResponse,
  isLostXml,
  type LostStandIn,
  type RecordedLostRequest,
  startLostStandIn,
} from "../support/lost-standin.ts";
import {
  EPSG_4326,
  EPSG_METRE,
  type GeodeticFix,
  GML_NS,
  gmlPos,
  PIDFLO_SHAPES_NS,
} from "../support/pidf-lo.ts";
import { validateLost, xmllintMissing, xpathString } from "../support/validate-lost.ts";

const missing = kamailioMissing() ?? xmllintMissing();

const PLATFORM_ID = "plt_kamailio0test1";
const API_KEY = "sk_live_K4m41l10TestKeyK4m41l10TestKeyK4m41l10";
const DISPLAY_NAME = "Travis County 911 (TX)";
const TEL_URI = "tel:+15125550100";
/** The same number as a SIP URI (RFC 3261 section 19.1.6): the form Kamailio's lost module can route to. */
const SIP_URI = "sip:+15125550100@psap.example.org;user=phone";

const POINT: GeodeticFix = { shape: "Point", latitude: 30.2672, longitude: -97.7431 };
const CIRCLE: GeodeticFix = { shape: "Circle", latitude: 30.4015, longitude: -97.7527, radiusMeters: 850 };
/** Both shapes, each carried both ways a SIP client sends a PIDF-LO. */
const CALLS: EmergencyCall[] = [
  { fix: POINT, carriage: "pidf-body" },
  { fix: CIRCLE, carriage: "pidf-body" },
  { fix: POINT, carriage: "rfc6442" },
  { fix: CIRCLE, carriage: "rfc6442" },
];

/** SPEC's tel: URI first, its SIP form after: Kamailio takes the first sips:, else the first sip:, wherever. */
const ROUTABLE = findServiceResponse({ displayName: DISPLAY_NAME, uris: [TEL_URI, SIP_URI] });
const TEL_ONLY = findServiceResponse({ displayName: DISPLAY_NAME, uris: [TEL_URI] });
const NOT_FOUND = errorsResponse("notFound", "No PSAP serves this location");

describe.skipIf(missing !== null)(
  `Kamailio's lost module against a LoST server${missing ? ` (skipped: ${missing})` : ""}`,
  () => {
    let standIn: LostStandIn;
    const connection = (overrides: Partial<LostConnection> = {}): LostConnection => ({
      url: standIn.url,
      user: PLATFORM_ID,
      password: API_KEY,
      ...overrides,
    });

    beforeAll(async () => {
      standIn = await startLostStandIn({ user: PLATFORM_ID, password: API_KEY, answer: ROUTABLE });
    });
    afterAll(async () => {
      await standIn?.close();
    });

    it("answers schema-valid LoST documents (the stand-in's fixed answers)", async () => {
      for (const answer of [ROUTABLE, TEL_ONLY, NOT_FOUND]) expect(await validateLost(answer)).toEqual([]);
    });

    it("routes a point and a circle to the URI and display name LoST answered, asking in RFC 5222's shape", async () => {
      standIn.answerWith(ROUTABLE);
      const seen = standIn.requests.length;
      const routed = await routeEmergencyCalls(connection(), CALLS);

      for (const call of routed) {
        expect(call).toEqual({
          status: 302,
          lostResult: 200,
          uri: SIP_URI,
          displayName: DISPLAY_NAME,
          lostError: null,
        });
      }
      // One query per call (Kamailio's transaction absorbs INVITE retransmissions), in the calls' order.
      const requests = standIn.requests.slice(seen);
      expect(requests.map((request) => request.status)).toEqual(CALLS.map(() => 200));
      for (const [i, request] of requests.entries()) {
        const call = CALLS[i] as EmergencyCall;
        expect(request.method).toBe("POST");
        expect(request.basic).toEqual({ user: PLATFORM_ID, password: API_KEY });
        expect(isLostXml(request.contentType), request.contentType).toBe(true);
        await expectFindServiceFor(request, call.fix);
      }
    });

    it("does not route on a tel: URI alone: Kamailio's lost module takes only sip: and sips: URIs", async () => {
      standIn.answerWith(TEL_ONLY);
      const seen = standIn.requests.length;
      const [call] = await routeEmergencyCalls(connection(), [{ fix: POINT, carriage: "pidf-body" }]);
      expect(standIn.requests.slice(seen).map((request) => request.status)).toEqual([200]);
      expect(call).toEqual({ status: 500, lostResult: 400, uri: null, displayName: null, lostError: null });
    });

    it("hands a LoST error to the SIP server by its name", async () => {
      standIn.answerWith(NOT_FOUND);
      const [call] = await routeEmergencyCalls(connection(), [{ fix: CIRCLE, carriage: "rfc6442" }]);
      expect(call).toEqual({
        status: 500,
        lostResult: 500,
        uri: null,
        displayName: null,
        lostError: "notFound",
      });
    });

    it("gets through the 401 challenge when left at http_client's default authmethod (Basic or Digest)", async () => {
      standIn.answerWith(ROUTABLE);
      const seen = standIn.requests.length;
      const [call] = await routeEmergencyCalls(connection({ authMethod: "basic-or-digest" }), [
        { fix: POINT, carriage: "rfc6442" },
      ]);
      expect(call).toMatchObject({ status: 302, uri: SIP_URI, displayName: DISPLAY_NAME });
      // curl asks without credentials first; only a Basic challenge makes it send them.
      const requests = standIn.requests.slice(seen);
      expect(requests.map((request) => [request.status, request.basic])).toEqual([
        [401, null],
        [200, { user: PLATFORM_ID, password: API_KEY }],
      ]);
    });
  },
);

/** The request is a findService valid against RFC 5222's schema, for the call's service and exactly its fix. */
async function expectFindServiceFor(request: RecordedLostRequest, fix: GeodeticFix): Promise<void> {
  const xml = request.body;
  expect(await validateLost(xml), xml).toEqual([]);
  const read = (expression: string) => xpathString(xml, expression);
  const location = '/*/*[local-name()="location"]';
  const shape = `${location}/*[1]`;
  expect(await read("local-name(/*)")).toBe("findService");
  expect(await read("namespace-uri(/*)")).toBe("urn:ietf:params:xml:ns:lost1");
  expect(await read(`count(${location})`)).toBe("1");
  expect(await read(`${location}/@profile`)).toBe("geodetic-2d");
  expect(await read(`count(${location}/*)`)).toBe("1");
  expect(await read(`local-name(${shape})`)).toBe(fix.shape);
  expect(await read(`namespace-uri(${shape})`)).toBe(fix.shape === "Point" ? GML_NS : PIDFLO_SHAPES_NS);
  expect(await read(`${shape}/@srsName`)).toBe(EPSG_4326);
  expect(await read(`${shape}/*[local-name()="pos" and namespace-uri()="${GML_NS}"]`)).toBe(gmlPos(fix));
  if (fix.shape === "Circle") {
    const radius = `${shape}/*[local-name()="radius" and namespace-uri()="${PIDFLO_SHAPES_NS}"]`;
    expect(await read(radius)).toBe(String(fix.radiusMeters));
    expect(await read(`${radius}/@uom`)).toBe(EPSG_METRE);
  }
  expect(await read('/*/*[local-name()="service"]')).toBe("urn:service:sos");
}

if (missing !== null && process.env.CI === "true") {
  it("has Kamailio with its lost module and xmllint in CI (.ci/run installs them)", () => {
    throw new Error(missing);
  });
}
