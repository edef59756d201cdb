// The queue consumer on its own: fake batches whose ack/retry calls are kept (the plugin's createMessageBatch
// drops retry's delaySeconds, which matters here), a recording queue for the events it puts back, outbound
// fetch stubbed. Success, retries with the same id and a fresh timestamp, each event on its own schedule,
// timeouts, redirects, unread answers, the final failure, order within a session, rotation overlap, the
// URL rule at delivery, and the dead-letter queue.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WEBHOOK_LIMITS, WEBHOOK_MAX_ATTEMPTS } from "../../lib/config.ts";
import { ADMIN_HEADERS, call, newPlatform, shiftClock, type TestPlatform } from "./helpers.ts";
import { consume, event, msgId, runConsumer, SESSION_A, SESSION_B } from "./webhook-queue.ts";
import { deliveryRows, FakeReceiver, RECEIVER, setWebhook, verify } from "./webhook-receiver.ts";

let receiver: FakeReceiver;

beforeEach(() => {
  receiver = new FakeReceiver().install();
});

afterEach(() => {
  receiver.restore();
});

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
    expect(result.explicitAcks).toEqual([msgId(sent)]);
    expect(result.retryMessages).toEqual([]);
    expect(result.requeued).toEqual([]);
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
    receiver.answers.push(() => new Response("database down at 10.0.0.7", { status: 500 }));
    const first = await consume([{ event: sent }]);
    // The event goes back on the queue with its own count; the old message is let go.
    expect(first.explicitAcks).toEqual([msgId(sent)]);
    expect(first.retryMessages).toEqual([]);
    expect(first.requeued).toHaveLength(1);
    const again = first.requeued[0];
    expect(again?.body).toEqual({ seq: 1, event: sent, tries: 1 });
    const delay = again?.delaySeconds ?? Number.POSITIVE_INFINITY;
    expect(delay).toBeGreaterThan(0);
    expect(delay).toBeLessThanOrEqual(30);
    // Only the status: nothing of what the target answered.
    expect(await deliveryRows(platform.platform_id)).toEqual([
      expect.objectContaining({
        status: "pending",
        attempts: 1,
        last_status_code: 500,
        last_error: "status 500",
      }),
    ]);

    // The queue hands it back later: same event id, newer timestamp, still valid.
    const restore = shiftClock(delay * 1000 + 1_000);
    try {
      const second = await consume([{ event: sent, tries: 1 }]);
      expect(second.explicitAcks).toEqual([msgId(sent, 1)]);
      expect(second.requeued).toEqual([]);
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
    let tries: number | undefined;
    for (let attempt = 1; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt++) {
      receiver.answers.push(() => new Response("no", { status: 503 }));
      const result = await consume([{ event: sent, tries }]);
      expect(result.explicitAcks).toEqual([msgId(sent, tries)]);
      expect(result.retryMessages).toEqual([]);
      if (attempt < WEBHOOK_MAX_ATTEMPTS) {
        const requeued = result.requeued[0];
        expect(requeued?.body.tries).toBe(attempt);
        seen.push(requeued?.delaySeconds ?? -1);
        tries = requeued?.body.tries;
      } else {
        expect(result.requeued).toEqual([]);
      }
    }
    expect(seen).toEqual([...delays]);
    expect(receiver.received).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(await deliveryRows(platform.platform_id)).toEqual([
      expect.objectContaining({
        status: "failed",
        attempts: WEBHOOK_MAX_ATTEMPTS,
        last_status_code: 503,
        last_error: "status 503",
        next_attempt_at: null,
      }),
    ]);
  });

  it("counts only its own tries: the queue's redeliveries of a batch do not use up an event's schedule", async () => {
    const { platform } = await platformWithWebhook();
    const sent = event(platform);
    receiver.answers.push(() => new Response(null, { status: 500 }));
    // Brought back five times by the queue (a D1 outage, say), but tried once before.
    const result = await consume([{ event: sent, tries: 1, attempts: 5 }]);
    expect(result.requeued.map((r) => [r.body.tries, r.delaySeconds])).toEqual([
      [2, WEBHOOK_LIMITS.retryDelaysSeconds[1]],
    ]);
  });

  it("falls back to the queue's own retry when the event cannot be put back", async () => {
    const { platform } = await platformWithWebhook();
    const sent = event(platform);
    receiver.answers.push(() => new Response(null, { status: 500 }));
    const result = await consume([{ event: sent }], WEBHOOK_LIMITS.queue, { queueFails: true });
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toEqual([
      { msgId: msgId(sent), delaySeconds: WEBHOOK_LIMITS.retryDelaysSeconds[0] },
    ]);
  });

  it("does not follow a redirect: a 3xx is a failure", async () => {
    const { platform } = await platformWithWebhook();
    const sent = event(platform);
    receiver.answers.push(
      () => new Response(null, { status: 307, headers: { Location: `${RECEIVER}/elsewhere` } }),
    );
    const result = await consume([{ event: sent }]);
    expect(result.requeued).toHaveLength(1);
    expect(receiver.received.map((r) => r.url)).toEqual([`${RECEIVER}/hook`]);
    expect(receiver.received[0]?.redirect).toBe("manual");
    const [row] = await deliveryRows(platform.platform_id);
    expect(row).toMatchObject({ status: "pending", last_status_code: 307, last_error: "status 307" });
  });

  it("never reads a failed answer's body, however big, and keeps only its status", async () => {
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
    expect(result.requeued).toHaveLength(1);
    // Cancelled unread; a stream may have pulled a chunk or two ahead on its own.
    expect(pulled).toBeLessThanOrEqual(2 * chunk.byteLength);
    const [row] = await deliveryRows(platform.platform_id);
    expect(row?.last_error).toBe("status 500");
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
    expect(result.requeued).toHaveLength(1);
    expect(await deliveryRows(platform.platform_id)).toEqual([
      expect.objectContaining({
        status: "pending",
        last_status_code: null,
        last_error: "timeout",
      }),
    ]);
  }, 30_000);

  it.each([
    [
      "tls",
      new Error("TLS peer's certificate is not trusted; reason = unable to get local issuer certificate"),
    ],
    ["connection failed", new Error("connect ECONNREFUSED 10.0.0.7:443 (internal error; reference = x)")],
    ["connection failed", new TypeError("Network connection lost.")],
  ])("says only %s when the request itself fails, never the network's words", async (said, thrown) => {
    const { platform } = await platformWithWebhook();
    receiver.answers.push(() => Promise.reject(thrown));
    const result = await consume([{ event: event(platform) }]);
    expect(result.requeued).toHaveLength(1);
    const [row] = await deliveryRows(platform.platform_id);
    expect(row).toMatchObject({ status: "pending", last_status_code: null, last_error: said });
  });

  it("keeps a session's events in order, and lets no failed event hold back a later one", async () => {
    const { platform } = await platformWithWebhook();
    const first = event(platform, { session_id: SESSION_A });
    const second = event(platform, { session_id: SESSION_A });
    const other = event(platform, { session_id: SESSION_B });
    receiver.answers.push((r) => new Response(null, { status: r.body.includes(first.id) ? 500 : 200 }));
    receiver.answers.push((r) => new Response(null, { status: r.body.includes(first.id) ? 500 : 200 }));
    // Out of order in the batch: the seq decides.
    const result = await consume([
      { event: second, seq: 2 },
      { event: other, seq: 1 },
      { event: first, seq: 1 },
    ]);
    const sentIds = receiver.received.map((r) => r.headers["webhook-id"]);
    expect(sentIds.filter((id) => id !== other.id)).toEqual([first.id, second.id]);
    expect(sentIds).toContain(other.id);
    expect(result.explicitAcks.sort()).toEqual([msgId(first), msgId(second), msgId(other)].sort());
    // Only the event that failed goes back, on its own first-retry delay.
    expect(result.requeued).toEqual([
      { body: { seq: 1, event: first, tries: 1 }, delaySeconds: WEBHOOK_LIMITS.retryDelaysSeconds[0] },
    ]);
    const rows = await deliveryRows(platform.platform_id);
    expect(rows.find((r) => r.event_id === second.id)).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it.each([
    ["https://0.0.0.0:8443/hook", false],
    ["https://[::ffff:127.0.0.1]/hook", false],
    ["https://169.254.169.254/latest/meta-data/", false],
    ["https://10.0.0.1/hook", true],
    ["http://platform.example.com/hook", true],
  ])(
    "refuses at delivery a stored URL the rule refuses (%s), without a request",
    async (url, allowLoopback) => {
      const { platform } = await platformWithWebhook();
      // A setting older than the rule: written straight to D1, as no PUT would take it.
      await env.DB.prepare("UPDATE platform_webhooks SET url = ? WHERE platform_id = ?")
        .bind(url, platform.platform_id)
        .run();
      const sent = event(platform);
      const result = await consume([{ event: sent }], WEBHOOK_LIMITS.queue, { allowLoopback });
      expect(receiver.fetched).toEqual([]);
      expect(result.explicitAcks).toEqual([msgId(sent)]);
      expect(result.requeued).toEqual([]);
      expect(await deliveryRows(platform.platform_id)).toEqual([
        expect.objectContaining({
          status: "failed",
          attempts: 0,
          last_status_code: null,
          last_error: "refused",
          next_attempt_at: null,
        }),
      ]);
    },
  );

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
    const result = await consume([{ event: sent, tries: 1 }]);
    expect(result.explicitAcks).toEqual([msgId(sent, 1)]);
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
      {
        id: "bad-count",
        attempts: 1,
        body: { seq: 1, event: event({ platform_id: "plt_x" } as TestPlatform), tries: -1 },
      },
    ]);
    expect(result.explicitAcks).toEqual(["junk", "bad-count"]);
    expect(receiver.received).toEqual([]);
  });
});
