// The queue consumer: delivers each batch in order per session, retries failures on the schedule, records outcomes.
import { WEBHOOK_LIMITS, WEBHOOK_MAX_ATTEMPTS } from "../config.ts";
import type { Env } from "../env.ts";
import { attemptDelivery } from "./attempt.ts";
import { type DeliveryOutcome, recordDeadLetters, recordDeliveries } from "./deliveries.ts";
import { isWebhookEventType, type WebhookEvent, type WebhookQueueMessage } from "./events.ts";
import { retryDelaySeconds } from "./retry-schedule.ts";
import { takesEvent, type WebhookTarget, webhookTargets } from "./store.ts";

/** Seconds before a batch is tried again when the webhooks themselves could not be read (D1 unavailable). */
const SETTINGS_UNREADABLE_DELAY_S = 10;

export async function consumeWebhookBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  if (batch.queue === WEBHOOK_LIMITS.deadLetterQueue) {
    await consumeDeadLetters(batch, env);
    return;
  }
  const now = Date.now();
  const bySession = new Map<string, { message: Message<unknown>; body: WebhookQueueMessage }[]>();
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
  // Sessions side by side (one slow receiver does not hold up the others); each session's events in order.
  const outcomes = await Promise.all(
    [...bySession.values()].map((list) =>
      deliverInOrder(
        list.sort((a, b) => a.body.seq - b.body.seq),
        targets,
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

/**
 * One session's events of this batch, oldest first. Once one fails and is retried, the later ones are
 * retried with it (not delivered ahead of it): the platform sees the session's events in order, as far
 * as retries allow.
 */
async function deliverInOrder(
  list: readonly { message: Message<unknown>; body: WebhookQueueMessage }[],
  targets: ReadonlyMap<string, WebhookTarget>,
): Promise<DeliveryOutcome[]> {
  const outcomes: DeliveryOutcome[] = [];
  let heldBackDelay: number | null = null;
  for (const { message, body } of list) {
    const { event } = body;
    const target = targets.get(event.platform_id);
    if (!target || !takesEvent(target, event)) {
      message.ack();
      // A retry whose webhook was removed (or no longer takes this type) since: its record ends as failed.
      if (message.attempts > 1)
        outcomes.push(outcome(event, "failed", 0, null, "the webhook no longer takes this event", null));
      continue;
    }
    if (heldBackDelay !== null && message.attempts < WEBHOOK_MAX_ATTEMPTS) {
      message.retry({ delaySeconds: heldBackDelay });
      outcomes.push(
        outcome(
          event,
          "pending",
          0,
          null,
          "waiting for an earlier event of this session",
          Date.now() + heldBackDelay * 1000,
        ),
      );
      continue;
    }
    const at = Date.now();
    const result = await attemptDelivery(target.url, event.id, JSON.stringify(event), target.secrets, at);
    if (result.ok) {
      message.ack();
      outcomes.push(outcome(event, "delivered", 1, result.statusCode, null, null, at));
      continue;
    }
    const delay = retryDelaySeconds(message.attempts);
    if (delay === null) {
      message.ack();
      outcomes.push(outcome(event, "failed", 1, result.statusCode, result.error, null, at));
      continue;
    }
    message.retry({ delaySeconds: delay });
    heldBackDelay = delay;
    outcomes.push(outcome(event, "pending", 1, result.statusCode, result.error, at + delay * 1000, at));
  }
  return outcomes;
}

function outcome(
  event: WebhookEvent,
  status: DeliveryOutcome["status"],
  tries: number,
  statusCode: number | null,
  error: string | null,
  nextAttemptAt: number | null,
  at = Date.now(),
): DeliveryOutcome {
  return { event, status, tries, statusCode, error, nextAttemptAt, at };
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

/** A queue message as the session object wrote it, or null. */
export function parseQueueMessage(value: unknown): WebhookQueueMessage | null {
  if (typeof value !== "object" || value === null) return null;
  const { seq, event } = value as { seq?: unknown; event?: unknown };
  if (typeof seq !== "number" || typeof event !== "object" || event === null) return null;
  const e = event as Record<string, unknown>;
  const strings = [e.id, e.type, e.created_at, e.platform_id, e.session_id];
  if (!strings.every((v) => typeof v === "string")) return null;
  if (!isWebhookEventType(e.type as string) || typeof e.data !== "object" || e.data === null) return null;
  return { seq, event: event as WebhookEvent };
}

/** The kind of failure only: never a payload or a secret. */
function logFailure(what: string, error: unknown): void {
  const name = error instanceof Error ? error.name : typeof error;
  console.error(`webhook consumer: ${what} failed: ${name}`);
}
