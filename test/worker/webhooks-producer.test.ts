// The session object as producer: the SOS never waits for the queue nor fails with it, and an event the
// queue refused is kept and sent later, in order.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WEBHOOK_LIMITS } from "../../src/config.ts";
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

/** Puts `queue` in place of the session object's WEBHOOK_QUEUE binding; returns the undo. */
async function replaceObjectQueue(sessionId: string, queue: QueueLike): Promise<() => Promise<void>> {
  const stub = sessionStubOf(sessionId);
  const original = await runInDurableObject(stub, (instance) => {
    const bindings = (instance as unknown as { env: { WEBHOOK_QUEUE: QueueLike } }).env;
    const before = bindings.WEBHOOK_QUEUE;
    bindings.WEBHOOK_QUEUE = queue;
    return before;
  });
  return async () => {
    await runInDurableObject(stub, (instance) => {
      (instance as unknown as { env: { WEBHOOK_QUEUE: QueueLike } }).env.WEBHOOK_QUEUE = original;
    });
  };
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
    const session = await newSession(platform);
    await waitFor(async () => (await outboxSize(session.session_id)) === 0, "session.created sent");
    const queue = recordingQueue();
    const restore = await replaceObjectQueue(session.session_id, queue);
    // The object and the tests share one isolate: a longer moment, so a slow machine still sends once.
    const limits = WEBHOOK_LIMITS as { outboxFlushDelayMs: number };
    const delay = limits.outboxFlushDelayMs;
    limits.outboxFlushDelayMs = 2_000;
    try {
      const patient = await openSocket(session.patient_token);
      expect((await asCounselor(session, "/sos")).status).toBe(202);
      await patient.waitFor("location_request");
      const located = await asPatient(session, "/sos/location", { latitude: 41.8819, longitude: -87.6278 });
      expect(located.status).toBe(200);
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
    const session = await newSession(platform);
    // session.created goes out first (a moment after the creation), before the queue hangs.
    await waitFor(async () => (await outboxSize(session.session_id)) === 0, "session.created sent");
    const restore = await replaceObjectQueue(session.session_id, {
      send: () => new Promise<never>(() => {}),
      sendBatch: () => new Promise<never>(() => {}),
    });
    try {
      const started = Date.now();
      const triggered = await asCounselor(session, "/sos");
      expect(triggered.status).toBe(202);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(await outboxSize(session.session_id)).toBe(1);
    } finally {
      await restore();
    }
  });
});
