// The session object as producer: the SOS never waits for the queue nor fails with it, and an event the
// queue refused is kept and sent later, in order.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WEBHOOK_LIMITS } from "../../lib/config.ts";
import {
  asCounselor,
  asPatient,
  asPlatform,
  newPlatform,
  newSession,
  openSocket,
  seedPsapIndex,
  sessionPath,
  sessionStubOf,
} from "./helpers.ts";
import { FakeReceiver, RECEIVER, setWebhook } from "./webhook-receiver.ts";

let receiver: FakeReceiver;

beforeEach(() => {
  receiver = new FakeReceiver().install();
});

afterEach(() => {
  receiver.restore();
});

type QueueLike = Pick<Queue, "send" | "sendBatch">;

/** Puts `value` in place of one of the session object's bindings; returns the undo. */
async function replaceObjectBinding(
  sessionId: string,
  name: "WEBHOOK_QUEUE" | "DB",
  value: unknown,
): Promise<() => Promise<void>> {
  const stub = sessionStubOf(sessionId);
  const bindingsOf = (instance: unknown) => (instance as { env: Record<string, unknown> }).env;
  const original = await runInDurableObject(stub, (instance) => {
    const before = bindingsOf(instance)[name];
    bindingsOf(instance)[name] = value;
    return before;
  });
  return async () => {
    await runInDurableObject(stub, (instance) => {
      bindingsOf(instance)[name] = original;
    });
  };
}

function replaceObjectQueue(sessionId: string, queue: QueueLike): Promise<() => Promise<void>> {
  return replaceObjectBinding(sessionId, "WEBHOOK_QUEUE", queue);
}

/** A D1 database that fails every query, in place of the session object's DB binding; returns the undo. */
function breakObjectDatabase(sessionId: string): Promise<() => Promise<void>> {
  const unreadable = {
    prepare: () => {
      throw new Error("D1 unavailable");
    },
  };
  return replaceObjectBinding(sessionId, "DB", unreadable);
}

/** An SOS whose location the patient posts when asked (Chicago): the trigger's and the PSAPs' events. */
async function sosWithLocation(session: Awaited<ReturnType<typeof newSession>>): Promise<void> {
  const patient = await openSocket(session.patient_token);
  expect((await asCounselor(session, "/sos")).status).toBe(202);
  await patient.waitFor("location_request");
  const located = await asPatient(session, "/sos/location", { latitude: 41.8819, longitude: -87.6278 });
  expect(located.status).toBe(200);
}

/** A queue that takes every send and keeps each batch's event types. */
function recordingQueue(): QueueLike & { batches: string[][] } {
  const queue = {
    batches: [] as string[][],
    send: () => Promise.reject(new Error("the outbox sends batches")),
    sendBatch: (messages: Iterable<MessageSendRequest<{ event: { type: string } }>>) => {
      queue.batches.push([...messages].map((m) => m.body.event.type));
      const taken: QueueSendBatchResponse = { metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } };
      return Promise.resolve(taken);
    },
  };
  return queue;
}

/** A queue that refuses every send, and counts the refusals. */
function refusingQueue(): QueueLike & { refused: number } {
  const queue = {
    refused: 0,
    send: () => Promise.reject(new Error("queue down")),
    sendBatch: () => {
      queue.refused++;
      return Promise.reject(new Error("queue down"));
    },
  };
  return queue;
}

/** A platform with a webhook, a session whose session.created was delivered, then its queue refusing. */
async function sessionWithQueueDown(receiverPath: string) {
  const platform = await newPlatform();
  await setWebhook(platform.platform_id, { url: `${RECEIVER}${receiverPath}` });
  const session = await newSession(platform);
  await receiver.waitFor(1);
  const down = refusingQueue();
  const restore = await replaceObjectQueue(session.session_id, down);
  return { platform, session, down, restore };
}

function outboxSize(sessionId: string): Promise<number> {
  return runInDurableObject(
    sessionStubOf(sessionId),
    (_instance, state) => state.storage.sql.exec("SELECT seq FROM webhook_outbox").toArray().length,
  );
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the session object as webhook producer", () => {
  it("answers the SOS when the queue refuses the event, and sends it later, in order", async () => {
    const { session, down, restore } = await sessionWithQueueDown("/producer");
    const triggered = await asCounselor(session, "/sos");
    expect(triggered.status).toBe(202);
    await waitFor(async () => down.refused > 0, "the refused send");
    expect(await outboxSize(session.session_id)).toBe(1);

    await restore();
    expect((await asCounselor(session, "/sos/cancel")).status).toBe(200);
    await receiver.waitFor(3);
    expect(receiver.events().map((e) => e.type)).toEqual([
      "session.created",
      "session.sos_triggered",
      "session.sos_cancelled",
    ]);
    await waitFor(async () => (await outboxSize(session.session_id)) === 0, "an empty outbox");
  });

  it("sets an alarm to send a refused event again when no later event comes (the session's end)", async () => {
    const { platform, session, down, restore } = await sessionWithQueueDown("/quiet");
    const ended = await asPlatform(platform, sessionPath(session, "/end"), "POST");
    expect(ended.status).toBe(200);
    await waitFor(async () => down.refused > 0, "the refused send");
    const stub = sessionStubOf(session.session_id);
    // The next alarm is the outbox retry, within 30 s, not the 30-day purge.
    const alarmAt = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    expect(alarmAt).not.toBeNull();
    expect((alarmAt ?? 0) - Date.now()).toBeLessThanOrEqual(30_000);
    await restore();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await receiver.waitFor(2);
    expect(receiver.events().map((e) => e.type)).toEqual(["session.created", "session.ended"]);
    await waitFor(async () => (await outboxSize(session.session_id)) === 0, "an empty outbox");
    // Then the alarm goes back to the purge, 30 days on.
    const next = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    expect((next ?? 0) - Date.now()).toBeGreaterThan(29 * 24 * 60 * 60_000);
  });

  it("sends the events of one SOS in one batch, once the moment after the first has passed", async () => {
    await seedPsapIndex("producer-batch");
    const platform = await newPlatform();
    await setWebhook(platform.platform_id, { url: `${RECEIVER}/batch` });
    const session = await newSession(platform);
    await waitFor(async () => (await outboxSize(session.session_id)) === 0, "session.created sent");
    const queue = recordingQueue();
    const restore = await replaceObjectQueue(session.session_id, queue);
    // The object and the tests share one isolate: a longer moment, so a slow machine still sends once.
    const limits = WEBHOOK_LIMITS as { outboxFlushDelayMs: number };
    const delay = limits.outboxFlushDelayMs;
    limits.outboxFlushDelayMs = 2_000;
    try {
      await sosWithLocation(session);
      await waitFor(async () => queue.batches.length > 0, "the send");
      await waitFor(async () => (await outboxSize(session.session_id)) === 0, "an empty outbox");
      expect(queue.batches).toEqual([["session.sos_triggered", "session.psaps_delivered"]]);
    } finally {
      limits.outboxFlushDelayMs = delay;
      await restore();
    }
  });

  it("answers the SOS at once when the queue hangs", async () => {
    const platform = await newPlatform();
    await setWebhook(platform.platform_id, { url: `${RECEIVER}/hangs` });
    const session = await newSession(platform);
    // session.created goes out first (a moment after the creation), before the queue hangs.
    await waitFor(async () => (await outboxSize(session.session_id)) === 0, "session.created sent");
    let sends = 0;
    const restore = await replaceObjectQueue(session.session_id, {
      send: () => new Promise<never>(() => {}),
      sendBatch: () => {
        sends++;
        return new Promise<never>(() => {});
      },
    });
    try {
      const started = Date.now();
      const triggered = await asCounselor(session, "/sos");
      expect(triggered.status).toBe(202);
      expect(Date.now() - started).toBeLessThan(1_000);
      await waitFor(async () => sends > 0, "the send that hangs");
      expect(await outboxSize(session.session_id)).toBe(1);
    } finally {
      await restore();
    }
  });
});

describe("only what the platform's webhook takes goes to the queue", () => {
  /** A session of a platform set up by `prepare`, its queue recorded from the start (after session.created). */
  async function recordedSession(prepare: (platformId: string) => Promise<unknown>) {
    const platform = await newPlatform();
    await prepare(platform.platform_id);
    const session = await newSession(platform);
    await waitFor(async () => (await outboxSize(session.session_id)) === 0, "session.created handled");
    const queue = recordingQueue();
    const restore = await replaceObjectQueue(session.session_id, queue);
    return { platform, session, queue, restore };
  }

  it("sends nothing for a platform without a webhook, and still empties the outbox", async () => {
    await seedPsapIndex("producer-none");
    const { session, queue, restore } = await recordedSession(async () => {});
    try {
      await sosWithLocation(session);
      expect((await asCounselor(session, "/sos/cancel")).status).toBe(200);
      // Three events written, then read and dropped: the outbox empties with no send at all.
      await waitFor(async () => (await outboxSize(session.session_id)) === 0, "an empty outbox");
      expect(queue.batches).toEqual([]);
    } finally {
      await restore();
    }
  });

  it("sends only the types the webhook asked for", async () => {
    const { session, queue, restore } = await recordedSession((id) =>
      setWebhook(id, { url: `${RECEIVER}/types`, events: ["session.sos_cancelled"] }),
    );
    try {
      expect((await asCounselor(session, "/sos")).status).toBe(202);
      expect((await asCounselor(session, "/sos/cancel")).status).toBe(200);
      await waitFor(async () => queue.batches.length > 0, "the send");
      await waitFor(async () => (await outboxSize(session.session_id)) === 0, "an empty outbox");
      expect(queue.batches.flat()).toEqual(["session.sos_cancelled"]);
    } finally {
      await restore();
    }
  });

  it("sends nothing created before the webhook was set, though sent after it", async () => {
    const { platform, session, queue, restore } = await recordedSession(async () => {});
    const limits = WEBHOOK_LIMITS as { outboxFlushDelayMs: number };
    const delay = limits.outboxFlushDelayMs;
    limits.outboxFlushDelayMs = 2_000;
    try {
      expect((await asCounselor(session, "/sos")).status).toBe(202);
      // The webhook comes while session.sos_triggered still waits in the outbox.
      await setWebhook(platform.platform_id, { url: `${RECEIVER}/later` });
      expect(await outboxSize(session.session_id)).toBe(1);
      await waitFor(async () => (await outboxSize(session.session_id)) === 0, "an empty outbox");
      expect(queue.batches).toEqual([]);
      expect((await asCounselor(session, "/sos/cancel")).status).toBe(200);
      await waitFor(async () => queue.batches.length > 0, "the send");
      expect(queue.batches.flat()).toEqual(["session.sos_cancelled"]);
    } finally {
      limits.outboxFlushDelayMs = delay;
      await restore();
    }
  });

  it("sends every event when the webhook cannot be read, for the consumer to decide", async () => {
    const { session, queue, restore } = await recordedSession(async () => {});
    const repair = await breakObjectDatabase(session.session_id);
    try {
      expect((await asCounselor(session, "/sos")).status).toBe(202);
      await waitFor(async () => queue.batches.length > 0, "the send");
      await waitFor(async () => (await outboxSize(session.session_id)) === 0, "an empty outbox");
      expect(queue.batches).toEqual([["session.sos_triggered"]]);
    } finally {
      await repair();
      await restore();
    }
  });
});
