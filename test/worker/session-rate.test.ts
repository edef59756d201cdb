// Per session and role on the JWT routes: 30 requests in any 10 s, counted by the session object
// (refused by default), with a Retry-After that says when a slot frees; the SOS start is never refused.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SessionCreateResponse } from "../../sdk/src/protocol.ts";
import { asCounselor, asPatient, newPlatform, newSession, sessionStubOf, shiftClock } from "./helpers.ts";

/** `count` counselor requests that are refused with 409 (cancel while active): each counts, none changes anything. */
async function burn(session: SessionCreateResponse, count: number): Promise<void> {
  for (let i = 0; i < count; i++) expect((await asCounselor(session, "/sos/cancel")).status).toBe(409);
}

async function trail(sessionId: string): Promise<unknown[]> {
  return runInDurableObject(sessionStubOf(sessionId), (_instance, state) =>
    state.storage.sql.exec("SELECT * FROM audit_events ORDER BY seq").toArray(),
  );
}

describe("the per-session rate limit", () => {
  it("admits 30 requests in 10 s and refuses the 31st with a Retry-After of at most 10 s", async () => {
    const session = await newSession(await newPlatform());
    await burn(session, 30);
    const refused = await asCounselor(session, "/sos/cancel");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Content-Type")).toBe("application/problem+json");
    expect((await refused.json<{ code: string }>()).code).toBe("rate_limited");
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
  });

  it("is a sliding window: a slot frees exactly when the oldest request leaves it", async () => {
    const session = await newSession(await newPlatform());
    await burn(session, 10);
    let restore = shiftClock(6_000);
    try {
      await burn(session, 20);
      const refused = await asCounselor(session, "/sos/cancel");
      expect(refused.status).toBe(429);
      // The first ten leave the window 4 s from now (10 s after they came).
      expect(Number(refused.headers.get("Retry-After"))).toBe(4);
    } finally {
      restore();
    }
    restore = shiftClock(10_100);
    try {
      // Ten slots free, the twenty later ones still count.
      await burn(session, 10);
      expect((await asCounselor(session, "/sos/cancel")).status).toBe(429);
    } finally {
      restore();
    }
  });

  it("never refuses the trigger that starts an SOS, but refuses a repeat", async () => {
    const session = await newSession(await newPlatform());
    await burn(session, 30);
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    const repeat = await asCounselor(session, "/sos");
    expect(repeat.status).toBe(429);
    // A cancel over the rate is refused too: the SOS stays.
    expect((await asCounselor(session, "/sos/cancel")).status).toBe(429);
  });

  it("counts each role apart", async () => {
    const session = await newSession(await newPlatform());
    await burn(session, 30);
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    const located = await asPatient(session, "/sos/location", { unavailable: "permission_denied" });
    expect(located.status).toBe(200);
  });

  it("stores nothing for a refused request", async () => {
    const session = await newSession(await newPlatform());
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    for (let i = 0; i < 30; i++) await asPatient(session, "/sos/location", { latitude: 95, longitude: 0 });
    const before = await trail(session.session_id);
    const refused = await asPatient(session, "/sos/location", { unavailable: "timeout" });
    expect(refused.status).toBe(429);
    expect(await trail(session.session_id)).toEqual(before);
  });
});
