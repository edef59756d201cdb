// The queue consumer on its own: fake batches whose ack/retry calls are kept (the plugin's createMessageBatch
// drops retry's delaySeconds, which matters here), outbound fetch stubbed.
// Success, retries with the same id and a fresh timestamp, timeouts, redirects, big answers, the final
// failure, order within a session, rotation overlap, and the dead-letter queue.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WEBHOOK_LIMITS, WEBHOOK_MAX_ATTEMPTS } from "../../src/config.ts";
import worker from "../../src/index.ts";
import type { WebhookEvent, WebhookQueueMessage } from "../../src/webhooks/events.ts";
import { ADMIN_HEADERS, call, newPlatform, shiftClock, type TestPlatform } from "./helpers.ts";
import { deliveryRows, FakeReceiver, RECEIVER, setWebhook, verify } from "./webhook-receiver.ts";

const SESSION_A = "0b8f2a36-6a3e-4c1e-9d3f-2f5a1c9e7b10";
const SESSION_B = "5d7c4e21-1f0a-4b8e-a6c2-9e3b7d1f4a22";

let receiver: FakeReceiver;

beforeEach(() => {
  receiver = new FakeReceiver().install();
});

afterEach(() => {
  receiver.restore();
});

let eventCounter = 0;

function event(platform: TestPlatform, overrides: Partial<WebhookEvent> = {}): WebhookEvent {
  eventCounter++;
  return {
    id: `evt_${eventCounter.toString(16).padStart(32, "0")}`,
    type: "session.sos_triggered",
    created_at: new Date().toISOString(),
    platform_id: platform.platform_id,
    session_id: SESSION_A,
    data: { sos_started_at: new Date().toISOString(), repeat: false },
    ...overrides,
  } as WebhookEvent;
}

interface Delivery {
  event: WebhookEvent;
  seq?: number;
  attempts?: number;
}

interface QueueResult {
  ackAll: boolean;
  retryAll: boolean;
  explicitAcks: string[];
  retryMessages: { msgId: string; delaySeconds: number | undefined }[];
}

/** A batch as the runtime hands it over, keeping what the consumer decided for each message. */
function fakeBatch(queue: string, bodies: { id: string; attempts: number; body: unknown }[]) {
  const result: QueueResult = { ackAll: false, retryAll: false, explicitAcks: [], retryMessages: [] };
  const messages = bodies.map(
    ({ id, attempts, body }): Message<unknown> => ({
      id,
      timestamp: new Date(),
      attempts,
      body,
      ack: () => {
        result.explicitAcks.push(id);
      },
      retry: (options?: QueueRetryOptions) => {
        result.retryMessages.push({ msgId: id, delaySeconds: options?.delaySeconds });
      },
    }),
  );
  const batch: MessageBatch<unknown> = {
    queue,
    messages,
    metadata: { metrics: { backlogCount: 0, backlogBytes: 0, oldestMessageTimestamp: new Date(0) } },
    ackAll: () => {
      result.ackAll = true;
    },
    retryAll: () => {
      result.retryAll = true;
    },
  } as MessageBatch<unknown>;
  return { batch, result };
}

async function runConsumer(queue: string, bodies: { id: string; attempts: number; body: unknown }[]) {
  const { batch, result } = fakeBatch(queue, bodies);
  await worker.queue(batch, env);
  return result;
}

function consume(deliveries: Delivery[], queue: string = WEBHOOK_LIMITS.queue): Promise<QueueResult> {
  return runConsumer(
    queue,
    deliveries.map((d, i) => ({
      id: `msg-${d.event.id}`,
      attempts: d.attempts ?? 1,
      body: { seq: d.seq ?? i + 1, event: d.event } satisfies WebhookQueueMessage,
    })),
  );
}

async function platformWithWebhook(path = "/hook"): Promise<{ platform: TestPlatform; secret: string }> {
  const platform = await newPlatform();
  const { secret } = await setWebhook(platform.platform_id, { url: `${RECEIVER}${path}` });
  if (!secret) throw new Error("no secret");
  return { platform, secret };
}

describe("the webhook consumer", () => {
  it("acknowledges an event the receiver took with a 2xx, and records it delivered", async () => {
    const { platform, secret } = await platformWithWebhook();
    const sent = event(platform);
    receiver.answers.push(() => new Response(null, { status: 204 }));
    const result = await consume([{ event: sent }]);
    expect(result.explicitAcks).toEqual([`msg-${sent.id}`]);
    expect(result.retryMessages).toEqual([]);
    expect(receiver.received).toHaveLength(1);
    expect(verify(secret, receiver.received[0] ?? ({} as never))).toEqual(sent);
    expect(receiver.received[0]?.redirect).toBe("manual");
    expect(receiver.received[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(await deliveryRows(platform.platform_id)).toEqual([
      expect.objectContaining({
        event_id: sent.id,
        status: "delivered",
        attempts: 1,
        last_status_code: 204,
        last_error: null,
        next_attempt_at: null,
      }),
    ]);
  });

  it("retries a 500 within 30 s, then sends the same id with a fresh timestamp", async () => {
    const { platform, secret } = await platformWithWebhook();
    const sent = event(platform);
    receiver.answers.push(() => new Response("database down", { status: 500 }));
    const first = await consume([{ event: sent }]);
    expect(first.explicitAcks).toEqual([]);
    expect(first.retryMessages).toHaveLength(1);
    const delay = first.retryMessages[0]?.delaySeconds ?? Number.POSITIVE_INFINITY;
    expect(delay).toBeGreaterThan(0);
    expect(delay).toBeLessThanOrEqual(30);
    expect(await deliveryRows(platform.platform_id)).toEqual([
      expect.objectContaining({
        status: "pending",
        attempts: 1,
        last_status_code: 500,
        last_error: "HTTP 500: database down",
      }),
    ]);

    // The queue hands it back later (attempts 2): same event id, newer timestamp, still valid.
    const restore = shiftClock(delay * 1000 + 1_000);
    try {
      const second = await consume([{ event: sent, attempts: 2 }]);
      expect(second.explicitAcks).toEqual([`msg-${sent.id}`]);
      const [a, b] = receiver.received;
      expect(b?.headers["webhook-id"]).toBe(sent.id);
      expect(a?.headers["webhook-id"]).toBe(sent.id);
      expect(Number(b?.headers["webhook-timestamp"])).toBeGreaterThan(
        Number(a?.headers["webhook-timestamp"]),
      );
      expect(b?.body).toBe(a?.body);
      expect(verify(secret, b ?? ({} as never))).toEqual(sent);
    } finally {
      restore();
    }
    expect(await deliveryRows(platform.platform_id)).toEqual([
      expect.objectContaining({
        status: "delivered",
        attempts: 2,
        last_status_code: 200,
        next_attempt_at: null,
      }),
    ]);
  });

  it("backs off over at least 10 minutes and at least 5 tries, then records the failure", async () => {
    const delays = WEBHOOK_LIMITS.retryDelaysSeconds;
    expect(WEBHOOK_MAX_ATTEMPTS).toBeGreaterThanOrEqual(5);
    expect(delays[0]).toBeLessThanOrEqual(30);
    const beforeFifthTry = delays.slice(0, 4).reduce((a, b) => a + b, 0);
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(600);
    expect(beforeFifthTry).toBeGreaterThan(0);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1] ?? 0);

    const { platform } = await platformWithWebhook();
    const sent = event(platform);
    const seen: number[] = [];
    for (let attempt = 1; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt++) {
      receiver.answers.push(() => new Response("no", { status: 503 }));
      const result = await consume([{ event: sent, attempts: attempt }]);
      if (attempt < WEBHOOK_MAX_ATTEMPTS) {
        expect(result.explicitAcks).toEqual([]);
        seen.push(result.retryMessages[0]?.delaySeconds ?? -1);
      } else {
        expect(result.retryMessages).toEqual([]);
        expect(result.explicitAcks).toEqual([`msg-${sent.id}`]);
      }
    }
    expect(seen).toEqual([...delays]);
    expect(receiver.received).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(await deliveryRows(platform.platform_id)).toEqual([
      expect.objectContaining({
        status: "failed",
        attempts: WEBHOOK_MAX_ATTEMPTS,
        last_status_code: 503,
        next_attempt_at: null,
      }),
    ]);
  });

  it("does not follow a redirect: a 3xx is a failure", async () => {
    const { platform } = await platformWithWebhook();
    const sent = event(platform);
    receiver.answers.push(
      () => new Response(null, { status: 307, headers: { Location: `${RECEIVER}/elsewhere` } }),
    );
    const result = await consume([{ event: sent }]);
    expect(result.retryMessages).toHaveLength(1);
    expect(receiver.received.map((r) => r.url)).toEqual([`${RECEIVER}/hook`]);
    expect(receiver.received[0]?.redirect).toBe("manual");
    const [row] = await deliveryRows(platform.platform_id);
    expect(row).toMatchObject({ status: "pending", last_status_code: 307 });
    expect(String(row?.last_error)).toContain("redirects are not followed");
  });

  it("reads at most 64 KiB of a failed answer, however big", async () => {
    const { platform } = await platformWithWebhook();
    let pulled = 0;
    const chunk = new Uint8Array(16 * 1024).fill(120);
    receiver.answers.push(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              pulled += chunk.byteLength;
              controller.enqueue(chunk);
              if (pulled > 10 * 1024 * 1024) controller.close();
            },
          }),
          { status: 500 },
        ),
    );
    const result = await consume([{ event: event(platform) }]);
    expect(result.retryMessages).toHaveLength(1);
    // The read stops at 64 KiB; a stream may have pulled a chunk or two ahead.
    expect(pulled).toBeLessThanOrEqual(WEBHOOK_LIMITS.maxResponseBytes + 2 * chunk.byteLength);
    const [row] = await deliveryRows(platform.platform_id);
    expect(String(row?.last_error).length).toBeLessThanOrEqual(WEBHOOK_LIMITS.maxErrorChars);
  });

  it("counts no answer within 10 s as a failure, and retries it", async () => {
    const { platform } = await platformWithWebhook();
    receiver.answers.push(
      (request) =>
        new Promise<Response>((_resolve, reject) => {
          request.signal?.addEventListener("abort", () => reject(request.signal?.reason));
        }),
    );
    const started = Date.now();
    const result = await consume([{ event: event(platform) }]);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(WEBHOOK_LIMITS.timeoutMs - 100);
    expect(took).toBeLessThan(WEBHOOK_LIMITS.timeoutMs + 5_000);
    expect(result.retryMessages).toHaveLength(1);
    expect(await deliveryRows(platform.platform_id)).toEqual([
      expect.objectContaining({
        status: "pending",
        last_status_code: null,
        last_error: "no answer within 10 s",
      }),
    ]);
  }, 30_000);

  it("keeps a session's events in order: after a failure, its later events wait too", async () => {
    const { platform } = await platformWithWebhook();
    const first = event(platform, { session_id: SESSION_A });
    const second = event(platform, { session_id: SESSION_A });
    const other = event(platform, { session_id: SESSION_B });
    receiver.answers.push((r) => new Response(null, { status: r.body.includes(first.id) ? 500 : 200 }));
    receiver.answers.push(() => new Response(null, { status: 200 }));
    // Out of order in the batch: the seq decides.
    const result = await consume([
      { event: second, seq: 2 },
      { event: other, seq: 1 },
      { event: first, seq: 1 },
    ]);
    const sentIds = receiver.received.map((r) => r.headers["webhook-id"]);
    expect(sentIds).toContain(first.id);
    expect(sentIds).toContain(other.id);
    expect(sentIds).not.toContain(second.id);
    expect(result.explicitAcks).toEqual([`msg-${other.id}`]);
    expect(result.retryMessages.map((m) => m.msgId).sort()).toEqual(
      [`msg-${first.id}`, `msg-${second.id}`].sort(),
    );
    const delays = new Set(result.retryMessages.map((m) => m.delaySeconds));
    expect(delays.size).toBe(1);
  });

  it("signs with both secrets for 24 h after a rotation, then with the new one only", async () => {
    const { platform, secret: oldSecret } = await platformWithWebhook();
    const rotated = await call(`/v1/admin/platforms/${platform.platform_id}/webhook/rotate-secret`, {
      method: "POST",
      headers: ADMIN_HEADERS,
    });
    const { secret: newSecret } = await rotated.json<{ secret: string }>();
    await consume([{ event: event(platform) }]);
    const during = receiver.received[0];
    if (!during) throw new Error("nothing sent");
    expect(during.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(verify(oldSecret, during)).toBeTruthy();
    expect(verify(newSecret, during)).toBeTruthy();

    const restore = shiftClock(24 * 3600_000 + 60_000);
    try {
      await consume([{ event: event(platform, { created_at: new Date(Date.now()).toISOString() }) }]);
      const after = receiver.received[1];
      if (!after) throw new Error("nothing sent after 24 h");
      expect(after.headers["webhook-signature"]?.split(" ")).toHaveLength(1);
      expect(verify(newSecret, after)).toBeTruthy();
      expect(() => verify(oldSecret, after)).toThrow();
    } finally {
      restore();
    }
  });

  it("drops events of a platform without a webhook, or of a type it did not ask for, without a request", async () => {
    const platform = await newPlatform();
    const none = await consume([{ event: event(platform) }]);
    expect(none.explicitAcks).toHaveLength(1);
    await setWebhook(platform.platform_id, { url: `${RECEIVER}/hook`, events: ["session.ended"] });
    const filtered = await consume([{ event: event(platform) }]);
    expect(filtered.explicitAcks).toHaveLength(1);
    expect(receiver.received).toEqual([]);
    expect(await deliveryRows(platform.platform_id)).toEqual([]);
  });

  it("ends a pending retry as failed when the webhook was removed meanwhile", async () => {
    const { platform } = await platformWithWebhook();
    const sent = event(platform);
    receiver.answers.push(() => new Response(null, { status: 500 }));
    await consume([{ event: sent }]);
    await call(`/v1/admin/platforms/${platform.platform_id}/webhook`, {
      method: "DELETE",
      headers: ADMIN_HEADERS,
    });
    const result = await consume([{ event: sent, attempts: 2 }]);
    expect(result.explicitAcks).toEqual([`msg-${sent.id}`]);
    expect(receiver.received).toHaveLength(1);
    expect(await deliveryRows(platform.platform_id)).toEqual([
      expect.objectContaining({ status: "failed", attempts: 1, last_status_code: 500 }),
    ]);
  });

  it("records events the queue dead-lettered as failed", async () => {
    const { platform } = await platformWithWebhook();
    const lost = event(platform);
    const result = await consume([{ event: lost, attempts: 8 }], WEBHOOK_LIMITS.deadLetterQueue);
    expect(result.ackAll).toBe(true);
    expect(receiver.received).toEqual([]);
    expect(await deliveryRows(platform.platform_id)).toEqual([
      expect.objectContaining({ event_id: lost.id, status: "failed" }),
    ]);
  });

  it("drops a message that is not a webhook event instead of retrying it forever", async () => {
    const result = await runConsumer(WEBHOOK_LIMITS.queue, [
      { id: "junk", attempts: 1, body: { hello: "world" } },
    ]);
    expect(result.explicitAcks).toEqual(["junk"]);
    expect(receiver.received).toEqual([]);
  });
});
