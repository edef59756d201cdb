// The producer, inside the session object: each event is written to an outbox table in the same storage
// commit as the session change, then sent to the queue in the background, a moment later, with any
// events that came meanwhile. So a session call never waits for the queue and never fails because of
// it, and an event the queue refused is sent again later (on the session's next event, the object's
// next wake, or the retry alarm the object sets when told of the failure) instead of being lost.
//
// Only events the platform's webhook takes go to the queue: the outbox reads the webhook (one D1 read a
// send) and applies the consumer's own rule, so a platform without a webhook costs no queue send, no
// consumer run and no delivery work. When the webhook cannot be read, every event goes, and the
// consumer decides as before: nothing is dropped that it would have delivered.

import { WEBHOOK_LIMITS } from "../../lib/config.ts";
import type { WebhookEvent } from "../../sdk/src/protocol.ts";
import { errorName } from "../error-name.ts";
import { withTimeout } from "../timeout.ts";
import { newEventId, type WebhookEventDraft, type WebhookQueueMessage } from "./events.ts";
import { takesEvent, webhookTargets } from "./store.ts";

type OutboxRow = {
  seq: number;
  body: string;
};

export class WebhookOutbox {
  readonly #ctx: DurableObjectState;
  /** Read at each send (not kept), so the binding in use is always the object's current one. */
  readonly #queue: () => Queue<WebhookQueueMessage> | undefined;
  /** Where the platforms' webhooks are (read at each send, like the queue). */
  readonly #webhooks: () => D1Database | undefined;
  /** Told when a send failed and events still wait: the object sets its alarm for `retryAt`. */
  readonly #onSendFailed: () => void;
  #flushing = false;
  /** When to send again after a failed send (in memory: a wake sends the outbox anyway). */
  #retryAt: number | null = null;

  constructor(
    ctx: DurableObjectState,
    bindings: {
      queue: () => Queue<WebhookQueueMessage> | undefined;
      webhooks: () => D1Database | undefined;
    },
    onSendFailed: () => void,
  ) {
    this.#ctx = ctx;
    this.#queue = bindings.queue;
    this.#webhooks = bindings.webhooks;
    this.#onSendFailed = onSendFailed;
    // AUTOINCREMENT: a seq is never reused, so it orders a session's events even after rows are sent and deleted.
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS webhook_outbox (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      body TEXT NOT NULL
    )`);
  }

  /** Records the event for delivery and starts sending it; never throws (a failure is logged by name). */
  publish(session: { session_id: string; platform_id: string }, draft: WebhookEventDraft): void {
    try {
      const event = {
        id: newEventId(),
        type: draft.type,
        created_at: new Date(draft.at).toISOString(),
        platform_id: session.platform_id,
        session_id: session.session_id,
        data: draft.data,
      } as WebhookEvent;
      this.#ctx.storage.sql.exec("INSERT INTO webhook_outbox (body) VALUES (?)", JSON.stringify(event));
    } catch (error) {
      logFailure("writing a webhook event to the outbox", error);
      return;
    }
    this.flush();
  }

  /**
   * Sends whatever the outbox holds, in the background (the caller's answer does not wait for it), after
   * `outboxFlushDelayMs`: events written meanwhile go in the same send.
   */
  flush(): void {
    const queue = this.#queue();
    if (this.#flushing || !queue) return;
    this.#flushing = true;
    this.#ctx.waitUntil(
      new Promise((resolve) => setTimeout(resolve, WEBHOOK_LIMITS.outboxFlushDelayMs)).then(() =>
        this.#drain(queue),
      ),
    );
  }

  /** When a failed send is to be tried again (null: none failed since the last `retryDue`). */
  get retryAt(): number | null {
    return this.#retryAt;
  }

  /** The retry time came (the alarm fired): the caller flushes now, and a failed send sets it again. */
  retryDue(): void {
    this.#retryAt = null;
  }

  /** Whether events wait to be sent (after a failed send, or an eviction mid-send). */
  hasPending(): boolean {
    try {
      return this.#ctx.storage.sql.exec("SELECT 1 FROM webhook_outbox LIMIT 1").toArray().length > 0;
    } catch (error) {
      // A purged object (deleteAll) has no table left, and nothing to send.
      logFailure("reading the outbox", error);
      return false;
    }
  }

  async #drain(queue: Queue<WebhookQueueMessage>): Promise<void> {
    try {
      // Rows written while a send is under way are picked up by the next round.
      for (;;) {
        const rows = this.#ctx.storage.sql
          .exec<OutboxRow>(
            "SELECT seq, body FROM webhook_outbox ORDER BY seq LIMIT ?",
            WEBHOOK_LIMITS.outboxBatchSize,
          )
          .toArray();
        const last = rows.at(-1);
        if (!last) return;
        const taken = await this.#taken(
          rows.map((row) => ({ seq: row.seq, event: JSON.parse(row.body) as WebhookEvent })),
        );
        if (taken.length > 0) {
          const sent = queue.sendBatch(taken.map((body) => ({ body, contentType: "json" as const })));
          // A send that hangs must not hold the outbox forever: it counts as failed (and goes again later).
          await withTimeout(sent, WEBHOOK_LIMITS.queueSendTimeoutMs, () => {
            throw new QueueSendTimeoutError();
          });
        }
        this.#ctx.storage.sql.exec("DELETE FROM webhook_outbox WHERE seq <= ?", last.seq);
      }
    } catch (error) {
      // Kept in the outbox: the retry alarm (or an earlier event or wake) sends it again. Logged by name
      // only, never the payload.
      logFailure("sending webhook events to the queue", error);
      this.#retryAt = Date.now() + WEBHOOK_LIMITS.outboxRetryMs;
      try {
        this.#onSendFailed();
      } catch (callbackError) {
        logFailure("scheduling the outbox retry", callbackError);
      }
    } finally {
      this.#flushing = false;
    }
  }

  /**
   * The events the platform's webhook takes now (the consumer's rule): none without a webhook. All of
   * them when the webhook cannot be read in time, for the consumer to decide.
   */
  async #taken(messages: WebhookQueueMessage[]): Promise<WebhookQueueMessage[]> {
    const db = this.#webhooks();
    if (!db) return messages;
    const platforms = [...new Set(messages.map((m) => m.event.platform_id))];
    try {
      const read = webhookTargets(db, platforms, Date.now());
      const targets = await withTimeout(read, WEBHOOK_LIMITS.webhookReadTimeoutMs, () => {
        throw new WebhookReadTimeoutError();
      });
      return messages.filter((m) => {
        const target = targets.get(m.event.platform_id);
        return target !== undefined && takesEvent(target, m.event);
      });
    } catch (error) {
      logFailure("reading the webhook before sending", error);
      return messages;
    }
  }
}

class WebhookReadTimeoutError extends Error {
  override name = "WebhookReadTimeoutError";
}

class QueueSendTimeoutError extends Error {
  override name = "QueueSendTimeoutError";
}

function logFailure(what: string, error: unknown): void {
  console.error(`session object: ${what} failed: ${errorName(error)}`);
}
