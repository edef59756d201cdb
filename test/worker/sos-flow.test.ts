// The SOS flow over real sockets: trigger, location request, lookup, results to both, and everything around it.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  asCounselor,
  asPatient,
  asPlatform,
  eventsWithoutTimes,
  newPlatform,
  newSession,
  openSocket,
  SESSION_BODY,
  seedPsapIndex,
  sessionPath,
  sessionStubOf,
  shiftClock,
  storedRecord,
  type TestPlatform,
} from "./helpers.ts";

const CHICAGO_LOOP = { latitude: 41.8819, longitude: -87.6278, accuracy: 25 };

beforeAll(async () => {
  await seedPsapIndex();
});

async function liveSession(platform?: TestPlatform, body: Record<string, unknown> = SESSION_BODY) {
  const owner = platform ?? (await newPlatform());
  const session = await newSession(owner, body);
  const counselor = await openSocket(session.counselor_token);
  const patient = await openSocket(session.patient_token);
  await counselor.waitFor("session_state");
  await patient.waitFor("session_state");
  return { platform: owner, session, counselor, patient };
}

describe("the SOS flow", () => {
  it("delivers the nearest PSAPs to both sides after the counselor's trigger and the patient's fix", async () => {
    const { session, counselor, patient } = await liveSession();
    expect(counselor.all("session_state")[0]).toMatchObject({ role: "counselor", state: "active" });

    const trigger = await asCounselor(session, "/sos");
    expect(trigger.status).toBe(202);
    const triggered = await trigger.json<Record<string, unknown>>();
    expect(triggered).toMatchObject({
      session_id: session.session_id,
      state: "sos",
      patient_connected: true,
    });
    expect(triggered.sos_started_at).toMatch(/Z$/);

    const request = await patient.waitFor("location_request");
    expect(request.session_id).toBe(session.session_id);
    await counselor.waitFor("session_state", 2);
    expect(counselor.all("session_state")[1]?.state).toBe("sos");

    const located = await asPatient(session, "/sos/location", CHICAGO_LOOP);
    expect(located.status).toBe(200);
    const body = await located.json<{
      result_id: string;
      psaps: { id: string; match: string }[];
      data_version: string;
    }>();
    expect(body.psaps[0]?.id).toBe("T1");
    expect(body.data_version).toBe("test-data");
    expect(body).not.toHaveProperty("location");

    const toCounselor = await counselor.waitFor("psap_results");
    expect(toCounselor.result_id).toBe(body.result_id);
    expect(toCounselor.psaps).toEqual(body.psaps);
    expect(toCounselor.location).toEqual(CHICAGO_LOOP);
    const toPatient = await patient.waitFor("psap_results");
    expect(toPatient.result_id).toBe(body.result_id);
    expect(toPatient).not.toHaveProperty("location");
    expect(JSON.stringify(toPatient)).not.toContain("41.8819");
  });

  it("orders primaries before secondaries and gives distances to one decimal", async () => {
    const { session } = await liveSession();
    await asCounselor(session, "/sos");
    const res = await asPatient(session, "/sos/location", { latitude: 42.04, longitude: -87.69 });
    const { psaps } = await res.json<{ psaps: { id: string; type: string; distance_km: number }[] }>();
    expect(psaps.map((p) => p.id)).toEqual(["T1", "T3", "T2"]);
    for (const psap of psaps) expect(Math.round(psap.distance_km * 10) / 10).toBe(psap.distance_km);
  });

  it("answers outside_coverage with no records far from every PSAP", async () => {
    const { session } = await liveSession();
    await asCounselor(session, "/sos");
    const res = await asPatient(session, "/sos/location", { latitude: -30, longitude: -140 });
    expect(await res.json()).toMatchObject({ psaps: [], reason: "outside_coverage" });
  });

  it("sends a fresh location request on a repeated trigger, answered 200", async () => {
    const { session, patient } = await liveSession();
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    await patient.waitFor("location_request");
    const again = await asCounselor(session, "/sos");
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ state: "sos" });
    await patient.waitFor("location_request", 2);
  });

  it("asks the patient's socket for its fix first, before the new session_state", async () => {
    const { session, patient, counselor } = await liveSession();
    await asCounselor(session, "/sos");
    await patient.waitFor("session_state", 2);
    await patient.waitFor("location_request");
    await counselor.waitFor("session_state", 2);
    expect(patient.received.map((m) => m.type)).toEqual([
      "session_state",
      "location_request",
      "session_state",
    ]);
    expect(patient.all("session_state")[1]?.state).toBe("sos");
  });

  it("gives a patient who connects after the trigger the location request", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    const trigger = await asCounselor(session, "/sos");
    expect(await trigger.json()).toMatchObject({ patient_connected: false });
    const patient = await openSocket(session.patient_token);
    await patient.waitFor("location_request");
    expect(patient.all("session_state")[0]?.state).toBe("sos");
  });

  it("gives a counselor who connects later the latest results, with the location", async () => {
    const { session } = await liveSession();
    await asCounselor(session, "/sos");
    const located = await (await asPatient(session, "/sos/location", CHICAGO_LOOP)).json<{
      result_id: string;
    }>();
    const late = await openSocket(session.counselor_token);
    const results = await late.waitFor("psap_results");
    expect(results.result_id).toBe(located.result_id);
    expect(results.location).toEqual(CHICAGO_LOOP);
  });

  it("runs the lookup again when the patient moves", async () => {
    const { session, counselor } = await liveSession();
    await asCounselor(session, "/sos");
    const first = await (await asPatient(session, "/sos/location", CHICAGO_LOOP)).json<{
      result_id: string;
    }>();
    const moved = { latitude: 41.6, longitude: -87.35, accuracy: 10 };
    const second = await (await asPatient(session, "/sos/location", moved)).json<{
      result_id: string;
      psaps: { id: string }[];
    }>();
    expect(second.result_id).not.toBe(first.result_id);
    expect(second.psaps[0]?.id).toBe("T3");
    const latest = await counselor.waitFor("psap_results", 2);
    expect(latest.location).toEqual(moved);
  });

  it("delivers every message to every tab of each role", async () => {
    const { session, counselor, patient } = await liveSession();
    const counselor2 = await openSocket(session.counselor_token);
    const patient2 = await openSocket(session.patient_token);
    await asCounselor(session, "/sos");
    await patient.waitFor("location_request");
    await patient2.waitFor("location_request");
    await asPatient(session, "/sos/location", CHICAGO_LOOP);
    for (const socket of [counselor, counselor2, patient, patient2]) await socket.waitFor("psap_results");
  });

  it("tells the counselor when the patient cannot give a fix", async () => {
    const { session, counselor } = await liveSession();
    await asCounselor(session, "/sos");
    const res = await asPatient(session, "/sos/location", { unavailable: "permission_denied" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true });
    const message = await counselor.waitFor("location_unavailable");
    expect(message).toMatchObject({ session_id: session.session_id, reason: "permission_denied" });
  });

  it("answers ping with pong", async () => {
    const { patient } = await liveSession();
    patient.ws.send("ping");
    await patient.waitForRaw("pong");
  });

  it("answers an unusable frame with an error message", async () => {
    const { counselor } = await liveSession();
    counselor.ws.send("{not json");
    const error = await counselor.waitFor("error");
    expect(error.code).toBeTruthy();
  });
});

describe("nothing is lost when the session object is evicted", () => {
  it("after the trigger: the fix still reaches both open sockets", async () => {
    const { session, counselor, patient } = await liveSession();
    await asCounselor(session, "/sos");
    await patient.waitFor("location_request");
    await evictDurableObject(sessionStubOf(session.session_id));
    const res = await asPatient(session, "/sos/location", CHICAGO_LOOP);
    expect(res.status).toBe(200);
    await counselor.waitFor("psap_results");
    await patient.waitFor("psap_results");
    patient.ws.send("ping");
    await patient.waitForRaw("pong");
  });

  it("after the location: late sockets get the results and old ones hear the end", async () => {
    const { platform, session, counselor, patient } = await liveSession();
    await asCounselor(session, "/sos");
    const located = await (await asPatient(session, "/sos/location", CHICAGO_LOOP)).json<{
      result_id: string;
    }>();
    await evictDurableObject(sessionStubOf(session.session_id));
    const late = await openSocket(session.counselor_token);
    expect((await late.waitFor("psap_results")).result_id).toBe(located.result_id);
    const read = await (await asPlatform(platform, sessionPath(session))).json<{
      state: string;
      patient_connected: boolean;
    }>();
    expect(read).toMatchObject({ state: "sos", patient_connected: true });
    await asPlatform(platform, sessionPath(session, "/end"), "POST");
    for (const socket of [counselor, patient, late]) {
      expect((await socket.waitFor("session_ended")).reason).toBe("ended");
      expect(await socket.waitForClose()).toBe(4000);
    }
  });
});

describe("cancel, end and expiry", () => {
  it("cancels an SOS back to active, erases the location and extends the expiry to at least 10 minutes", async () => {
    const { session, counselor, patient } = await liveSession(undefined, {
      ...SESSION_BODY,
      expires_in_minutes: 1,
    });
    await asCounselor(session, "/sos");
    await asPatient(session, "/sos/location", CHICAGO_LOOP);
    const res = await asCounselor(session, "/sos/cancel");
    expect(res.status).toBe(200);
    const body = await res.json<{ state: string; expires_at: string }>();
    expect(body.state).toBe("active");
    expect(Date.parse(body.expires_at)).toBeGreaterThanOrEqual(Date.now() + 9.9 * 60_000);
    await counselor.waitFor("session_state", 3);
    expect(counselor.all("session_state").at(-1)?.state).toBe("active");
    await patient.waitFor("session_state", 3);
    const stored = await storedRecord(session.session_id);
    expect(stored?.location).toBeNull();
    expect(stored?.latest_result).toBeNull();
  });

  it("refuses cancel and location outside an SOS with 409 not_in_sos", async () => {
    const { session } = await liveSession();
    const cancel = await asCounselor(session, "/sos/cancel");
    expect(cancel.status).toBe(409);
    expect((await cancel.json<{ code: string }>()).code).toBe("not_in_sos");
    const location = await asPatient(session, "/sos/location", CHICAGO_LOOP);
    expect(location.status).toBe(409);
  });

  it("closes every socket with 4000 on end and erases the location at once", async () => {
    const { platform, session, counselor, patient } = await liveSession();
    await asCounselor(session, "/sos");
    await asPatient(session, "/sos/location", CHICAGO_LOOP);
    expect((await asPlatform(platform, sessionPath(session, "/end"), "POST")).status).toBe(200);
    expect(await counselor.waitForClose()).toBe(4000);
    expect(await patient.waitForClose()).toBe(4000);
    expect(counselor.all("session_ended")[0]?.reason).toBe("ended");
    expect(counselor.all("session_state").at(-1)?.state).toBe("ended");
    expect(patient.all("session_state").at(-1)?.state).toBe("ended");
    const stored = await storedRecord(session.session_id);
    expect(stored?.state).toBe("ended");
    expect(stored?.location).toBeNull();
    expect(stored?.latest_result).toBeNull();
  });

  it("expires an active session at expires_at through its alarm", async () => {
    const { platform, session, counselor, patient } = await liveSession(undefined, {
      ...SESSION_BODY,
      expires_in_minutes: 1,
    });
    const restore = shiftClock(61_000);
    try {
      expect(await runDurableObjectAlarm(sessionStubOf(session.session_id))).toBe(true);
    } finally {
      restore();
    }
    expect(await counselor.waitForClose()).toBe(4000);
    expect(await patient.waitForClose()).toBe(4000);
    expect(patient.all("session_ended")[0]?.reason).toBe("expired");
    expect(patient.all("session_state").at(-1)?.state).toBe("expired");
    const read = await (await asPlatform(platform, sessionPath(session))).json<{ state: string }>();
    expect(read.state).toBe("expired");
    const trigger = await asCounselor(session, "/sos");
    expect(trigger.status).toBe(410);
    expect((await trigger.json<{ code: string }>()).code).toBe("session_expired");
    const end = await asPlatform(platform, sessionPath(session, "/end"), "POST");
    expect(end.status).toBe(410);
    const events = await (await asPlatform(platform, sessionPath(session, "/events"))).json<{
      events: { type: string }[];
    }>();
    expect(events.events.map((e) => e.type)).toContain("session_expired");
  });

  it("does not expire a session in SOS at expires_at, only 24 hours after the SOS started", async () => {
    const { platform, session } = await liveSession(undefined, { ...SESSION_BODY, expires_in_minutes: 1 });
    await asCounselor(session, "/sos");
    const stub = sessionStubOf(session.session_id);
    let restore = shiftClock(2 * 3600_000);
    try {
      await runDurableObjectAlarm(stub);
      const read = await (await asPlatform(platform, sessionPath(session))).json<{ state: string }>();
      expect(read.state).toBe("sos");
    } finally {
      restore();
    }
    restore = shiftClock(24 * 3600_000 + 5_000);
    try {
      await runDurableObjectAlarm(stub);
      const read = await (await asPlatform(platform, sessionPath(session))).json<{ state: string }>();
      expect(read.state).toBe("expired");
    } finally {
      restore();
    }
  });

  it("tells counselors after 30 s without a fix that none is coming", async () => {
    const { session, counselor } = await liveSession();
    await asCounselor(session, "/sos");
    const restore = shiftClock(31_000);
    try {
      await runDurableObjectAlarm(sessionStubOf(session.session_id));
    } finally {
      restore();
    }
    const message = await counselor.waitFor("location_unavailable");
    expect(message.reason).toBe("timeout");
  });

  it("stops the 30 s clock once a fix arrives", async () => {
    const { session, counselor } = await liveSession();
    await asCounselor(session, "/sos");
    await asPatient(session, "/sos/location", CHICAGO_LOOP);
    const stub = sessionStubOf(session.session_id);
    const restore = shiftClock(31_000);
    try {
      // The alarm is left at the 30 s mark (moving it later can wait): it fires and finds nothing due.
      expect(await runDurableObjectAlarm(stub)).toBe(true);
    } finally {
      restore();
    }
    await counselor.waitFor("psap_results");
    expect(counselor.all("location_unavailable")).toHaveLength(0);
    // Then the alarm is the SOS's own end, 24 h after it started, and the SOS goes on.
    const record = await storedRecord(session.session_id);
    expect(record?.state).toBe("sos");
    const alarmAt = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    expect(alarmAt).toBe((record?.sos_started_at ?? 0) + 24 * 3600_000);
  });

  it("purges the audit trail 30 days after the session ended", async () => {
    const { platform, session } = await liveSession();
    await asPlatform(platform, sessionPath(session, "/end"), "POST");
    const restore = shiftClock(30 * 24 * 3600_000 + 60_000);
    try {
      await runDurableObjectAlarm(sessionStubOf(session.session_id));
      const read = await asPlatform(platform, sessionPath(session, "/events"));
      expect(read.status).toBe(404);
    } finally {
      restore();
    }
  });
});

describe("location bodies", () => {
  it.each([
    ["a latitude over 90", { latitude: 90.5, longitude: 0 }, "invalid_request"],
    ["a longitude under -180", { latitude: 0, longitude: -181 }, "invalid_request"],
    ["a string latitude", { latitude: "41.8", longitude: -87.6 }, "invalid_request"],
    ["a missing longitude", { latitude: 41.8 }, "invalid_request"],
    ["a negative accuracy", { ...CHICAGO_LOOP, accuracy: -1 }, "invalid_request"],
    ["an accuracy over 100 km", { ...CHICAGO_LOOP, accuracy: 100_001 }, "invalid_request"],
    ["an unknown field", { ...CHICAGO_LOOP, altitude: 12 }, "unknown_field"],
    ["an unknown unavailable reason", { unavailable: "airplane_mode" }, "invalid_request"],
  ])("refuses %s with 400", async (_name, body, code) => {
    const { session } = await liveSession();
    await asCounselor(session, "/sos");
    const res = await asPatient(session, "/sos/location", body);
    expect(res.status).toBe(400);
    expect((await res.json<{ code: string }>()).code).toBe(code);
  });

  it("tells a missing field from one of the wrong type, and a fix sent with `unavailable`, never echoing a value", async () => {
    const { session } = await liveSession();
    await asCounselor(session, "/sos");
    const errorsOf = async (body: unknown) => {
      const res = await asPatient(session, "/sos/location", body);
      expect(res.status).toBe(400);
      const problem = await res.json<{
        code: string;
        detail: string;
        errors: { field: string; message: string }[];
      }>();
      expect(JSON.stringify(problem)).not.toMatch(/41\.87|87\.62/);
      return problem;
    };
    expect((await errorsOf({ latitude: 41.87 })).errors).toEqual([
      { field: "longitude", message: "is required" },
    ]);
    const wrongType = await errorsOf({ latitude: "41.87", longitude: -87.62 });
    expect(wrongType.errors).toEqual([
      { field: "latitude", message: expect.stringMatching(/expected number, received string/) },
    ]);
    const both = await errorsOf({ latitude: 41.87, longitude: -87.62, unavailable: "timeout" });
    expect(both.code).toBe("invalid_request");
    expect(both.errors).toEqual([
      { field: "unavailable", message: "is sent instead of a fix, not with one" },
    ]);
  });

  it("reports a session that is over before a bad body", async () => {
    const { platform, session } = await liveSession();
    await asCounselor(session, "/sos");
    await asPlatform(platform, sessionPath(session, "/end"), "POST");
    const res = await asPatient(session, "/sos/location", { latitude: 500 });
    expect(res.status).toBe(410);
  });
});

describe("the audit trail", () => {
  it("records the whole flow in order and never a coordinate", async () => {
    const { platform, session, patient } = await liveSession();
    await asCounselor(session, "/sos");
    await patient.waitFor("location_request");
    const located = await (await asPatient(session, "/sos/location", CHICAGO_LOOP)).json<{
      psaps: { id: string }[];
    }>();
    await asCounselor(session, "/sos/cancel");
    await asPlatform(platform, sessionPath(session, "/end"), "POST");
    const res = await asPlatform(platform, sessionPath(session, "/events"));
    const { events } = await res.json<{ events: { type: string; data?: Record<string, unknown> }[] }>();
    // Sockets close after the end call, so their disconnect events may come in either order around it.
    expect(events.map((e) => e.type).filter((type) => type !== "socket_disconnected")).toEqual([
      "session_created",
      "socket_connected",
      "socket_connected",
      "sos_triggered",
      "location_requested",
      "location_received",
      "psaps_delivered",
      "sos_cancelled",
      "session_ended",
    ]);
    const delivered = events.find((e) => e.type === "psaps_delivered");
    expect(delivered?.data?.psap_ids).toEqual(located.psaps.map((p) => p.id));
    const text = eventsWithoutTimes(events);
    expect(text).not.toContain("41.88");
    expect(text).not.toContain("-87.62");
  });
});
