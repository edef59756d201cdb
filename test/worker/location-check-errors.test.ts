import { env } from "cloudflare:workers";
import { importJWK, SignJWT } from "jose";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SessionCreateResponse } from "../../sdk/src/protocol.ts";
import type { PsapIndexStore } from "../../src/psap/lookup.ts";
import {
  asCounselor,
  asPatient,
  asPlatform,
  call,
  newPlatform,
  newSession,
  openSocket,
  replaceObjectIndex,
  SESSION_BODY,
  seedPsapIndex,
  sessionPath,
  storedRecord,
  type TestPlatform,
} from "./helpers.ts";

const CHECK_FIX = { latitude: 41.79312, longitude: -87.59817, accuracy: 41 };
const SOS_FIX = { latitude: 41.8819, longitude: -87.6278, accuracy: 25 };
const PATH = "/location-check";

const undo: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const restore of undo.splice(0)) await restore();
});

beforeAll(async () => {
  await seedPsapIndex();
});

async function checkedSession(
  checks = true,
): Promise<{ platform: TestPlatform; session: SessionCreateResponse }> {
  const platform = await newPlatform();
  const body = { ...SESSION_BODY, ...(checks ? { location_check: "at_start" } : {}) };
  return { platform, session: await newSession(platform, body) };
}

function post(session: SessionCreateResponse, token: string, init: { body?: BodyInit; type?: string } = {}) {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (init.type !== undefined) headers["Content-Type"] = init.type;
  return call(sessionPath(session, PATH), { method: "POST", headers, body: init.body });
}

async function expectProblem(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  expect(await res.json()).toMatchObject({ status, code });
}

/** The session's own patient token, re-signed by the service's key with an `exp` in the past. */
async function expiredToken(token: string): Promise<string> {
  const payload = token.split(".")[1] ?? "";
  const claims = JSON.parse(atob(payload.replaceAll("-", "+").replaceAll("_", "/")));
  const jwk = JSON.parse(env.JWT_SIGNING_KEY) as { kid: string };
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ ...claims, iat: now - 7200, exp: now - 60 })
    .setProtectedHeader({ alg: "EdDSA", kid: jwk.kid, typ: "JWT" })
    .sign(await importJWK(jwk, "EdDSA"));
}

/** Holds every index read of the session object until `release()`: a lookup kept in flight. */
async function heldIndex(sessionId: string) {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reads = 0;
  undo.push(
    await replaceObjectIndex(sessionId, (kv) => ({
      get: (async (key: string) => {
        reads++;
        await released;
        return kv.get(key, "text");
      }) as PsapIndexStore["get"],
    })),
  );
  const waitForRead = async () => {
    for (let i = 0; i < 300 && reads === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(reads, "the lookup never read the index").toBeGreaterThan(0);
  };
  return { release, waitForRead };
}

describe("the order of refusals", () => {
  it("401 without credentials or with a forged token", async () => {
    const { session } = await checkedSession();
    const bare = await call(sessionPath(session, PATH), { method: "POST", body: "x".repeat(20_000) });
    await expectProblem(bare, 401, "missing_credentials");
    expect(bare.headers.get("WWW-Authenticate")).toBe('Bearer realm="sos"');
    await expectProblem(await post(session, "a.b.c"), 401, "invalid_token");
  });

  it("403 for a counselor's token, and for another session's patient", async () => {
    const { session } = await checkedSession();
    const { session: other } = await checkedSession();
    const json = { body: JSON.stringify(CHECK_FIX), type: "application/json" };
    await expectProblem(await post(session, session.counselor_token, json), 403, "forbidden");
    await expectProblem(await post(session, other.patient_token, json), 403, "forbidden");
  });

  it("404 for an unknown route beside it, 405 with Allow: POST for another method", async () => {
    const { session } = await checkedSession();
    const headers = { Authorization: `Bearer ${session.patient_token}` };
    await expectProblem(
      await call(sessionPath(session, `${PATH}/now`), { method: "POST", headers }),
      404,
      "not_found",
    );
    const get = await call(sessionPath(session, PATH), { headers });
    await expectProblem(get, 405, "method_not_allowed");
    expect(get.headers.get("Allow")).toBe("POST");
  });

  it("410 for a session that is over, before 413, 415, 400 and 409; and for a token past its exp", async () => {
    const { platform, session } = await checkedSession(false);
    expect((await asPlatform(platform, sessionPath(session, "/end"), "POST")).status).toBe(200);
    const token = session.patient_token;
    await expectProblem(
      await post(session, token, { body: "x".repeat(20_000), type: "text/plain" }),
      410,
      "session_ended",
    );
    await expectProblem(await post(session, token, { body: "{}", type: "text/plain" }), 410, "session_ended");
    await expectProblem(
      await post(session, token, { body: "{}", type: "application/json" }),
      410,
      "session_ended",
    );
    await expectProblem(
      await post(session, token, { body: JSON.stringify(CHECK_FIX), type: "application/json" }),
      410,
      "session_ended",
    );
    const { session: live } = await checkedSession();
    await expectProblem(await post(live, await expiredToken(live.patient_token)), 410, "session_expired");
  });

  it("413 before 415 before 400 before 409 on a session without the check", async () => {
    const { session } = await checkedSession(false);
    const token = session.patient_token;
    await expectProblem(
      await post(session, token, { body: "x".repeat(20_000), type: "text/plain" }),
      413,
      "payload_too_large",
    );
    await expectProblem(
      await post(session, token, { body: "{}", type: "text/plain" }),
      415,
      "unsupported_media_type",
    );
    await expectProblem(
      await post(session, token, { body: "{", type: "application/json" }),
      400,
      "invalid_json",
    );
    await expectProblem(
      await post(session, token, { body: "{}", type: "application/json" }),
      400,
      "invalid_request",
    );
    await expectProblem(
      await post(session, token, { body: JSON.stringify(CHECK_FIX), type: "application/json" }),
      409,
      "location_check_off",
    );
  });

  it.each([
    ["a latitude over 90", { latitude: 91, longitude: 0 }, "invalid_request"],
    ["a missing longitude", { latitude: 41.8 }, "invalid_request"],
    ["an unknown field", { ...CHECK_FIX, altitude: 12 }, "unknown_field"],
    ["an unknown reason", { unavailable: "airplane_mode" }, "invalid_request"],
    ["a fix with unavailable", { ...CHECK_FIX, unavailable: "timeout" }, "invalid_request"],
  ])("400 for %s, never echoing a coordinate", async (_name, body, code) => {
    const { session } = await checkedSession();
    const res = await asPatient(session, PATH, body);
    const text = await res.clone().text();
    await expectProblem(res, 400, code);
    expect(text).not.toMatch(/41\.79|87\.59/);
    expect((await storedRecord(session.session_id))?.check).toBeNull();
  });

  it("429 past 30 requests in 10 s, shared with the SOS location, with a Retry-After of at most 10 s", async () => {
    const { session } = await checkedSession();
    for (let i = 0; i < 30; i++) {
      const res = await asPatient(session, i % 2 ? PATH : "/sos/location", { unavailable: "timeout" });
      expect(res.status, `request ${i + 1}`).toBe(i % 2 ? 200 : 409);
    }
    const refused = await asPatient(session, PATH, CHECK_FIX);
    await expectProblem(refused, 429, "rate_limited");
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect((await storedRecord(session.session_id))?.check?.outcome).toBe("timeout");
  });
});

describe("a PSAP lookup that fails", () => {
  it("answers 503 psap_lookup_failed with Retry-After and records nothing: no message, no event, no time", async () => {
    const { platform, session } = await checkedSession();
    const counselor = await openSocket(session.counselor_token);
    const patient = await openSocket(session.patient_token);
    await patient.waitFor("location_request");
    undo.push(
      await replaceObjectIndex(session.session_id, () => ({
        get: (() => Promise.reject(new Error("KV GET failed: 503"))) as PsapIndexStore["get"],
      })),
    );
    const res = await asPatient(session, PATH, CHECK_FIX);
    await expectProblem(res, 503, "psap_lookup_failed");
    const retryAfter = Number(res.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);

    // The next frame the counselor gets is the one after this: nothing was told about the failed check.
    await asPatient(session, PATH, { unavailable: "timeout" });
    expect((await counselor.waitFor("location_check")).outcome).toBe("timeout");
    expect(counselor.all("location_check")).toHaveLength(1);
    expect(counselor.all("location_unavailable")).toHaveLength(0);
    const { events } = await (await asPlatform(platform, sessionPath(session, "/events"))).json<{
      events: { type: string; data?: Record<string, unknown> }[];
    }>();
    expect(events.filter((e) => e.type === "location_checked").map((e) => e.data?.outcome)).toEqual([
      "timeout",
    ]);
  });

  it("leaves no check recorded, so a patient who connects again is asked again", async () => {
    const { platform, session } = await checkedSession();
    undo.push(
      await replaceObjectIndex(session.session_id, () => ({
        get: (() => Promise.reject(new Error("corrupt entry"))) as PsapIndexStore["get"],
      })),
    );
    await expectProblem(await asPatient(session, PATH, CHECK_FIX), 503, "psap_lookup_failed");
    const read = await (await asPlatform(platform, sessionPath(session))).json<Record<string, unknown>>();
    expect(read.location_checked_at).toBeNull();
    expect((await storedRecord(session.session_id))?.check).toBeNull();
    const patient = await openSocket(session.patient_token);
    expect((await patient.waitFor("location_request")).purpose).toBe("check");
  });
});

describe("a check looked up while the SOS moves on", () => {
  it("an SOS that starts and gets its own fix meanwhile: both are delivered, and a counselor who connects gets the SOS's", async () => {
    const { session } = await checkedSession();
    const counselor = await openSocket(session.counselor_token);
    const held = await heldIndex(session.session_id);
    const checking = asPatient(session, PATH, CHECK_FIX);
    await held.waitForRead();
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    // The SOS's fix goes in while the check's lookup still waits for the index.
    const locating = asPatient(session, "/sos/location", SOS_FIX);
    held.release();
    expect((await checking).status).toBe(200);
    expect((await locating).status).toBe(200);
    await counselor.waitFor("location_check");
    await counselor.waitFor("psap_results");
    const record = await storedRecord(session.session_id);
    expect(record).toMatchObject({ state: "sos", location: { ...SOS_FIX } });
    expect(record?.check?.location).toEqual({ ...CHECK_FIX, fixed_at: expect.any(Number) });
    const later = await openSocket(session.counselor_token);
    await later.waitFor("psap_results");
    expect(later.received.map((m) => m.type)).toEqual(["session_state", "psap_results"]);
  });

  it("a cancel meanwhile does not stop the check: it is recorded", async () => {
    const { session } = await checkedSession();
    const counselor = await openSocket(session.counselor_token);
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    const held = await heldIndex(session.session_id);
    const checking = asPatient(session, PATH, CHECK_FIX);
    await held.waitForRead();
    expect((await asCounselor(session, "/sos/cancel")).status).toBe(200);
    held.release();
    expect((await checking).status).toBe(200);
    expect((await counselor.waitFor("location_check")).outcome).toBe("located");
    expect(await storedRecord(session.session_id)).toMatchObject({
      state: "active",
      check: { outcome: "located" },
    });
  });

  it("the end meanwhile: 410, and nothing recorded", async () => {
    const { platform, session } = await checkedSession();
    const counselor = await openSocket(session.counselor_token);
    const held = await heldIndex(session.session_id);
    const checking = asPatient(session, PATH, CHECK_FIX);
    await held.waitForRead();
    expect((await asPlatform(platform, sessionPath(session, "/end"), "POST")).status).toBe(200);
    held.release();
    await expectProblem(await checking, 410, "session_ended");
    await counselor.waitForClose();
    expect(counselor.all("location_check")).toHaveLength(0);
    const record = await storedRecord(session.session_id);
    expect(record?.check).toBeNull();
    expect(record?.location_checked_at).toBeNull();
  });

  it("a newer check meanwhile: the older one's PSAPs answer its request, but the newer check is the one kept", async () => {
    const { session } = await checkedSession();
    const counselor = await openSocket(session.counselor_token);
    const held = await heldIndex(session.session_id);
    const older = asPatient(session, PATH, CHECK_FIX);
    await held.waitForRead();
    expect((await asPatient(session, PATH, { unavailable: "position_unavailable" })).status).toBe(200);
    held.release();
    const answer = await older;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toHaveProperty("result_id");
    expect((await counselor.waitFor("location_check")).outcome).toBe("position_unavailable");
    // A later request lets any delivery of the older check show itself first: none does.
    await asPatient(session, PATH, { unavailable: "timeout" });
    await counselor.waitFor("location_check", 2);
    expect(counselor.all("location_check").map((m) => m.outcome)).toEqual([
      "position_unavailable",
      "timeout",
    ]);
  });
});

describe("the OpenAPI document", () => {
  it("describes the route, its credential and answers, and the session's new fields", async () => {
    const doc = await (await call("/v1/openapi.json")).json<{
      paths: Record<string, Record<string, { security: unknown; responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
    }>();
    const route = doc.paths["/v1/platforms/{platformId}/sessions/{sessionId}/location-check"]?.post;
    expect(route?.security).toEqual([{ PatientToken: [] }]);
    expect(Object.keys(route?.responses ?? {}).sort()).toEqual(
      ["200", "400", "401", "403", "409", "410", "413", "415", "429", "503"].sort(),
    );
    const schemas = doc.components.schemas;
    expect(schemas.CreateSessionRequest?.properties.location_check?.enum).toEqual(["off", "at_start"]);
    expect(schemas.Session?.properties.location_check?.enum).toEqual(["off", "at_start"]);
    expect(schemas.Session?.properties).toHaveProperty("location_checked_at");
    expect(schemas.Problem?.properties.code?.enum).toContain("location_check_off");
  });
});
