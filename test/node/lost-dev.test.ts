// `POST /lost` end to end, with real clients: `npm run dev` serving the real PSAP data with LOST_ENABLED=true
// and a SIP domain, Kamailio's own `lost` module routing emergency INVITEs (a point and a circle, carried
// both ways) through a recording proxy, so every answer Kamailio was given is checked against RFC 5222's
// schema; and at the same fixes and a sample of the truth sets' places, LoST names the PSAP the session
// API puts first. Skipped without Kamailio or xmllint, except in CI.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTruth, type TruthPlace } from "../../bench/accuracy.ts";
import { TRUTH_FILES } from "../../bench/accuracy-run.ts";
import { callJson, type DevServer, ROOT, startDevServer } from "../support/dev-server.ts";
import { type EmergencyCall, kamailioMissing, routeEmergencyCalls } from "../support/kamailio.ts";
import type { GeodeticFix } from "../support/pidf-lo.ts";
import { type RecordingProxy, startRecordingProxy } from "../support/recording-proxy.ts";
import { validateLost, xmllintMissing, xpathString } from "../support/validate-lost.ts";

const missing = kamailioMissing() ?? xmllintMissing();
const READY_TIMEOUT_MS = 300_000;
const SIP_DOMAIN = "psap-gw.example.org";
const LOST_NS = "urn:ietf:params:xml:ns:lost1";

const POINT: GeodeticFix = { shape: "Point", latitude: 30.2672, longitude: -97.7431 };
const CIRCLE: GeodeticFix = { shape: "Circle", latitude: 30.4015, longitude: -97.7527, radiusMeters: 850 };
const ABROAD: GeodeticFix = { shape: "Point", latitude: 48.8566, longitude: 2.3522 };
/** Every 40th place of the truth sets: each category's kind of place, through the real server. */
const SAMPLE: TruthPlace[] = TRUTH_FILES.flatMap((file) => readTruth(join(ROOT, file))).filter(
  (_place, i) => i % 40 === 0,
);

interface FirstPsap {
  id: string;
  name: string;
  state: string;
  phone: string | null;
}

describe.skipIf(missing !== null)(
  `LoST on npm run dev, asked by Kamailio${missing ? ` (skipped: ${missing})` : ""}`,
  () => {
    let server: DevServer;
    let proxy: RecordingProxy;
    let platform: { platform_id: string; api_key: string };
    const admin = () => ({ Authorization: `Bearer ${server.adminToken}` });

    const api = <T>(method: string, path: string, headers: Record<string, string>, body?: unknown) =>
      callJson<T>(server.base, method, path, headers, body);

    /** The session API's first PSAP for a fix: a session, an SOS, the patient's location. */
    async function sessionFirst(
      latitude: number,
      longitude: number,
      accuracy: number,
    ): Promise<FirstPsap | null> {
      const key = { "X-API-Key": platform.api_key };
      const created = await api<{ session_id: string; counselor_token: string; patient_token: string }>(
        "POST",
        `/v1/platforms/${platform.platform_id}/sessions`,
        key,
        { meeting_id: "m-lost", counselor_id: "c-lost", patient_id: "p-lost" },
      );
      expect(created.status).toBe(201);
      const path = `/v1/platforms/${platform.platform_id}/sessions/${created.body.session_id}`;
      const counselor = { Authorization: `Bearer ${created.body.counselor_token}` };
      const patient = { Authorization: `Bearer ${created.body.patient_token}` };
      expect((await api("POST", `${path}/sos`, counselor, {})).status).toBe(202);
      const located = await api<{ psaps: FirstPsap[] }>("POST", `${path}/sos/location`, patient, {
        latitude,
        longitude,
        accuracy,
      });
      expect(located.status).toBe(200);
      expect((await api("POST", `${path}/end`, key, {})).status).toBe(200);
      return located.body.psaps[0] ?? null;
    }

    /** A findService straight to the server (not through Kamailio), its answer schema-checked. */
    async function askLost(
      shape: string,
      service = "urn:service:sos",
      attributes = "",
      profile = "geodetic-2d",
    ): Promise<string> {
      const res = await fetch(`${server.base}/lost`, {
        method: "POST",
        headers: { "Content-Type": "application/lost+xml; charset=utf-8", "X-API-Key": platform.api_key },
        body:
          `<findService xmlns="${LOST_NS}"${attributes}><location id="q1" profile="${profile}">${shape}</location>` +
          `<service>${service}</service></findService>`,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/lost+xml; charset=utf-8");
      const xml = await res.text();
      expect(await validateLost(xml), xml).toEqual([]);
      return xml;
    }

    const point = (latitude: number, longitude: number, radius?: number) =>
      radius === undefined
        ? `<Point xmlns="http://www.opengis.net/gml" srsName="urn:ogc:def:crs:EPSG::4326"><pos>${latitude} ${longitude}</pos></Point>`
        : `<gs:Circle xmlns:gs="http://www.opengis.net/pidflo/1.0" xmlns:gml="http://www.opengis.net/gml" srsName="urn:ogc:def:crs:EPSG::4326">` +
          `<gml:pos>${latitude} ${longitude}</gml:pos><gs:radius uom="urn:ogc:def:uom:EPSG::9001">${radius}</gs:radius></gs:Circle>`;

    beforeAll(async () => {
      server = await startDevServer({
        stateName: "lost-e2e",
        args: ["--var", "LOST_ENABLED:true", "--var", `LOST_SIP_DOMAIN:${SIP_DOMAIN}`],
        readyTimeoutMs: READY_TIMEOUT_MS,
      });
      proxy = await startRecordingProxy(server.base);
      const created = await api<{ platform_id: string; api_key: string }>(
        "POST",
        "/v1/admin/platforms",
        admin(),
        {
          name: "SIP server",
        },
      );
      expect(created.status).toBe(201);
      platform = created.body;
      // Numbers for the centres of the fixes' county before any lookup reads the directory (its cache
      // would hold the earlier list for a minute): fictional 555-01xx numbers, the same on every run.
      const listed = await api<{ psaps: { id: string }[] }>(
        "GET",
        "/v1/admin/psaps?state=TX&county=Travis",
        admin(),
      );
      expect(listed.status).toBe(200);
      expect(listed.body.psaps.length).toBeGreaterThan(0);
      for (const [i, psap] of listed.body.psaps.entries()) {
        const phone = `+1512555${String(100 + i).padStart(4, "0")}`;
        const put = await api("PUT", `/v1/admin/psaps/${psap.id}/contact`, admin(), {
          phone,
          phone_kind: "emergency",
          source: "lost-dev.test.ts (fictional)",
        });
        expect(put.status).toBe(200);
      }
    }, READY_TIMEOUT_MS + 60_000);

    afterAll(async () => {
      await proxy?.close();
      await server?.stop();
    });

    it("routes a point and a circle, carried both ways, to the SIP URI of the session API's first PSAP", async () => {
      const calls: EmergencyCall[] = [
        { fix: POINT, carriage: "pidf-body" },
        { fix: CIRCLE, carriage: "pidf-body" },
        { fix: POINT, carriage: "rfc6442" },
        { fix: CIRCLE, carriage: "rfc6442" },
      ];
      const lost = { url: `${proxy.url}/lost`, user: platform.platform_id, password: platform.api_key };
      const routed = await routeEmergencyCalls(lost, calls);
      for (const [i, call] of calls.entries()) {
        const radius = call.fix.shape === "Circle" ? call.fix.radiusMeters : 0;
        const first = await sessionFirst(call.fix.latitude, call.fix.longitude, radius);
        expect(first?.phone, "a number was put on file for the Travis County centres").toMatch(/^\+1512555/);
        expect(routed[i]).toEqual({
          status: 302,
          lostResult: 200,
          uri: `sip:${first?.phone}@${SIP_DOMAIN};user=phone`,
          displayName: `${first?.name} (${first?.state})`,
          lostError: null,
        });
      }
    }, 120_000);

    it("gets through the 401 challenge at http_client's default, and hands Kamailio notFound abroad", async () => {
      const lost = {
        url: `${proxy.url}/lost`,
        user: platform.platform_id,
        password: platform.api_key,
        authMethod: "basic-or-digest" as const,
      };
      const seen = proxy.answers.length;
      const [inAustin, inParis] = await routeEmergencyCalls(lost, [
        { fix: POINT, carriage: "rfc6442" },
        { fix: ABROAD, carriage: "pidf-body" },
      ]);
      expect(inAustin).toMatchObject({ status: 302, lostResult: 200 });
      expect(inParis).toEqual({
        status: 500,
        lostResult: 500,
        uri: null,
        displayName: null,
        lostError: "notFound",
      });
      const statuses = proxy.answers.slice(seen).map((answer) => answer.status);
      expect(statuses).toEqual([401, 200, 401, 200]);
    }, 120_000);

    it("gave Kamailio only answers valid against RFC 5222's schema (and a problem+json challenge)", async () => {
      expect(proxy.answers.length).toBeGreaterThanOrEqual(6);
      for (const answer of proxy.answers) {
        if (answer.status === 401) {
          expect(answer.contentType).toBe("application/problem+json");
          continue;
        }
        expect(answer.status).toBe(200);
        expect(answer.contentType).toBe("application/lost+xml; charset=utf-8");
        expect(await validateLost(answer.body), answer.body).toEqual([]);
      }
    });

    it("answers each kind of question with a schema-valid document: counseling, validation, civic, a polygon, nonsense", async () => {
      const counseling = await askLost(point(POINT.latitude, POINT.longitude), "urn:service:counseling");
      expect(await xpathString(counseling, '//*[local-name()="uri"]')).toBe("tel:988");
      const validated = await askLost(
        point(POINT.latitude, POINT.longitude, 30),
        "urn:service:sos",
        ' validateLocation="true"',
      );
      expect(await xpathString(validated, '//*[local-name()="valid"]')).toBe("gs:Circle gml:pos gs:radius");
      const civic = await askLost(
        `<civicAddress xmlns="urn:ietf:params:xml:ns:pidf:geopriv10:civicAddr"><country>US</country></civicAddress>`,
        "urn:service:sos",
        "",
        "civic",
      );
      expect(await xpathString(civic, "local-name(/*/*[1])")).toBe("locationProfileUnrecognized");
      const polygon = await askLost(
        `<gml:Polygon xmlns:gml="http://www.opengis.net/gml" srsName="urn:ogc:def:crs:EPSG::4326"><gml:exterior><gml:LinearRing>` +
          `<gml:posList>30.26 -97.75 30.27 -97.75 30.27 -97.73 30.26 -97.73 30.26 -97.75</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon>`,
      );
      expect(await xpathString(polygon, "local-name(/*)")).toBe("findServiceResponse");
      const nonsense = await askLost("<notAShape/>", "urn:service:sos");
      expect(await xpathString(nonsense, "local-name(/*/*[1])")).toBe("badRequest");
    });

    it(`names the session API's first PSAP at ${SAMPLE.length} places of the truth sets`, async () => {
      const differences: string[] = [];
      for (const place of SAMPLE) {
        const first = await sessionFirst(place.latitude, place.longitude, 20);
        const xml = await askLost(point(place.latitude, place.longitude, 20));
        const named = await xpathString(xml, '//*[local-name()="displayName"]');
        const expected = first ? `${first.name} (${first.state})` : "";
        if (named !== expected) differences.push(`${place.id}: LoST "${named}", session "${expected}"`);
      }
      expect(differences).toEqual([]);
    }, 180_000);
  },
);

if (missing !== null && process.env.CI === "true") {
  it("has Kamailio with its lost module and xmllint in CI (.ci/run installs them)", () => {
    throw new Error(missing);
  });
}
