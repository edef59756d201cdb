// A PSAP index that cannot be read is a failure of ours, never "no 911 centre nearby": 503 with
// Retry-After to the patient, lookup_failed to every counselor at once, the SOS and its clock untouched.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { PSAP_LIMITS } from "../../lib/config.ts";
import type { PsapIndexStore } from "../../src/psap/lookup.ts";
import { lookupProblem } from "../../src/session/session-lookup.ts";
import {
  asPatient,
  asPlatform,
  entriesReadFor,
  eventsWithoutTimes,
  replaceObjectIndex,
  seedPsapIndex,
  sessionPath,
  sessionStubOf,
  shiftClock,
  sosAwaitingFix,
} from "./helpers.ts";

const CHICAGO = { latitude: 41.8819, longitude: -87.6278, accuracy: 25 };
const ADDRESS = "1200 W Harrison St, Chicago, IL";

const undo: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const restore of undo.splice(0)) await restore();
});

const sosUnderWay = () => sosAwaitingFix(ADDRESS);

/** Everything docs/contract.md, section 4 asks of a failed lookup, for one way of failing. */
async function expectLookupFailure(code: "psap_lookup_failed" | "psap_index_unavailable") {
  const { platform, session, counselor, patient } = await sosUnderWay();
  const res = await asPatient(session, "/sos/location", CHICAGO);
  expect(res.status).toBe(503);
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  const retryAfter = Number(res.headers.get("Retry-After"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(10);
  const body = await res.json<{ code: string; status: number; psaps?: unknown }>();
  expect(body).toMatchObject({ code, status: 503 });
  expect(body).not.toHaveProperty("psaps");

  // Every counselor hears it at once, with the address on file to act on; the patient's socket hears nothing.
  const told = await counselor.waitFor("location_unavailable");
  expect(told).toMatchObject({ reason: "lookup_failed", patient_address: ADDRESS });
  expect(counselor.all("psap_results")).toHaveLength(0);
  expect(patient.all("psap_results")).toHaveLength(0);

  // The session stays in sos, and its 30 s clock still runs.
  const read = await (await asPlatform(platform, sessionPath(session))).json<{ state: string }>();
  expect(read.state).toBe("sos");
  const restore = shiftClock(31_000);
  try {
    await runDurableObjectAlarm(sessionStubOf(session.session_id));
  } finally {
    restore();
  }
  expect((await counselor.waitFor("location_unavailable", 2)).reason).toBe("timeout");
  return { platform, session, counselor, patient };
}

describe("a PSAP index that cannot be read", () => {
  it("answers 503 psap_index_unavailable when no index is loaded at all", async () => {
    const built = await seedPsapIndex("fail-none");
    await env.PSAP_INDEX.delete(built.pointerKey);
    await expectLookupFailure("psap_index_unavailable");
  });

  it("answers 503 psap_lookup_failed when the fix's index entry was deleted, and never caches it", async () => {
    const built = await seedPsapIndex("fail-deleted");
    const entries = await entriesReadFor(built, CHICAGO);
    const saved = await Promise.all(entries.map((key) => env.PSAP_INDEX.get(key, "text")));
    for (const key of entries) await env.PSAP_INDEX.delete(key);
    const { session, counselor } = await expectLookupFailure("psap_lookup_failed");

    // Once the entry is back, the next submission gets the real answer: the failure was not cached.
    for (const [i, key] of entries.entries()) await env.PSAP_INDEX.put(key, saved[i] ?? "");
    const again = await asPatient(session, "/sos/location", CHICAGO);
    expect(again.status).toBe(200);
    expect((await again.json<{ psaps: { id: string }[] }>()).psaps[0]?.id).toBe("T1");
    expect((await counselor.waitFor("psap_results")).patient_address).toBe(ADDRESS);
  });

  it("answers 503 psap_lookup_failed when the pointer names a version whose entries are gone", async () => {
    const built = await seedPsapIndex("fail-gone");
    for (const key of built.entries.keys()) await env.PSAP_INDEX.delete(key);
    await expectLookupFailure("psap_lookup_failed");
  });

  it("answers 503 psap_lookup_failed for a corrupt entry, not a 500", async () => {
    const built = await seedPsapIndex("fail-corrupt");
    for (const key of await entriesReadFor(built, CHICAGO)) await env.PSAP_INDEX.put(key, '{"cells":[1,');
    await expectLookupFailure("psap_lookup_failed");
  });

  it("answers 503 psap_lookup_failed when KV itself fails", async () => {
    await seedPsapIndex("fail-kv");
    const { session, counselor } = await sosUnderWay();
    undo.push(
      await replaceObjectIndex(session.session_id, () => ({
        get: (() =>
          Promise.reject(new Error("KV GET failed: 503 Service Unavailable"))) as PsapIndexStore["get"],
      })),
    );
    const res = await asPatient(session, "/sos/location", CHICAGO);
    expect(res.status).toBe(503);
    expect((await res.json<{ code: string }>()).code).toBe("psap_lookup_failed");
    expect((await counselor.waitFor("location_unavailable")).reason).toBe("lookup_failed");
  });

  it("answers 503 psap_lookup_failed when KV does not answer in time", async () => {
    await seedPsapIndex("fail-timeout");
    const { session, counselor } = await sosUnderWay();
    undo.push(
      await replaceObjectIndex(session.session_id, () => ({
        get: (() => new Promise(() => {})) as PsapIndexStore["get"],
      })),
    );
    // The object and the tests share one isolate, so the limit can be shortened for this test.
    const limits = PSAP_LIMITS as { lookupTimeoutMs: number };
    const before = limits.lookupTimeoutMs;
    limits.lookupTimeoutMs = 200;
    undo.push(async () => {
      limits.lookupTimeoutMs = before;
    });
    const res = await asPatient(session, "/sos/location", CHICAGO);
    expect(res.status).toBe(503);
    expect((await res.json<{ code: string }>()).code).toBe("psap_lookup_failed");
    expect((await counselor.waitFor("location_unavailable")).reason).toBe("lookup_failed");
  });

  it("treats any other error of the lookup as psap_lookup_failed, with Retry-After", () => {
    for (const error of [new TypeError("x is undefined"), "a string", null]) {
      const found = lookupProblem(error);
      expect(found.code).toBe("psap_lookup_failed");
      expect(found.retryAfter).toBeGreaterThan(0);
    }
  });

  it("records the failure in the audit trail without a coordinate", async () => {
    const built = await seedPsapIndex("fail-audit");
    await env.PSAP_INDEX.delete(built.pointerKey);
    const { platform, session } = await expectLookupFailure("psap_index_unavailable");
    const { events } = await (await asPlatform(platform, sessionPath(session, "/events"))).json<{
      events: { type: string; data?: { reason?: string } }[];
    }>();
    const reasons = events.filter((e) => e.type === "location_unavailable").map((e) => e.data?.reason);
    expect(reasons).toEqual(["lookup_failed", "timeout"]);
    expect(eventsWithoutTimes(events)).not.toContain("41.88");
  });
});
