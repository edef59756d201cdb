// The address on file (docs/contract.md, section 3): counselors only, kept through a cancel, erased at the end,
// never in an audit event, a log line, the patient's answers or the patient's socket.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  asCounselor,
  asPatient,
  asPlatform,
  expectNeverLogged,
  newPlatform,
  newSession,
  openSocket,
  postJson,
  SESSION_BODY,
  seedPsapIndex,
  sessionPath,
  sessionStubOf,
  shiftClock,
  storedRecord,
  type TestPlatform,
} from "./helpers.ts";

const ADDRESS = "Apt 4B, 1200 W Harrison St, Chicago, IL 60607";
const CHICAGO = { latitude: 41.8819, longitude: -87.6278, accuracy: 25 };

beforeAll(async () => {
  await seedPsapIndex();
});
// Whatever happened in a test, no log line held the address.
expectNeverLogged(["Harrison"]);

async function withAddress(platform?: TestPlatform) {
  const owner = platform ?? (await newPlatform());
  const session = await newSession(owner, { ...SESSION_BODY, patient_address: ADDRESS });
  const counselor = await openSocket(session.counselor_token);
  const patient = await openSocket(session.patient_token);
  await counselor.waitFor("session_state");
  await patient.waitFor("session_state");
  return { platform: owner, session, counselor, patient };
}

describe("the address on file", () => {
  it("reaches counselors in session_state, psap_results and location_unavailable, and never the patient", async () => {
    const { platform, session, counselor, patient } = await withAddress();
    expect(counselor.all("session_state")[0]?.patient_address).toBe(ADDRESS);
    const trigger = await asCounselor(session, "/sos");
    await patient.waitFor("location_request");
    const located = await asPatient(session, "/sos/location", CHICAGO);
    const answer = await located.text();
    expect((await counselor.waitFor("psap_results")).patient_address).toBe(ADDRESS);
    await patient.waitFor("psap_results");
    await asPatient(session, "/sos/location", { unavailable: "position_unavailable" });
    expect((await counselor.waitFor("location_unavailable")).patient_address).toBe(ADDRESS);

    // The patient's view: no field at all, in any message or answer.
    for (const message of patient.received) expect(message).not.toHaveProperty("patient_address");
    const seenByPatient = [answer, await trigger.text(), ...patient.raw].join("\n");
    expect(seenByPatient).not.toContain("Harrison");
    // Nor the platform's session read, nor the audit trail.
    const read = await (await asPlatform(platform, sessionPath(session))).text();
    expect(read).not.toContain("Harrison");
    const events = await (await asPlatform(platform, sessionPath(session, "/events"))).text();
    expect(events).not.toContain("Harrison");
  });

  it("is null to counselors when the platform gave none", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    const counselor = await openSocket(session.counselor_token);
    expect((await counselor.waitFor("session_state")).patient_address).toBeNull();
    await asCounselor(session, "/sos");
    await asPatient(session, "/sos/location", { unavailable: "timeout" });
    expect((await counselor.waitFor("location_unavailable")).patient_address).toBeNull();
  });

  it("is kept through a cancel", async () => {
    const { session, counselor } = await withAddress();
    await asCounselor(session, "/sos");
    await asPatient(session, "/sos/location", CHICAGO);
    expect((await asCounselor(session, "/sos/cancel")).status).toBe(200);
    await counselor.waitFor("session_state", 3);
    expect(counselor.all("session_state").at(-1)).toMatchObject({
      state: "active",
      patient_address: ADDRESS,
    });
    const record = await storedRecord(session.session_id);
    expect(record?.patient_address).toBe(ADDRESS);
    expect(record?.location).toBeNull();
  });

  it("is erased when the session ends", async () => {
    const { platform, session, counselor } = await withAddress();
    await asCounselor(session, "/sos");
    await asPatient(session, "/sos/location", CHICAGO);
    await asPlatform(platform, sessionPath(session, "/end"), "POST");
    await counselor.waitFor("session_ended");
    expect(counselor.all("session_state").at(-1)).toMatchObject({ state: "ended", patient_address: null });
    const record = await storedRecord(session.session_id);
    expect(record?.patient_address).toBeNull();
    expect(JSON.stringify(record)).not.toContain("Harrison");
  });

  it("is erased when the session expires", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform, {
      ...SESSION_BODY,
      patient_address: ADDRESS,
      expires_in_minutes: 1,
    });
    const restore = shiftClock(61_000);
    try {
      await runDurableObjectAlarm(sessionStubOf(session.session_id));
    } finally {
      restore();
    }
    const record = await storedRecord(session.session_id);
    expect(record?.state).toBe("expired");
    expect(JSON.stringify(record)).not.toContain("Harrison");
  });

  it.each([
    ["an empty address", ""],
    ["an address over 500 characters", "x".repeat(501)],
    ["a number", 12],
    ["null", null],
  ])("refuses %s with 400", async (_name, patient_address) => {
    const platform = await newPlatform();
    const res = await postJson(
      `/v1/platforms/${platform.platform_id}/sessions`,
      { ...SESSION_BODY, patient_address },
      { "X-API-Key": platform.api_key },
    );
    expect(res.status).toBe(400);
    expect((await res.json<{ errors: { field: string }[] }>()).errors[0]?.field).toBe("patient_address");
  });

  it("accepts 500 characters", async () => {
    const platform = await newPlatform();
    await newSession(platform, { ...SESSION_BODY, patient_address: "y".repeat(500) });
  });
});

describe("Idempotency-Key with an address", () => {
  function create(platform: TestPlatform, body: Record<string, unknown>) {
    return postJson(`/v1/platforms/${platform.platform_id}/sessions`, body, {
      "X-API-Key": platform.api_key,
      "Idempotency-Key": "visit-address",
    });
  }

  it("replays the same body, refuses another address with 422, and keeps no copy of the address", async () => {
    const platform = await newPlatform();
    const body = { ...SESSION_BODY, patient_address: ADDRESS };
    const first = await create(platform, body);
    expect(first.status).toBe(201);
    const replay = await create(platform, body);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    const moved = await create(platform, { ...body, patient_address: "500 Elsewhere Rd" });
    expect(moved.status).toBe(422);
    const without = await create(platform, SESSION_BODY);
    expect(without.status).toBe(422);

    const idempotency = env.IDEMPOTENCY.get(
      env.IDEMPOTENCY.idFromName(`${platform.platform_id}\nvisit-address`),
    );
    const kept = await runInDurableObject(idempotency, async (_instance, state) =>
      JSON.stringify([...(await state.storage.list()).entries()]),
    );
    expect(kept).not.toContain("Harrison");
    expect(kept.length).toBeGreaterThan(10);
  });
});
