import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  asCounselor,
  asPatient,
  asPlatform,
  newPlatform,
  newSession,
  openSocket,
  replaceObjectIndex,
  seedPsapIndex,
  sessionPath,
  storedRecord,
} from "./helpers.ts";

const CHICAGO = { latitude: 41.8819, longitude: -87.6278, accuracy: 25 };
const GARY = { latitude: 41.6, longitude: -87.35, accuracy: 10 };

const undo: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const restore of undo.splice(0)) await restore();
});

beforeAll(async () => {
  await seedPsapIndex();
});

/** Holds every index read of the session object until `release()`: a cold KV read that takes its time. */
async function slowIndex(sessionId: string) {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reads = 0;
  undo.push(
    await replaceObjectIndex(sessionId, (kv) => ({
      get: (async (key: string, type: "text" | "arrayBuffer") => {
        reads++;
        await released;
        return type === "text" ? kv.get(key, "text") : kv.get(key, "arrayBuffer");
      }) as KVNamespace["get"],
    })),
  );
  const waitForRead = async () => {
    for (let i = 0; i < 200 && reads === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(reads, "the lookup never read the index").toBeGreaterThan(0);
  };
  return { release, waitForRead };
}

async function liveSos() {
  const platform = await newPlatform();
  const session = await newSession(platform);
  const counselor = await openSocket(session.counselor_token);
  const patient = await openSocket(session.patient_token);
  expect((await asCounselor(session, "/sos")).status).toBe(202);
  await patient.waitFor("location_request");
  return { platform, session, counselor, patient };
}

describe("a lookup in flight", () => {
  it("delivers nothing into a new SOS after a cancel and a fresh trigger", async () => {
    const { session, counselor, patient } = await liveSos();
    const slow = await slowIndex(session.session_id);
    const located = asPatient(session, "/sos/location", CHICAGO);
    await slow.waitForRead();
    expect((await asCounselor(session, "/sos/cancel")).status).toBe(200);
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    slow.release();
    const res = await located;
    expect(res.status).toBe(409);
    expect((await res.json<{ code: string }>()).code).toBe("not_in_sos");
    // Give a late delivery the chance to show up, then check none did.
    await patient.waitFor("location_request", 2);
    await new Promise((r) => setTimeout(r, 100));
    expect(counselor.all("psap_results")).toHaveLength(0);
    expect(patient.all("psap_results")).toHaveLength(0);
    const record = await storedRecord(session.session_id);
    expect(record?.state).toBe("sos");
    expect(record?.latest_result).toBeNull();
    expect(record?.location).toBeNull();
    // The new SOS still waits for a fix: its 30 s clock runs.
    expect(record?.location_deadline_at).not.toBeNull();
  });

  it("delivers nothing after a cancel", async () => {
    const { session, counselor } = await liveSos();
    const slow = await slowIndex(session.session_id);
    const located = asPatient(session, "/sos/location", CHICAGO);
    await slow.waitForRead();
    expect((await asCounselor(session, "/sos/cancel")).status).toBe(200);
    slow.release();
    expect((await located).status).toBe(409);
    expect(counselor.all("psap_results")).toHaveLength(0);
    expect((await storedRecord(session.session_id))?.location).toBeNull();
  });

  it("delivers nothing after the end, and answers 410", async () => {
    const { platform, session, counselor } = await liveSos();
    const slow = await slowIndex(session.session_id);
    const located = asPatient(session, "/sos/location", CHICAGO);
    await slow.waitForRead();
    expect((await asPlatform(platform, sessionPath(session, "/end"), "POST")).status).toBe(200);
    slow.release();
    const res = await located;
    expect(res.status).toBe(410);
    expect(counselor.all("psap_results")).toHaveLength(0);
    const record = await storedRecord(session.session_id);
    expect(record?.location).toBeNull();
    expect(record?.latest_result).toBeNull();
  });

  it("never lets an older fix's result replace a newer one", async () => {
    const { session, counselor } = await liveSos();
    const slow = await slowIndex(session.session_id);
    const first = asPatient(session, "/sos/location", CHICAGO);
    await slow.waitForRead();
    const undoSlow = undo.pop();
    await undoSlow?.();
    const moved = await asPatient(session, "/sos/location", GARY);
    expect(moved.status).toBe(200);
    const newer = await moved.json<{ result_id: string }>();
    slow.release();
    const older = await first;
    expect(older.status).toBe(200);
    const delivered = await counselor.waitFor("psap_results");
    expect(delivered.result_id).toBe(newer.result_id);
    await new Promise((r) => setTimeout(r, 100));
    expect(counselor.all("psap_results")).toHaveLength(1);
    expect((await storedRecord(session.session_id))?.location).toEqual({
      ...GARY,
      fixed_at: expect.any(Number),
    });
  });
});
