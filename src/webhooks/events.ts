// The webhook events on their way: the queue message that carries one, the draft a session hands its
// outbox, new ids. The events themselves (types, envelope, data) are wire shapes: sdk/src/protocol.ts.
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
  type WebhookEventData,
  type WebhookEventType,
} from "../../sdk/src/protocol.ts";

/** What the session object puts on the queue: the event, and its place in the session's order. */
export interface WebhookQueueMessage {
  /** Increases with every event of one session: the consumer delivers a batch in this order. */
  seq: number;
  event: WebhookEvent;
  /**
   * Requests already made for this event (absent: none). The consumer puts a failed event back on the
   * queue with this count, so each event runs on its own schedule, whatever happened to its neighbours.
   */
  tries?: number;
}

/** A session's event before it has an id and a place: what the session object hands the outbox. */
export type WebhookEventDraft = {
  [T in WebhookEventType]: { type: T; at: number; data: WebhookEventData[T] };
}[WebhookEventType];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

/** `evt_` and 32 random hex digits (a UUID v4 without its dashes): unique, and opaque to the platform. */
export function newEventId(): string {
  return `evt_${crypto.randomUUID().replaceAll("-", "")}`;
}
