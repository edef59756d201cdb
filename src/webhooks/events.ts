// The webhook events a platform receives: their types, the envelope, and the queue message that carries one.
// Built from identifiers, times, reasons and PSAP names only: a coordinate or the address on file has no field here.
import type { PsapArea, PsapEmptyReason, PsapResultsBody } from "../../sdk/src/protocol.ts";

export const WEBHOOK_EVENT_TYPES = [
  "session.created",
  "session.sos_triggered",
  "session.sos_cancelled",
  "session.location_unavailable",
  "session.psaps_delivered",
  "session.ended",
  "session.expired",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A PSAP as a webhook names it: who to call, nothing about where it or the patient is. */
export interface WebhookPsap {
  id: string;
  name: string;
  phone: string | null;
}

/** The `data` of each type. */
export interface WebhookEventData {
  "session.created": { meeting_id: string; expires_at: string };
  "session.sos_triggered": { sos_started_at: string; repeat: boolean };
  "session.sos_cancelled": { expires_at: string };
  "session.location_unavailable": {
    reason: "permission_denied" | "position_unavailable" | "timeout" | "lookup_failed";
  };
  "session.psaps_delivered": {
    result_id: string;
    psaps: WebhookPsap[];
    area: PsapArea;
    data_version: string;
    reason: PsapEmptyReason | null;
  };
  "session.ended": { ended_at: string };
  "session.expired": { expired_at: string };
}

/** One event as the platform receives it (the request body). */
export type WebhookEvent = {
  [T in WebhookEventType]: {
    id: string;
    type: T;
    created_at: string;
    platform_id: string;
    session_id: string;
    data: WebhookEventData[T];
  };
}[WebhookEventType];

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
