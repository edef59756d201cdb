// The queue consumer: delivers each batch oldest first per session, retries each failed event on its own
// schedule, records outcomes.
//
// Retries are counted per event: a failed event goes back on the queue as a new message carrying its own
// count of tries (not `message.retry()`, whose count the queue also moves for reasons that are not tries:
// a batch retried whole, a consumer that crashed). No event waits behind another: an event that failed
// does not hold back the session's later ones, so an outage costs each event only its own tries, and a
// receiver that refuses each event's first request gets every event on its first retry. Order is kept as
// far as that costs no event its schedule: a session's events in a batch go oldest first, one after the
// other, and events that failed together come back together and go oldest first again.

import { WEBHOOK_LIMITS } from "../../lib/config.ts";
import type { WebhookEvent } from "../../sdk/src/protocol.ts";
import type { Env } from "../env.ts";
import { errorName } from "../error-name.ts";
import { attemptDelivery } from "./attempt.ts";
import { type DeliveryOutcome, recordDeadLetters, recordDeliveries } from "./deliveries.ts";
import { isWebhookEventType, type WebhookQueueMessage } from "./events.ts";
import { retryDelaySeconds } from "./retry-schedule.ts";
import { takesEvent, type WebhookTarget, webhookTargets } from "./store.ts";
import { checkWebhookUrl } from "./url.ts";

/** Seconds before a batch is tried again when the webhooks themselves could not be read (D1 unavailable). */
const SETTINGS_UNREADABLE_DELAY_S = 10;

type Delivery = { message: Message<unknown>; body: WebhookQueueMessage };

/** Where a failed event goes back for its next try. */
type RetryQueue = Pick<Queue<WebhookQueueMessage>, "send">;

export async function consumeWebhookBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  if (batch.queue === WEBHOOK_LIMITS.deadLetterQueue) {
    await consumeDeadLetters(batch, env);
    return;
  }
  const now = Date.now();
  const bySession = new Map<string, Delivery[]>();
  for (const message of batch.messages) {
    const body = parseQueueMessage(message.body);
    if (!body) {
      // Nothing we could ever deliver: drop it rather than retry it forever.
      console.error("webhook consumer: dropped a message that is not a webhook event");
      message.ack();
      continue;
    }
    const list = bySession.get(body.event.session_id) ?? [];
    list.push({ message, body });
    bySession.set(body.event.session_id, list);
  }
  const platforms = [
    ...new Set([...bySession.values()].flatMap((list) => list.map((m) => m.body.event.platform_id))),
  ];
  let targets: Map<string, WebhookTarget>;
  try {
    targets = await webhookTargets(env.DB, platforms, now);
  } catch (error) {
    logFailure("reading the webhooks", error);
    batch.retryAll({ delaySeconds: SETTINGS_UNREADABLE_DELAY_S });
    return;
  }
  const context: DeliveryContext = {
    targets,
    queue: env.WEBHOOK_QUEUE,
    allowLoopback: env.WEBHOOK_ALLOW_LOOPBACK_HTTP === "true",
  };
  // Sessions side by side (one slow receiver does not hold up the others); each session's events in order.
  const outcomes = await Promise.all(
    [...bySession.values()].map((list) =>
      deliverInOrder(
        list.sort((a, b) => a.body.seq - b.body.seq),
        context,
      ),
    ),
  );
  try {
    await recordDeliveries(env.DB, outcomes.flat(), Date.now());
  } catch (error) {
    // The deliveries happened: retrying them for a record would send them twice.
    logFailure("recording deliveries", error);
  }
}

interface DeliveryContext {
  targets: ReadonlyMap<string, WebhookTarget>;
  queue: RetryQueue;
  allowLoopback: boolean;
}

/** One session's events of this batch, oldest first, each tried once now. */
async function deliverInOrder(
  list: readonly Delivery[],
  context: DeliveryContext,
): Promise<DeliveryOutcome[]> {
  const outcomes: DeliveryOutcome[] = [];
  for (const delivery of list) {
    const result = await deliverOne(delivery, context);
    if (result) outcomes.push(result);
  }
  return outcomes;
}

/** Tries one event (or ends it without a request); the outcome to record, or null when there is none. */
async function deliverOne(
  { message, body }: Delivery,
  context: DeliveryContext,
): Promise<DeliveryOutcome | null> {
  const { event } = body;
  const triedBefore = triesOf(body);
  const target = context.targets.get(event.platform_id);
  if (!target || !takesEvent(target, event)) {
    message.ack();
    // A retry whose webhook was removed (or no longer takes this type) since: its record ends as failed.
    return triedBefore > 0
      ? outcome(event, { status: "failed", tries: 0, error: "the webhook no longer takes this event" })
      : null;
  }
  // Checked again at every delivery: a URL stored before the rule (or before a change of it) is not reached.
  if (!checkWebhookUrl(target.url, context.allowLoopback).ok) {
    message.ack();
    return outcome(event, { status: "failed", tries: 0, error: "refused" });
  }
  const at = Date.now();
  const result = await attemptDelivery(target.url, event.id, JSON.stringify(event), target.secrets, at);
  if (result.ok) {
    message.ack();
    return outcome(event, { status: "delivered", tries: 1, statusCode: result.statusCode, at });
  }
  const tries = triedBefore + 1;
  const delay = retryDelaySeconds(tries);
  if (delay === null) {
    message.ack();
    return outcome(event, {
      status: "failed",
      tries: 1,
      statusCode: result.statusCode,
      error: result.error,
      at,
    });
  }
  await retryLater(message, { seq: body.seq, event, tries }, delay, context.queue);
  return outcome(event, {
    status: "pending",
    tries: 1,
    statusCode: result.statusCode,
    error: result.error,
    nextAttemptAt: at + delay * 1000,
    at,
  });
}

/**
 * Puts the event back on the queue with its count, `delaySeconds` from now, then lets the old message go.
 * If the queue refuses the send, the old message is retried instead: the same delay, but its count is
 * the old one, so that event may get one try more than its schedule (never one less).
 */
async function retryLater(
  message: Message<unknown>,
  next: WebhookQueueMessage,
  delaySeconds: number,
  queue: RetryQueue,
): Promise<void> {
  try {
    await queue.send(next, { contentType: "json", delaySeconds });
    message.ack();
  } catch (error) {
    logFailure("putting a failed event back on the queue", error);
    message.retry({ delaySeconds });
  }
}

/**
 * Tries already made: the count the message carries (none on a message as the session object sent it).
 * The queue's own count is not used: it also moves when a batch is retried whole (D1 unreadable) or a
 * consumer crashed, which are no tries; a crash loop ends at the queue's max_retries instead (then the
 * dead-letter queue records the event as failed).
 */
function triesOf(body: WebhookQueueMessage): number {
  return body.tries ?? 0;
}

/** What one pass did with an event: no answer, no error and no next try unless given; `at` is now unless given. */
function outcome(
  event: WebhookEvent,
  pass: Pick<DeliveryOutcome, "status" | "tries"> &
    Partial<Pick<DeliveryOutcome, "statusCode" | "error" | "nextAttemptAt" | "at">>,
): DeliveryOutcome {
  return { event, statusCode: null, error: null, nextAttemptAt: null, at: Date.now(), ...pass };
}

/** The queue gave up on these (the consumer failed as a whole too often): recorded as failed. */
async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const events = batch.messages.flatMap((message) => parseQueueMessage(message.body)?.event ?? []);
  try {
    await recordDeadLetters(env.DB, events, Date.now());
    batch.ackAll();
  } catch (error) {
    logFailure("recording dead letters", error);
    batch.retryAll({ delaySeconds: SETTINGS_UNREADABLE_DELAY_S });
  }
}

/** A queue message as the session object (or this consumer, for a retry) wrote it, or null. */
export function parseQueueMessage(value: unknown): WebhookQueueMessage | null {
  if (typeof value !== "object" || value === null) return null;
  const { seq, event, tries } = value as { seq?: unknown; event?: unknown; tries?: unknown };
  if (typeof seq !== "number" || typeof event !== "object" || event === null) return null;
  if (tries !== undefined && !(Number.isSafeInteger(tries) && (tries as number) >= 0)) return null;
  const e = event as Record<string, unknown>;
  const strings = [e.id, e.type, e.created_at, e.platform_id, e.session_id];
  if (!strings.every((v) => typeof v === "string")) return null;
  if (!isWebhookEventType(e.type as string) || typeof e.data !== "object" || e.data === null) return null;
  const message: WebhookQueueMessage = { seq, event: event as WebhookEvent };
  if (tries !== undefined) message.tries = tries as number;
  return message;
}

/** The kind of failure only: never a payload or a secret. */
function logFailure(what: string, error: unknown): void {
  console.error(`webhook consumer: ${what} failed: ${errorName(error)}`);
}
