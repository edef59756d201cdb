// The whole NG9-1-1 chain from our data alone, with real parts: `npm run dev` serving the real PSAP data with
// location URIs and LoST on, and Kamailio's own `lost` module taking INVITEs whose Geolocation header
// carries a location URI (RFC 6442 by reference). Kamailio dereferences the URI (lost_held_dereference by
// POST, or lost_query's own GET), asks LoST where the call goes for the PIDF-LO it got, and routes to the
// centre's 24/7 line; after the patient moves, the next INVITE is routed for the new place. Everything
// Kamailio was answered passes through a recording proxy and is validated against the HELD and PIDF-LO
// schemas (RFC 5985, RFC 3863, RFC 4119, RFC 5491) and LoST's (RFC 5222). Skipped without Kamailio or
// xmllint, except in CI.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { haversineKm } from "../../lib/psap-index/geo.ts";
import { PHONE_KINDS } from "../../sdk/src/protocol.ts";
import { callJson, type DevServer, startDevServer } from "../support/dev-server.ts";
import {
  kamailioMissing,
  type RoutedCall,
  type RunningKamailio,
  startKamailio,
} from "../support/kamailio.ts";
import { type RecordingProxy, startRecordingProxy } from "../support/recording-proxy.ts";
import { validateHeld } from "../support/validate-held.ts";
import { validateLost, xmllintMissing } from "../support/validate-lost.ts";

const missing = kamailioMissing() ?? xmllintMissing();
const READY_TIMEOUT_MS = 300_000;
const SIP_DOMAIN = "psap-gw.example.org";

/** Downtown Austin (Travis County), then Round Rock (Williamson County): far more than 100 m apart. */
const DOWNTOWN = { latitude: 30.26721, longitude: -97.74309, accuracy: 18 };
const ROUND_ROCK = { latitude: 30.50829, longitude: -97.67891, accuracy: 12 };
const COUNTIES = ["Travis", "Williamson"];
/**
 * The centre's 24/7 line: a `dispatch` line where the PSAP record knows that kind, else `emergency` (a line
 * that rings the 911 floor); LoST routes to either, never to an `administrative` line.
 */
const LINE_KIND = (PHONE_KINDS as readonly string[]).includes("dispatch") ? "dispatch" : "emergency";

interface FirstPsap {
  id: string;
  name: string;
  state: string;
  phone: string | null;
}

describe.skipIf(missing !== null)(
  `location URIs on npm run dev, dereferenced and routed by Kamailio${missing ? ` (skipped: ${missing})` : ""}`,
  () => {
    let server: DevServer;
    let proxy: RecordingProxy;
    let kamailio: RunningKamailio;
    let platform: { platform_id: string; api_key: string };
    let session: { session_id: string; counselor_token: string; patient_token: string };
    let locationUri: string;
    const admin = () => ({ Authorization: `Bearer ${server.adminToken}` });
    const sessionPath = () => `/v1/platforms/${platform.platform_id}/sessions/${session.session_id}`;

    const api = <T>(method: string, path: string, headers: Record<string, string>, body?: unknown) =>
      callJson<T>(server.base, method, path, headers, body);

    /** The patient's browser sends its fix; the session API's first PSAP for it. */
    async function patientAt(fix: typeof DOWNTOWN): Promise<FirstPsap> {
      const sent = await api<{ psaps: FirstPsap[] }>(
        "POST",
        `${sessionPath()}/sos/location`,
        {
          Authorization: `Bearer ${session.patient_token}`,
        },
        fix,
      );
      expect(sent.status).toBe(200);
      const first = sent.body.psaps[0];
      if (!first) throw new Error("no PSAP for the fix");
      expect(first.phone, `a ${LINE_KIND} line was put on file for ${first.name}`).toMatch(
        /^\+1(512|737)555/,
      );
      return first;
    }

    /** An INVITE to `service` whose Geolocation header carries the location URI, dereferenced as asked. */
    function invite(dereference: "get" | "post", service = "urn:service:sos"): Promise<RoutedCall> {
      return kamailio.call({ carriage: "reference", locationUri, dereference, service });
    }

    const routedTo = (first: FirstPsap) => ({
      status: 302,
      lostResult: 200,
      uri: `sip:${first.phone}@${SIP_DOMAIN};user=phone`,
      displayName: `${first.name} (${first.state})`,
      lostError: null,
    });

    beforeAll(async () => {
      server = await startDevServer({
        stateName: "held-e2e",
        args: [
          "--var",
          "HELD_ENABLED:true",
          "--var",
          "LOST_ENABLED:true",
          "--var",
          `LOST_SIP_DOMAIN:${SIP_DOMAIN}`,
        ],
        readyTimeoutMs: READY_TIMEOUT_MS,
      });
      proxy = await startRecordingProxy(server.base);
      const created = await api<{ platform_id: string; api_key: string }>(
        "POST",
        "/v1/admin/platforms",
        admin(),
        { name: "Telehealth platform with its own SIP trunk" },
      );
      expect(created.status).toBe(201);
      platform = created.body;
      // The centres' 24/7 lines, before any lookup reads the directory (its cache would keep the earlier
      // list for up to a minute): fictional 555-01xx numbers, the same on every run.
      let n = 100;
      for (const county of COUNTIES) {
        const listed = await api<{ psaps: { id: string }[] }>(
          "GET",
          `/v1/admin/psaps?state=TX&county=${county}`,
          admin(),
        );
        expect(listed.status).toBe(200);
        expect(listed.body.psaps.length).toBeGreaterThan(0);
        for (const psap of listed.body.psaps) {
          const put = await api("PUT", `/v1/admin/psaps/${psap.id}/contact`, admin(), {
            phone: `+1512555${String(n++).padStart(4, "0")}`,
            phone_kind: LINE_KIND,
            source: "held-kamailio.test.ts (fictional)",
          });
          expect(put.status).toBe(200);
        }
      }
      const opened = await api<typeof session>(
        "POST",
        `/v1/platforms/${platform.platform_id}/sessions`,
        {
          "X-API-Key": platform.api_key,
        },
        { meeting_id: "m-held", counselor_id: "c-held", patient_id: "p-held" },
      );
      expect(opened.status).toBe(201);
      session = opened.body;
      const sos = await api(
        "POST",
        `${sessionPath()}/sos`,
        { Authorization: `Bearer ${session.counselor_token}` },
        {},
      );
      expect(sos.status).toBe(202);
      // The platform's backend makes the URI as it places the call; Kamailio reaches the service through the
      // recording proxy, so the URI it is given names the proxy's origin (the path is the URI's own).
      const made = await api<{ uri: string }>("POST", `${sessionPath()}/location-uri`, {
        "X-API-Key": platform.api_key,
      });
      expect(made.status).toBe(201);
      expect(made.body.uri.startsWith(`${server.base}/held/`)).toBe(true);
      locationUri = `${proxy.url}${new URL(made.body.uri).pathname}`;
      kamailio = await startKamailio({
        url: `${proxy.url}/lost`,
        user: platform.platform_id,
        password: platform.api_key,
      });
    }, READY_TIMEOUT_MS + 120_000);

    afterAll(async () => {
      await kamailio?.stop();
      await proxy?.close();
      await server?.stop();
    });

    it("hands Kamailio HELD's locationUnknown while the SOS waits for the patient's fix, so the call takes its usual route", async () => {
      const call = await invite("post");
      expect(call).toMatchObject({ status: 500, heldResult: 500, lostError: "locationUnknown", uri: null });
    });

    it("routes an INVITE whose Geolocation is the URI to the 24/7 line of the centre the session API puts first, both ways", async () => {
      const first = await patientAt(DOWNTOWN);
      expect(await invite("post")).toEqual({ ...routedTo(first), heldResult: 202 });
      expect(await invite("get")).toEqual(routedTo(first));
    }, 60_000);

    it("routes the next INVITE for the new place after the patient moves more than 100 m", async () => {
      const before = await invite("post");
      expect(
        haversineKm(DOWNTOWN.latitude, DOWNTOWN.longitude, ROUND_ROCK.latitude, ROUND_ROCK.longitude),
      ).toBeGreaterThan(0.1);
      const moved = await patientAt(ROUND_ROCK);
      expect(`sip:${moved.phone}@${SIP_DOMAIN};user=phone`).not.toBe(before.uri);
      expect(await invite("post")).toEqual({ ...routedTo(moved), heldResult: 202 });
      expect(await invite("get")).toEqual(routedTo(moved));
    }, 60_000);

    it("routes a crisis-line call (urn:service:counseling) to 988 as a SIP URI, from the same URI", async () => {
      const call = await invite("get", "urn:service:counseling");
      expect(call).toEqual({
        status: 302,
        lostResult: 200,
        uri: `sip:988@${SIP_DOMAIN};user=phone`,
        displayName: "Crisis line 988 (US)",
        lostError: null,
      });
    }, 60_000);

    it("gives Kamailio nothing once the SOS is cancelled: the dereference fails and the call falls back", async () => {
      const cancelled = await api(
        "POST",
        `${sessionPath()}/sos/cancel`,
        {
          Authorization: `Bearer ${session.counselor_token}`,
        },
        {},
      );
      expect(cancelled.status).toBe(200);
      expect(await invite("post")).toMatchObject({ status: 500, heldResult: 400, uri: null });
      expect(await invite("get")).toMatchObject({ status: 500, lostResult: 400, uri: null });
    }, 60_000);

    it("answered Kamailio only schema-valid HELD, PIDF-LO and LoST documents (and one 404 for the dead URI)", async () => {
      const held = proxy.answers.filter((a) => a.path.startsWith("/held/"));
      const lost = proxy.answers.filter((a) => a.path === "/lost");
      expect(held.length).toBeGreaterThanOrEqual(9);
      expect(lost.length).toBeGreaterThanOrEqual(5);
      for (const answer of held) {
        if (answer.status === 404) {
          expect(answer.contentType).toBe("application/problem+json");
          continue;
        }
        expect(answer.status).toBe(200);
        expect(["application/held+xml; charset=utf-8", "application/pidf+xml; charset=utf-8"]).toContain(
          answer.contentType,
        );
        expect(await validateHeld(answer.body), answer.body).toEqual([]);
      }
      expect(held.filter((a) => a.status === 404).length).toBe(2);
      for (const answer of lost) expect(await validateLost(answer.body), answer.body).toEqual([]);
    });

    it("wrote no coordinate of the patient into the server's log", () => {
      const output = server.process.output();
      for (const fix of [DOWNTOWN, ROUND_ROCK]) {
        expect(output).not.toContain(String(fix.latitude));
        expect(output).not.toContain(String(fix.longitude));
      }
    });
  },
);

if (missing !== null && process.env.CI === "true") {
  it("has Kamailio with its lost module and xmllint in CI (.ci/run installs them)", () => {
    throw new Error(missing);
  });
}
