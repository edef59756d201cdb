// The location check (docs/contract.md, sections 3 to 6, "Location check"): opt-in per session, asked of the first
// patient socket, shown to counselors (patients get no location and no address), replaced by each new
// check, carried through an SOS until its own fix arrives, kept by a cancel, erased by the end and expiry,
// and told to the audit trail with its outcome, country and state only.
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { LocationCheckMessage, SessionCreateResponse, SessionView } from "../../sdk/src/protocol.ts";
import {
  asCounselor,
  asPatient,
  asPlatform,
  eventsWithoutTimes,
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

/** Hyde Park, Chicago: where the check finds the patient (its digits must never leak). */
const CHECK_FIX = { latitude: 41.79312, longitude: -87.59817, accuracy: 41 };
/** The SOS's own fix, later, in the Loop. */
const SOS_FIX = { latitude: 41.8819, longitude: -87.6278, accuracy: 25 };
/** Gary, Indiana: where a second check finds the patient. */
const GARY = { latitude: 41.6, longitude: -87.35, accuracy: 10 };
const ADDRESS = "5801 S Ellis Ave, Chicago, IL 60637";
const CHECK_DIGITS = ["41.793", "87.598", "41.79312", "-87.59817"];

beforeAll(async () => {
  await seedPsapIndex();
});
// Whatever happened in a test, no log line held the check's position or the address on file.
expectNeverLogged([...CHECK_DIGITS, "Ellis"]);

async function checkedSession(platform?: TestPlatform, extra: Record<string, unknown> = {}) {
  const owner = platform ?? (await newPlatform());
  const body = { ...SESSION_BODY, patient_address: ADDRESS, location_check: "at_start", ...extra };
  const session = await newSession(owner, body);
  return { platform: owner, session };
}

async function read(platform: TestPlatform, session: SessionCreateResponse): Promise<SessionView> {
  return (await asPlatform(platform, sessionPath(session))).json<SessionView>();
}

async function events(platform: TestPlatform, session: SessionCreateResponse) {
  const res = await asPlatform(platform, sessionPath(session, "/events"));
  return (await res.json<{ events: { type: string; actor: string; data?: Record<string, unknown> }[] }>())
    .events;
}

/** The counselor's copy of a check with a fix (narrowed for the test). */
function located(message: LocationCheckMessage) {
  if (message.outcome !== "located") throw new Error(`expected a located check, got ${message.outcome}`);
  return message;
}

describe("a session created with location_check: at_start", () => {
  it("asks the first patient socket for a check; counselors get the PSAPs with where and when, patients without where", async () => {
    const { platform, session } = await checkedSession();
    expect(await read(platform, session)).toMatchObject({
      location_check: "at_start",
      location_checked_at: null,
    });
    const counselor = await openSocket(session.counselor_token);
    await counselor.waitFor("session_state");
    const patient = await openSocket(session.patient_token);
    const request = await patient.waitFor("location_request");
    expect(request).toMatchObject({ session_id: session.session_id, purpose: "check" });
    expect(patient.received.map((m) => m.type)).toEqual(["session_state", "location_request"]);

    const res = await asPatient(session, "/location-check", CHECK_FIX);
    expect(res.status).toBe(200);
    const body = await res.json<Record<string, unknown> & { result_id: string; psaps: { id: string }[] }>();
    expect(Object.keys(body).sort()).toEqual([
      "area",
      "computed_at",
      "data_version",
      "emergency",
      "psaps",
      "result_id",
    ]);
    expect(body.psaps[0]?.id).toBe("T1");
    // The test index has no county shapes: the country library says where (the US; no state from it).
    const area = body.area as { country: string | null; state: string | null };
    expect(area.country).toBe("US");

    const told = located(await counselor.waitFor("location_check"));
    expect(told).toMatchObject({
      session_id: session.session_id,
      outcome: "located",
      result_id: body.result_id,
      psaps: body.psaps,
      area: body.area,
      emergency: body.emergency,
      computed_at: body.computed_at,
      data_version: body.data_version,
      location: CHECK_FIX,
      patient_address: ADDRESS,
    });
    expect(told.checked_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const toPatient = located(await patient.waitFor("location_check"));
    expect(toPatient).not.toHaveProperty("location");
    expect(toPatient).not.toHaveProperty("patient_address");
    expect(toPatient).toMatchObject({
      outcome: "located",
      result_id: body.result_id,
      checked_at: told.checked_at,
    });
    // A check is not an SOS result: no psap_results, and the session stays active.
    expect(counselor.all("psap_results")).toHaveLength(0);
    expect(await read(platform, session)).toMatchObject({
      state: "active",
      location_checked_at: told.checked_at,
    });

    const trail = await events(platform, session);
    expect(trail.find((e) => e.type === "location_requested")).toMatchObject({
      actor: "system",
      data: { on_connect: true, purpose: "check" },
    });
    expect(trail.filter((e) => e.type === "location_checked")).toEqual([
      expect.objectContaining({
        actor: "patient",
        data: { outcome: "located", country: area.country, state: area.state },
      }),
    ]);
    expect(trail.map((e) => e.type)).not.toContain("psaps_delivered");
    expect(trail.map((e) => e.type)).not.toContain("location_received");
  });

  it("asks each patient socket that connects while no check is recorded, and none after", async () => {
    const { session } = await checkedSession();
    const first = await openSocket(session.patient_token);
    await first.waitFor("location_request");
    // A second tab before any check came: asked too (whichever answers first is recorded).
    const second = await openSocket(session.patient_token);
    expect((await second.waitFor("location_request")).purpose).toBe("check");
    expect((await asPatient(session, "/location-check", CHECK_FIX)).status).toBe(200);
    await first.waitFor("location_check");
    const third = await openSocket(session.patient_token);
    await third.waitFor("session_state");
    // A counselor connecting now gets the latest check in its greeting.
    const counselor = await openSocket(session.counselor_token);
    await counselor.waitFor("location_check");
    expect(third.all("location_request")).toHaveLength(0);
    expect(third.all("location_check")).toHaveLength(0);
    expect(counselor.received.map((m) => m.type)).toEqual(["session_state", "location_check"]);
  });

  it("takes an unavailable report: counselors get its reason and no PSAPs, patients nothing, and no new request", async () => {
    const { platform, session } = await checkedSession();
    const counselor = await openSocket(session.counselor_token);
    const patient = await openSocket(session.patient_token);
    await patient.waitFor("location_request");
    const res = await asPatient(session, "/location-check", { unavailable: "permission_denied" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true });
    const told = await counselor.waitFor("location_check");
    expect(told).toEqual({
      type: "location_check",
      session_id: session.session_id,
      checked_at: expect.stringMatching(/Z$/),
      outcome: "permission_denied",
      patient_address: ADDRESS,
    });
    const again = await openSocket(session.patient_token);
    await again.waitFor("session_state");
    expect(again.all("location_request")).toHaveLength(0);
    expect(patient.all("location_check")).toHaveLength(0);
    const checked = (await events(platform, session)).filter((e) => e.type === "location_checked");
    expect(checked.map((e) => e.data)).toEqual([
      { outcome: "permission_denied", country: null, state: null },
    ]);
  });

  it("replaces the previous check with each new one", async () => {
    const { session } = await checkedSession();
    const counselor = await openSocket(session.counselor_token);
    await asPatient(session, "/location-check", CHECK_FIX);
    await asPatient(session, "/location-check", GARY);
    expect(located(await counselor.waitFor("location_check", 2)).location).toEqual(GARY);
    const later = await openSocket(session.counselor_token);
    expect(located(await later.waitFor("location_check")).location).toEqual(GARY);
    expect(later.all("location_check")).toHaveLength(1);
    await asPatient(session, "/location-check", { unavailable: "timeout" });
    const last = await openSocket(session.counselor_token);
    expect((await last.waitFor("location_check")).outcome).toBe("timeout");
    expect(JSON.stringify(last.received)).not.toContain("87.35");
    expect((await storedRecord(session.session_id))?.check).toMatchObject({
      outcome: "timeout",
      location: null,
    });
  });

  it("takes a check during an SOS too, without answering the SOS", async () => {
    const { session } = await checkedSession();
    const counselor = await openSocket(session.counselor_token);
    const patient = await openSocket(session.patient_token);
    await patient.waitFor("location_request");
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    expect((await patient.waitFor("location_request", 2)).purpose).toBe("sos");
    expect((await asPatient(session, "/location-check", CHECK_FIX)).status).toBe(200);
    expect(located(await counselor.waitFor("location_check")).location).toEqual(CHECK_FIX);
    const record = await storedRecord(session.session_id);
    expect(record).toMatchObject({ state: "sos", location: null, latest_result: null });
    expect(record?.location_deadline_at).not.toBeNull();
    expect(counselor.all("psap_results")).toHaveLength(0);
  });

  it("keeps the setting and the check through an eviction of the session object", async () => {
    const { session } = await checkedSession();
    const stub = sessionStubOf(session.session_id);
    await evictDurableObject(stub);
    const patient = await openSocket(session.patient_token);
    expect((await patient.waitFor("location_request")).purpose).toBe("check");
    expect((await asPatient(session, "/location-check", CHECK_FIX)).status).toBe(200);
    await evictDurableObject(stub);
    const counselor = await openSocket(session.counselor_token);
    expect(located(await counselor.waitFor("location_check")).location).toEqual(CHECK_FIX);
    const again = await openSocket(session.patient_token);
    await again.waitFor("session_state");
    expect(again.all("location_request")).toHaveLength(0);
  });

  it("asks a patient who first connects during an SOS for the SOS's fix only", async () => {
    const { session } = await checkedSession();
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    const patient = await openSocket(session.patient_token);
    expect((await patient.waitFor("location_request")).purpose).toBe("sos");
    expect(patient.all("location_request")).toHaveLength(1);
  });
});

describe("a session created without the check", () => {
  it("shows location_check off, asks the patient for nothing, and refuses a check with 409 location_check_off", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform, { ...SESSION_BODY, location_check: "off" });
    const plain = await newSession(platform);
    expect(await read(platform, session)).toMatchObject({ location_check: "off", location_checked_at: null });
    expect(await read(platform, plain)).toMatchObject({ location_check: "off" });
    const patient = await openSocket(plain.patient_token);
    await patient.waitFor("session_state");
    const res = await asPatient(plain, "/location-check", CHECK_FIX);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: "location_check_off", status: 409 });
    expect(patient.all("location_request")).toHaveLength(0);
    // The SOS's request says what it is for.
    expect((await asCounselor(plain, "/sos")).status).toBe(202);
    expect((await patient.waitFor("location_request")).purpose).toBe("sos");
  });

  it.each([
    ["a string other than off and at_start", "always"],
    ["a boolean", true],
    ["null", null],
  ])("refuses %s for location_check with 400", async (_name, value) => {
    const platform = await newPlatform();
    const res = await asPlatformPost(platform, { ...SESSION_BODY, location_check: value });
    expect(res.status).toBe(400);
    expect((await res.json<{ errors: { field: string }[] }>()).errors[0]?.field).toBe("location_check");
  });
});

function asPlatformPost(platform: TestPlatform, body: unknown): Promise<Response> {
  return postJson(`/v1/platforms/${platform.platform_id}/sessions`, body, { "X-API-Key": platform.api_key });
}

describe("the check during an SOS", () => {
  it("goes to counselors who connect until the SOS's own fix arrives; then the SOS's results do", async () => {
    const { session } = await checkedSession();
    await asPatient(session, "/location-check", CHECK_FIX);
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    const waiting = await openSocket(session.counselor_token);
    const check = located(await waiting.waitFor("location_check"));
    expect(check).toMatchObject({ location: CHECK_FIX, patient_address: ADDRESS });
    expect(waiting.received.map((m) => m.type)).toEqual(["session_state", "location_check"]);

    const res = await asPatient(session, "/sos/location", SOS_FIX);
    expect(res.status).toBe(200);
    const after = await openSocket(session.counselor_token);
    expect((await after.waitFor("psap_results")).location).toEqual(SOS_FIX);
    expect(after.received.map((m) => m.type)).toEqual(["session_state", "psap_results"]);
  });

  it("rides on every location_unavailable as last_check, or null when there is none", async () => {
    const { session } = await checkedSession();
    const counselor = await openSocket(session.counselor_token);
    await asPatient(session, "/location-check", CHECK_FIX);
    const check = await counselor.waitFor("location_check");
    await asCounselor(session, "/sos");
    await asPatient(session, "/sos/location", { unavailable: "permission_denied" });
    const refused = await counselor.waitFor("location_unavailable");
    const { type: _type, session_id: _sid, ...expected } = check;
    expect(refused).toMatchObject({ reason: "permission_denied", patient_address: ADDRESS });
    expect(refused.last_check).toEqual(expected);

    // The 30 s clock of a fresh trigger: the same check rides along.
    await asCounselor(session, "/sos");
    const restore = shiftClock(31_000);
    try {
      await runDurableObjectAlarm(sessionStubOf(session.session_id));
    } finally {
      restore();
    }
    const timedOut = await counselor.waitFor("location_unavailable", 2);
    expect(timedOut.reason).toBe("timeout");
    expect(timedOut.last_check).toEqual(expected);

    const platform = await newPlatform();
    const without = await newSession(platform);
    const theirs = await openSocket(without.counselor_token);
    await asCounselor(without, "/sos");
    await asPatient(without, "/sos/location", { unavailable: "timeout" });
    expect((await theirs.waitFor("location_unavailable")).last_check).toBeNull();
  });

  it("is kept by a cancel, and erased with the SOS location by the end, keeping only when it came", async () => {
    const { platform, session } = await checkedSession();
    await asPatient(session, "/location-check", CHECK_FIX);
    await asCounselor(session, "/sos");
    await asPatient(session, "/sos/location", SOS_FIX);
    expect((await asCounselor(session, "/sos/cancel")).status).toBe(200);
    const afterCancel = await storedRecord(session.session_id);
    expect(afterCancel?.location).toBeNull();
    expect(afterCancel?.check).toMatchObject({ outcome: "located", location: { ...CHECK_FIX } });
    const counselor = await openSocket(session.counselor_token);
    expect(located(await counselor.waitFor("location_check")).location).toEqual(CHECK_FIX);

    const checkedAt = (await read(platform, session)).location_checked_at;
    expect(checkedAt).not.toBeNull();
    expect((await asPlatform(platform, sessionPath(session, "/end"), "POST")).status).toBe(200);
    const record = await storedRecord(session.session_id);
    expect(record?.check).toBeNull();
    const kept = JSON.stringify(record);
    for (const secret of [...CHECK_DIGITS, "41.8819", "Ellis"]) expect(kept).not.toContain(secret);
    expect(await read(platform, session)).toMatchObject({ state: "ended", location_checked_at: checkedAt });
  });

  it("is erased when the session expires", async () => {
    const { session } = await checkedSession(undefined, { expires_in_minutes: 1 });
    await asPatient(session, "/location-check", CHECK_FIX);
    const restore = shiftClock(61_000);
    try {
      await runDurableObjectAlarm(sessionStubOf(session.session_id));
    } finally {
      restore();
    }
    const record = await storedRecord(session.session_id);
    expect(record?.state).toBe("expired");
    expect(record?.check).toBeNull();
    for (const secret of CHECK_DIGITS) expect(JSON.stringify(record)).not.toContain(secret);
  });
});

describe("privacy", () => {
  it("keeps the check's position and the address out of the audit trail, the patient's messages and the platform's read", async () => {
    const { platform, session } = await checkedSession();
    const patient = await openSocket(session.patient_token);
    await patient.waitFor("location_request");
    const answer = await (await asPatient(session, "/location-check", CHECK_FIX)).text();
    await patient.waitFor("location_check");
    await asPatient(session, "/location-check", { unavailable: "position_unavailable" });
    await asCounselor(session, "/sos");
    await asPatient(session, "/sos/location", { unavailable: "timeout" });
    // A refused body never echoes the position it was sent with.
    const refused = await (await asPatient(session, "/location-check", { ...CHECK_FIX, altitude: 3 })).text();
    await asPlatform(platform, sessionPath(session, "/end"), "POST");

    const trail = eventsWithoutTimes(await events(platform, session));
    const platformRead = JSON.stringify(await read(platform, session));
    const patientSaw = [answer, ...patient.raw].join("\n");
    for (const text of [trail, platformRead, refused, patientSaw]) {
      for (const secret of [...CHECK_DIGITS, "Ellis", "60637"]) expect(text).not.toContain(secret);
    }
    for (const text of [trail, platformRead, refused]) {
      expect(text).not.toMatch(/latitude|longitude/);
    }
    expect(patientSaw).not.toContain("patient_address");
  });
});
