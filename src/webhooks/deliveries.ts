// Delivery records in D1, written only by the queue consumer (one batch of statements per queue batch) and
// listed by GET /v1/platforms/{id}/webhook/deliveries.
//
// Why D1 and not a per-platform Durable Object: these writes are off the session path (a slow or busy D1
// delays a record, never an SOS), they come batched (one D1 call per queue batch, not per event), the
// list is a plain indexed query per platform, and the admin side already lives in D1. D1's one writer
// bounds how many delivery records the service writes a second, not how many sessions it serves.

import { WEBHOOK_LIMITS } from "../../lib/config.ts";
import type { DeliveryStatus, WebhookEvent, WebhookEventType } from "../../sdk/src/protocol.ts";

/** The outcome of one consumer pass over one event. */
export interface DeliveryOutcome {
  event: WebhookEvent;
  status: DeliveryStatus;
  /** HTTP requests this pass made: 1, or 0 when the event was held back or dropped without one. */
  tries: number;
  statusCode: number | null;
  error: string | null;
  at: number;
  /** When the next try is due (pending only). */
  nextAttemptAt: number | null;
}

/** One row of `GET .../webhook/deliveries`. */
export interface DeliveryRecord {
  event_id: string;
  type: WebhookEventType;
  session_id: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  event_created_at: string;
  first_attempt_at: string;
  last_attempt_at: string;
  next_attempt_at: string | null;
}

/**
 * Writes the outcomes of a batch, and prunes records past their retention, in one D1 call. A delivered
 * record stays delivered: a duplicate of the message (at-least-once) cannot turn it back to pending.
 */
export async function recordDeliveries(
  db: D1Database,
  outcomes: readonly DeliveryOutcome[],
  now: number,
): Promise<void> {
  if (outcomes.length === 0) return;
  const statements = outcomes.map((o) =>
    db
      .prepare(
        `INSERT INTO webhook_deliveries (event_id, platform_id, session_id, type, event_created_at, status, attempts,
           last_status_code, last_error, first_attempt_at, last_attempt_at, next_attempt_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (event_id) DO UPDATE SET
           status = CASE WHEN webhook_deliveries.status = 'delivered' THEN 'delivered' ELSE excluded.status END,
           attempts = webhook_deliveries.attempts + excluded.attempts,
           last_status_code = CASE WHEN excluded.attempts > 0 THEN excluded.last_status_code ELSE webhook_deliveries.last_status_code END,
           last_error = excluded.last_error,
           last_attempt_at = CASE WHEN excluded.attempts > 0 THEN excluded.last_attempt_at ELSE webhook_deliveries.last_attempt_at END,
           next_attempt_at = excluded.next_attempt_at`,
      )
      .bind(
        o.event.id,
        o.event.platform_id,
        o.event.session_id,
        o.event.type,
        o.event.created_at,
        o.status,
        o.tries,
        o.statusCode,
        o.error,
        new Date(o.at).toISOString(),
        new Date(o.at).toISOString(),
        o.nextAttemptAt === null ? null : new Date(o.nextAttemptAt).toISOString(),
      ),
  );
  statements.push(
    db
      .prepare("DELETE FROM webhook_deliveries WHERE last_attempt_at < ?")
      .bind(new Date(now - WEBHOOK_LIMITS.deliveryRetentionMs).toISOString()),
  );
  await db.batch(statements);
}

/** Marks events the queue gave up on (its dead-letter queue) as failed, if they were not delivered. */
export async function recordDeadLetters(
  db: D1Database,
  events: readonly WebhookEvent[],
  now: number,
): Promise<void> {
  if (events.length === 0) return;
  const at = new Date(now).toISOString();
  await db.batch(
    events.map((event) =>
      db
        .prepare(
          `INSERT INTO webhook_deliveries (event_id, platform_id, session_id, type, event_created_at, status, attempts,
             last_status_code, last_error, first_attempt_at, last_attempt_at, next_attempt_at)
           VALUES (?, ?, ?, ?, ?, 'failed', 0, NULL, ?, ?, ?, NULL)
           ON CONFLICT (event_id) DO UPDATE SET
             status = CASE WHEN webhook_deliveries.status = 'delivered' THEN 'delivered' ELSE 'failed' END,
             last_error = CASE WHEN webhook_deliveries.status = 'delivered' THEN webhook_deliveries.last_error ELSE excluded.last_error END,
             next_attempt_at = NULL`,
        )
        .bind(
          event.id,
          event.platform_id,
          event.session_id,
          event.type,
          event.created_at,
          "the queue gave up on this event (dead-letter queue)",
          at,
          at,
        ),
    ),
  );
}

/** A platform's most recent deliveries, newest event first. */
export async function listDeliveries(
  db: D1Database,
  platformId: string,
  options: { limit: number; status?: DeliveryStatus; sessionId?: string },
): Promise<DeliveryRecord[]> {
  const filters = ["platform_id = ?"];
  const values: (string | number)[] = [platformId];
  if (options.status) {
    filters.push("status = ?");
    values.push(options.status);
  }
  if (options.sessionId) {
    filters.push("session_id = ?");
    values.push(options.sessionId);
  }
  values.push(options.limit);
  const { results } = await db
    .prepare(
      `SELECT event_id, type, session_id, status, attempts, last_status_code, last_error, event_created_at,
         first_attempt_at, last_attempt_at, next_attempt_at
       FROM webhook_deliveries WHERE ${filters.join(" AND ")}
       ORDER BY event_created_at DESC, event_id DESC LIMIT ?`,
    )
    .bind(...values)
    .all<DeliveryRecord>();
  return results;
}
