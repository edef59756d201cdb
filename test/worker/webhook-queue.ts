// The queue consumer driven by hand: fake batches whose ack/retry calls are kept (the plugin's
// createMessageBatch drops retry's delaySeconds, which matters here) and a recording queue for the events
// the consumer puts back, so tests decide when each message comes back instead of waiting for it.
import { env } from "cloudflare:workers";
import { WEBHOOK_LIMITS } from "../../lib/config.ts";
import type { WebhookEvent } from "../../sdk/src/protocol.ts";
import worker from "../../src/index.ts";
import type { WebhookQueueMessage } from "../../src/webhooks/events.ts";
import type { TestPlatform } from "./helpers.ts";

export const SESSION_A = "0b8f2a36-6a3e-4c1e-9d3f-2f5a1c9e7b10";
export const SESSION_B = "5d7c4e21-1f0a-4b8e-a6c2-9e3b7d1f4a22";

let eventCounter = 0;

export function event(platform: TestPlatform, overrides: Partial<WebhookEvent> = {}): WebhookEvent {
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

export interface Delivery {
  event: WebhookEvent;
  seq?: number;
  /** The queue's own count of deliveries of this message (1 = first). */
  attempts?: number;
  /** Requests already made for the event, as a re-queued message carries it. */
  tries?: number;
}

/** The id consume() gives the message of `event` when it carries `tries`. */
export function msgId(event: WebhookEvent, tries = 0): string {
  return `msg-${event.id}-${tries}`;
}

export interface QueueResult {
  ackAll: boolean;
  retryAll: boolean;
  explicitAcks: string[];
  retryMessages: { msgId: string; delaySeconds: number | undefined }[];
  /** Events the consumer put back on the queue for a later try, with their delay. */
  requeued: { body: WebhookQueueMessage; delaySeconds: number | undefined }[];
}

/** A batch as the runtime hands it over, keeping what the consumer decided for each message. */
function fakeBatch(queue: string, bodies: { id: string; attempts: number; body: unknown }[]) {
  const result: QueueResult = {
    ackAll: false,
    retryAll: false,
    explicitAcks: [],
    retryMessages: [],
    requeued: [],
  };
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

export interface ConsumerOptions {
  /** Production's setting (false) or local development's (true, the test default). */
  allowLoopback?: boolean;
  /** A queue that refuses every send, for the fallback. */
  queueFails?: boolean;
}

export async function runConsumer(
  queue: string,
  bodies: { id: string; attempts: number; body: unknown }[],
  options: ConsumerOptions = {},
) {
  const { batch, result } = fakeBatch(queue, bodies);
  const retryQueue = {
    send: async (body: WebhookQueueMessage, sendOptions?: QueueSendOptions) => {
      if (options.queueFails) throw new Error("queue unavailable");
      result.requeued.push({ body, delaySeconds: sendOptions?.delaySeconds });
    },
  };
  const consumerEnv = {
    ...env,
    WEBHOOK_QUEUE: retryQueue as unknown as typeof env.WEBHOOK_QUEUE,
    WEBHOOK_ALLOW_LOOPBACK_HTTP: options.allowLoopback === false ? "false" : env.WEBHOOK_ALLOW_LOOPBACK_HTTP,
  };
  await worker.queue(batch, consumerEnv);
  return result;
}

export function consume(
  deliveries: Delivery[],
  queue: string = WEBHOOK_LIMITS.queue,
  options: ConsumerOptions = {},
): Promise<QueueResult> {
  return runConsumer(
    queue,
    deliveries.map((d, i) => ({
      id: `msg-${d.event.id}-${d.tries ?? 0}`,
      attempts: d.attempts ?? 1,
      body: {
        seq: d.seq ?? i + 1,
        event: d.event,
        ...(d.tries === undefined ? {} : { tries: d.tries }),
      } satisfies WebhookQueueMessage,
    })),
    options,
  );
}

interface Waiting {
  id: string;
  /** Virtual ms (from the start) when the message is due. */
  dueAt: number;
  attempts: number;
  body: WebhookQueueMessage;
}

/**
 * The webhook queue in virtual time: messages wait until due, come in batches as the real queue hands
 * them over (at most `max_batch_size` 10, gathered over `max_batch_timeout` 1 s), and the consumer's
 * clock (Date.now) reads the virtual time. The consumer's re-queued events and retried messages come
 * back at their due time. Nothing waits for a wall clock: each step runs the next batch that falls due.
 */
export class VirtualQueue {
  readonly #start = Date.now();
  readonly #waiting: Waiting[] = [];
  #nextId = 0;
  /** Virtual ms since the start. */
  now = 0;

  /** An event of the session object, sent at virtual time `at` (ms). */
  publish(body: WebhookQueueMessage, at: number): void {
    this.#waiting.push({ id: `v${this.#nextId++}`, dueAt: at, attempts: 1, body });
  }

  /** Runs batches as they fall due until nothing waits or `untilMs` passes; the batches' results. */
  async run(untilMs: number): Promise<QueueResult[]> {
    const results: QueueResult[] = [];
    for (;;) {
      this.#waiting.sort((a, b) => a.dueAt - b.dueAt);
      const first = this.#waiting[0];
      if (!first || first.dueAt > untilMs) return results;
      this.now = Math.max(this.now, first.dueAt + 1_000);
      const batch = this.#waiting.filter((w) => w.dueAt <= this.now).slice(0, 10);
      for (const taken of batch) this.#waiting.splice(this.#waiting.indexOf(taken), 1);
      const realNow = Date.now;
      const offset = this.#start + this.now - realNow();
      Date.now = () => realNow() + offset;
      let result: QueueResult;
      try {
        result = await runConsumer(
          WEBHOOK_LIMITS.queue,
          batch.map((w) => ({ id: w.id, attempts: w.attempts, body: w.body })),
        );
      } finally {
        Date.now = realNow;
      }
      results.push(result);
      for (const { body, delaySeconds } of result.requeued) {
        this.#waiting.push({
          id: `v${this.#nextId++}`,
          dueAt: this.now + (delaySeconds ?? 0) * 1000,
          attempts: 1,
          body,
        });
      }
      for (const { msgId: id, delaySeconds } of result.retryMessages) {
        const old = batch.find((w) => w.id === id);
        if (old)
          this.#waiting.push({
            ...old,
            attempts: old.attempts + 1,
            dueAt: this.now + (delaySeconds ?? 0) * 1000,
          });
      }
    }
  }

  /** The virtual time as the wall clock the consumer read (ms since the epoch). */
  wallClock(virtualMs: number): number {
    return this.#start + virtualMs;
  }
}
