// Each event on its own retry schedule, through the real consumer and D1, with the queue in virtual time
// (test/worker/webhook-queue.ts): a receiver that refuses each event's first request gets every event of
// a session within a minute, and an outage of a few minutes costs each event only its own tries.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WEBHOOK_LIMITS } from "../../lib/config.ts";
import type { WebhookEvent, WebhookEventType } from "../../sdk/src/protocol.ts";
import { newPlatform, type TestPlatform } from "./helpers.ts";
import { event, SESSION_A, VirtualQueue } from "./webhook-queue.ts";
import { deliveryRows, FakeReceiver, RECEIVER, setWebhook } from "./webhook-receiver.ts";

let receiver: FakeReceiver;

beforeEach(() => {
  receiver = new FakeReceiver().install();
});

afterEach(() => {
  receiver.restore();
});

/** A session's story as the session object publishes it: type and when (virtual ms). */
const STORY: [WebhookEventType, number][] = [
  ["session.created", 0],
  ["session.sos_triggered", 4_000],
  ["session.location_unavailable", 4_300],
  ["session.psaps_delivered", 5_100],
  ["session.sos_cancelled", 9_000],
  ["session.ended", 12_000],
];

interface Request {
  id: string;
  at: number;
  status: number;
}

/** Publishes the story and answers every request with `status(eventId, virtualNow)`, keeping each. */
async function runStory(
  platform: TestPlatform,
  queue: VirtualQueue,
  status: (eventId: string, at: number) => number,
  story: [WebhookEventType, number][] = STORY,
): Promise<{ events: WebhookEvent[]; requests: Request[] }> {
  const requests: Request[] = [];
  receiver.respond = (request) => {
    const id = request.headers["webhook-id"] ?? "";
    const at = queue.now;
    const answer = status(id, at);
    requests.push({ id, at, status: answer });
    return new Response(null, { status: answer });
  };
  const events = story.map(([type, at], i) => {
    const created = event(platform, {
      type,
      session_id: SESSION_A,
      created_at: new Date(queue.wallClock(at)).toISOString(),
    } as Partial<WebhookEvent>);
    queue.publish({ seq: i + 1, event: created }, at);
    return created;
  });
  await queue.run(3 * 3600_000);
  return { events, requests };
}

async function platformWithWebhook(): Promise<TestPlatform> {
  const platform = await newPlatform();
  await setWebhook(platform.platform_id, { url: `${RECEIVER}/hook` });
  return platform;
}

describe("retries per event", () => {
  it("delivers every event of a session within a minute when each event's first request is refused", async () => {
    const platform = await platformWithWebhook();
    const queue = new VirtualQueue();
    const seen = new Set<string>();
    const { events, requests } = await runStory(platform, queue, (id) => {
      const first = !seen.has(id);
      seen.add(id);
      return first ? 500 : 204;
    });
    const firstStart = Math.min(...STORY.map(([, at]) => at));
    for (const e of events) {
      const mine = requests.filter((r) => r.id === e.id);
      expect(
        mine.map((r) => r.status),
        e.type,
      ).toEqual([500, 204]);
      const [failed, delivered] = mine as [Request, Request];
      // Its own first retry, within 30 s of its own first failure, whatever its place in the session.
      expect(delivered.at - failed.at, e.type).toBeLessThanOrEqual(30_000);
      expect(delivered.at - failed.at, e.type).toBeGreaterThanOrEqual(
        (WEBHOOK_LIMITS.retryDelaysSeconds[0] ?? 0) * 1000,
      );
      expect(delivered.at - firstStart, e.type).toBeLessThanOrEqual(60_000);
    }
    // Delivered in the session's order.
    const deliveredOrder = requests.filter((r) => r.status === 204).map((r) => r.id);
    expect(deliveredOrder).toEqual(events.map((e) => e.id));
    const rows = await deliveryRows(platform.platform_id);
    expect(rows).toHaveLength(events.length);
    for (const row of rows)
      expect(row).toMatchObject({ status: "delivered", attempts: 2, last_status_code: 204 });
  });

  it("costs each event only its own tries in an outage of a few minutes: none is failed", async () => {
    const platform = await platformWithWebhook();
    const queue = new VirtualQueue();
    const outageEnds = 5 * 60_000;
    const story: [WebhookEventType, number][] = [
      ["session.created", 0],
      ["session.sos_triggered", 60_000],
      ["session.psaps_delivered", 61_000],
      ["session.sos_cancelled", 4 * 60_000],
      ["session.ended", 6 * 60_000],
    ];
    const { events, requests } = await runStory(
      platform,
      queue,
      (_id, at) => (at < outageEnds ? 503 : 204),
      story,
    );
    const delays = WEBHOOK_LIMITS.retryDelaysSeconds;
    for (const [i, e] of events.entries()) {
      const mine = requests.filter((r) => r.id === e.id);
      const publishedAt = story[i]?.[1] ?? 0;
      expect(mine.at(-1)?.status, e.type).toBe(204);
      // Each request follows the event's own schedule: its n-th retry comes delays[n-1] after its n-th try.
      for (let n = 1; n < mine.length; n++) {
        const gap = (mine[n]?.at ?? 0) - (mine[n - 1]?.at ?? 0);
        expect(gap, `${e.type} retry ${n}`).toBeGreaterThanOrEqual((delays[n - 1] ?? 0) * 1000);
        expect(gap, `${e.type} retry ${n}`).toBeLessThanOrEqual((delays[n - 1] ?? 0) * 1000 + 2_000);
      }
      // Its first request comes when it is published, not behind an earlier event's retries.
      expect((mine[0]?.at ?? 0) - publishedAt, e.type).toBeLessThanOrEqual(2_000);
    }
    // The event published after the outage went through on its first request.
    expect(requests.filter((r) => r.id === events.at(-1)?.id).map((r) => r.status)).toEqual([204]);
    const rows = await deliveryRows(platform.platform_id);
    expect(rows.map((r) => r.status)).toEqual(events.map(() => "delivered"));
  });
});
