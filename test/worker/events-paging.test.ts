// GET .../events a page at a time: `after`, `limit` (default 100, at most 1000), `next_after`; bad values 400.
import { describe, expect, it } from "vitest";
import {
  asCounselor,
  asPlatform,
  newPlatform,
  newSession,
  sessionPath,
  shiftClock,
  type TestPlatform,
} from "./helpers.ts";

interface Page {
  events: { seq: number; type: string }[];
  next_after: number | null;
}

async function page(platform: TestPlatform, path: string): Promise<Page> {
  const res = await asPlatform(platform, path);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json<Page>();
}

/** A session with `count` audit events: created, then repeated SOS triggers and cancels. */
async function sessionWithEvents(count: number) {
  const platform = await newPlatform();
  const session = await newSession(platform);
  let made = 1;
  let offset = 0;
  while (made < count) {
    // Each step moves the clock past the session's 10 s rate window, which these tests are not about.
    offset += 11_000;
    const restore = shiftClock(offset);
    try {
      for (let i = 0; i < 14 && made < count; i++) {
        const path = made % 2 === 1 ? "/sos" : "/sos/cancel";
        expect((await asCounselor(session, path)).status).toBeLessThan(300);
        made++;
      }
    } finally {
      restore();
    }
  }
  return { platform, session, offset };
}

describe("paging the audit trail", () => {
  it("returns every event in order across pages, with next_after null on the last", async () => {
    const { platform, session } = await sessionWithEvents(7);
    const first = await page(platform, sessionPath(session, "/events?limit=3"));
    expect(first.events.map((e) => e.type)).toEqual(["session_created", "sos_triggered", "sos_cancelled"]);
    expect(first.next_after).toBe(first.events.at(-1)?.seq);
    const second = await page(platform, sessionPath(session, `/events?limit=3&after=${first.next_after}`));
    const third = await page(platform, sessionPath(session, `/events?limit=3&after=${second.next_after}`));
    expect(third.events).toHaveLength(1);
    expect(third.next_after).toBeNull();
    const all = [...first.events, ...second.events, ...third.events];
    expect(all.map((e) => e.seq)).toEqual([...all.map((e) => e.seq)].sort((a, b) => a - b));
    expect(new Set(all.map((e) => e.seq)).size).toBe(7);
    // A page that ends exactly at the last event says so.
    const exact = await page(platform, sessionPath(session, "/events?limit=7"));
    expect(exact.next_after).toBeNull();
  });

  it("gives 100 events by default", async () => {
    const { platform, session } = await sessionWithEvents(102);
    const first = await page(platform, sessionPath(session, "/events"));
    expect(first.events).toHaveLength(100);
    expect(first.next_after).toBe(first.events.at(-1)?.seq);
    const rest = await page(platform, sessionPath(session, `/events?after=${first.next_after}`));
    expect(rest.events).toHaveLength(2);
    expect(rest.next_after).toBeNull();
  });

  it("returns an empty last page after the last event", async () => {
    const { platform, session } = await sessionWithEvents(1);
    expect(await page(platform, sessionPath(session, "/events?after=999"))).toEqual({
      events: [],
      next_after: null,
    });
  });

  it.each([
    "limit=0",
    "limit=1001",
    "limit=-1",
    "limit=abc",
    "limit=1.5",
    "limit=",
    "after=-1",
    "after=x",
    "after=1e3",
    "after=9007199254740992",
    "after=%2010",
  ])("refuses %s with 400", async (query) => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    const res = await asPlatform(platform, sessionPath(session, `/events?${query}`));
    expect(res.status).toBe(400);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect((await res.json<{ code: string }>()).code).toBe("invalid_request");
  });

  it("accepts the largest safe integer as after=", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    const res = await asPlatform(platform, sessionPath(session, "/events?after=9007199254740991"));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ events: [], next_after: null });
  });

  it("accepts limit=1000", async () => {
    const { platform, session } = await sessionWithEvents(2);
    expect((await page(platform, sessionPath(session, "/events?limit=1000"))).events).toHaveLength(2);
  });

  it("answers an unknown session with 404 before looking at the paging", async () => {
    const platform = await newPlatform();
    const res = await asPlatform(
      platform,
      `/v1/platforms/${platform.platform_id}/sessions/6f1c1c5e-8d1c-4c59-9d43-1b7c8a3f7a11/events?limit=0`,
    );
    expect(res.status).toBe(404);
  });
});
