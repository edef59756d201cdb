// A lookup that is only slow (past lookupTimeoutMs, under load) is late, not lost: the patient gets the
// 503 and every counselor `lookup_failed` at once, as for any failure; if the lookup answers after all,
// for the same SOS and the same fix, within lateLookupMs, both sockets get its PSAPs.
import { afterEach, describe, expect, it } from "vitest";
import { PSAP_LIMITS } from "../../lib/config.ts";
import type { PsapIndexStore } from "../../src/psap/lookup.ts";
import {
  asCounselor,
  asPatient,
  asPlatform,
  eventsWithoutTimes,
  openSocket,
  replaceObjectIndex,
  seedPsapIndex,
  sessionPath,
  sosAwaitingFix,
} from "./helpers.ts";

const CHICAGO = { latitude: 41.8819, longitude: -87.6278, accuracy: 25 };
const ADDRESS = "1200 W Harrison St, Chicago, IL";
const TIMEOUT_MS = 200;

const undo: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const restore of undo.splice(0)) await restore();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The object and the tests share one isolate, so the limits can be changed for a test. */
function setLimits(changed: { lookupTimeoutMs?: number; lateLookupMs?: number }): void {
  const limits = PSAP_LIMITS as { lookupTimeoutMs: number; lateLookupMs: number };
  const before = { lookupTimeoutMs: limits.lookupTimeoutMs, lateLookupMs: limits.lateLookupMs };
  Object.assign(limits, changed);
  undo.push(async () => {
    Object.assign(limits, before);
  });
}

/** The real index, each read answered `delayMs` late (KV under load). */
async function slowIndex(sessionId: string, delayMs: number): Promise<void> {
  undo.push(
    await replaceObjectIndex(sessionId, (kv) => ({
      get: (async (key: string) => {
        await sleep(delayMs);
        return kv.get(key, "text");
      }) as PsapIndexStore["get"],
    })),
  );
}

async function sosUnderWay(prefix: string) {
  await seedPsapIndex(prefix);
  return sosAwaitingFix(ADDRESS);
}

/** Submits the fix and checks the failure everyone hears at once. */
async function submitTooSlow(
  s: Awaited<ReturnType<typeof sosUnderWay>>,
  fix: typeof CHICAGO = CHICAGO,
): Promise<void> {
  const res = await asPatient(s.session, "/sos/location", fix);
  expect(res.status).toBe(503);
  expect((await res.json<{ code: string }>()).code).toBe("psap_lookup_failed");
  expect((await s.counselor.waitFor("location_unavailable")).reason).toBe("lookup_failed");
  expect(s.counselor.all("psap_results")).toHaveLength(0);
}

describe("a lookup slower than its timeout", () => {
  it("delivers its PSAPs to both sockets when it answers after all, and records that", async () => {
    const s = await sosUnderWay("late-delivered");
    await slowIndex(s.session.session_id, TIMEOUT_MS * 2);
    setLimits({ lookupTimeoutMs: TIMEOUT_MS });
    await submitTooSlow(s);

    const counselorGot = await s.counselor.waitFor("psap_results");
    const patientGot = await s.patient.waitFor("psap_results");
    expect(counselorGot.psaps[0]?.id).toBe("T1");
    expect(counselorGot.patient_address).toBe(ADDRESS);
    expect(counselorGot.location).toMatchObject({ latitude: CHICAGO.latitude, longitude: CHICAGO.longitude });
    expect(patientGot.result_id).toBe(counselorGot.result_id);
    expect(patientGot).not.toHaveProperty("location");

    // The session holds the result as its latest (a socket that connects now gets it).
    const read = await (await asPlatform(s.platform, sessionPath(s.session))).json<{ state: string }>();
    expect(read.state).toBe("sos");
    const late = await openSocket(s.session.counselor_token);
    expect((await late.waitFor("psap_results")).result_id).toBe(counselorGot.result_id);

    const { events } = await (await asPlatform(s.platform, sessionPath(s.session, "/events"))).json<{
      events: { type: string; data?: Record<string, unknown> }[];
    }>();
    const types = events.map((e) => e.type);
    expect(types.indexOf("location_unavailable")).toBeLessThan(types.indexOf("psaps_delivered"));
    const delivered = events.find((e) => e.type === "psaps_delivered");
    expect(delivered?.data).toMatchObject({ result_id: counselorGot.result_id, after_lookup_failed: true });
    expect(eventsWithoutTimes(events)).not.toContain("41.88");
  });

  it("delivers nothing when the SOS was cancelled before the answer came", async () => {
    const s = await sosUnderWay("late-cancelled");
    await slowIndex(s.session.session_id, TIMEOUT_MS * 3);
    setLimits({ lookupTimeoutMs: TIMEOUT_MS });
    await submitTooSlow(s);
    expect((await asCounselor(s.session, "/sos/cancel")).status).toBe(200);
    await sleep(TIMEOUT_MS * 4);
    expect(s.counselor.all("psap_results")).toHaveLength(0);
    expect(s.patient.all("psap_results")).toHaveLength(0);
  });

  it("delivers nothing once a newer fix was answered", async () => {
    const s = await sosUnderWay("late-superseded");
    await slowIndex(s.session.session_id, TIMEOUT_MS * 3);
    setLimits({ lookupTimeoutMs: TIMEOUT_MS });
    await submitTooSlow(s);
    // The index is quick again: the next fix is answered at once, and stays the latest.
    await undo.shift()?.();
    const newer = await asPatient(s.session, "/sos/location", { ...CHICAGO, accuracy: 10 });
    expect(newer.status).toBe(200);
    const { result_id } = await newer.json<{ result_id: string }>();
    await s.counselor.waitFor("psap_results");
    await sleep(TIMEOUT_MS * 4);
    expect(s.counselor.all("psap_results").map((m) => m.result_id)).toEqual([result_id]);
    expect(s.patient.all("psap_results").map((m) => m.result_id)).toEqual([result_id]);
  });

  it("delivers nothing when the answer comes after lateLookupMs", async () => {
    const s = await sosUnderWay("late-too-late");
    await slowIndex(s.session.session_id, TIMEOUT_MS * 3);
    setLimits({ lookupTimeoutMs: TIMEOUT_MS, lateLookupMs: TIMEOUT_MS / 2 });
    await submitTooSlow(s);
    await sleep(TIMEOUT_MS * 4);
    expect(s.counselor.all("psap_results")).toHaveLength(0);
    expect(s.patient.all("psap_results")).toHaveLength(0);
  });

  it("keeps a KV error a plain failure: nothing is delivered later", async () => {
    const s = await sosUnderWay("late-error");
    undo.push(
      await replaceObjectIndex(s.session.session_id, () => ({
        get: (() => Promise.reject(new Error("KV GET failed"))) as PsapIndexStore["get"],
      })),
    );
    await submitTooSlow(s);
    await sleep(TIMEOUT_MS * 2);
    expect(s.counselor.all("psap_results")).toHaveLength(0);
    expect(s.patient.all("psap_results")).toHaveLength(0);
  });
});
