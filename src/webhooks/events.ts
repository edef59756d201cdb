// The webhook events on their way: the queue message that carries one, the draft a session hands its
// outbox, new ids. The events themselves (types, envelope, data) are wire shapes: sdk/src/protocol.ts.
import {
  type PsapResultsBody,
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

/** The `session.psaps_delivered` data of a lookup result: ids, names and numbers, the area in words. */
export function psapsDeliveredData(result: PsapResultsBody): WebhookEventData["session.psaps_delivered"] {
  return {
    result_id: result.result_id,
    psaps: result.psaps.map((psap) => ({ id: psap.id, name: psap.name, phone: psap.phone })),
    area: {
      country: result.area.country,
      state: result.area.state,
      county: result.area.county,
      place: result.area.place,
      place_kind: result.area.place_kind,
    },
    data_version: result.data_version,
    reason: result.reason ?? null,
  };
}
