// Zod schemas of the webhook routes (admin settings, the platform's delivery list) and of the events the
// service sends: they validate and describe. Every enum is a list of the protocol's; every response and
// each event's data is checked against the type it is built from.
import { z } from "@hono/zod-openapi";
import { WEBHOOK_LIMITS } from "../../lib/config.ts";
import {
  DELIVERY_STATUSES,
  HELD_RESPONSE_KINDS,
  LOCATION_UNAVAILABLE_REASONS,
  PSAP_EMPTY_REASONS,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventData,
  type WebhookEventType,
} from "../../sdk/src/protocol.ts";
import type { DeliveryRecord } from "../webhooks/deliveries.ts";
import type { WebhookSettings } from "../webhooks/store.ts";
import { isoTimestamp, queryInteger } from "./schema-parts.ts";
import { PsapArea } from "./schemas-psaps.ts";

const eventType = z.enum(WEBHOOK_EVENT_TYPES);
const deliveryStatus = z.enum(DELIVERY_STATUSES);

export const WebhookRequest = z
  .strictObject({
    url: z.string().min(1, "url must not be empty").max(WEBHOOK_LIMITS.maxUrlLength).openapi({
      example: "https://platform.example.com/hooks/sos",
      description:
        "https to a public destination: loopback, unspecified, private, shared, link-local, unique-local, multicast, documentation and reserved addresses are refused, however spelled (plain http, and loopback, only in local development)",
    }),
    events: z
      .array(eventType)
      .min(1, "events must name at least one type (leave it out for every type)")
      .max(WEBHOOK_EVENT_TYPES.length * 2)
      .optional()
      .openapi({ description: "the event types to deliver; left out: every type, including later ones" }),
  })
  .openapi("WebhookRequest");

export const WebhookResponse = z
  .object({
    url: z.string(),
    events: z.array(eventType).nullable().openapi({ description: "null: every type" }),
    secret: z.string().nullable().openapi({
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      description:
        "The signing secret, shown once: when the webhook is created. A later PUT keeps it and shows null (rotate-secret issues a new one).",
    }),
    updated_at: isoTimestamp,
  })
  .openapi("Webhook") satisfies z.ZodType<WebhookSettings>;

export const RotateSecretResponse = z
  .object({
    secret: z.string().openapi({
      description: "The new signing secret, shown once; the previous one also signs for 24 h",
    }),
  })
  .openapi("WebhookSecret");

export const DeliveriesQuery = z.object({
  limit: queryInteger("limit", 1, WEBHOOK_LIMITS.maxDeliveriesPageSize)
    .optional()
    .openapi({
      param: { name: "limit", in: "query" },
      description: `deliveries to return, newest event first (default ${WEBHOOK_LIMITS.defaultDeliveriesPageSize}, at most ${WEBHOOK_LIMITS.maxDeliveriesPageSize})`,
      example: "50",
    }),
  status: deliveryStatus.optional().openapi({ param: { name: "status", in: "query" } }),
  session_id: z
    .uuid("session_id must be a session id")
    .optional()
    .openapi({ param: { name: "session_id", in: "query" } }),
});

export const DeliveriesResponse = z
  .object({
    deliveries: z.array(
      z.object({
        event_id: z.string().openapi({ example: "evt_3f1c9a0e5b7d4c2a9e8f7a6b5c4d3e2f" }),
        type: eventType,
        session_id: z.uuid(),
        status: deliveryStatus,
        attempts: z.number().int().openapi({ description: "HTTP requests made so far" }),
        last_status_code: z.number().int().nullable().openapi({ description: "null: no answer" }),
        last_error: z.string().nullable().openapi({
          description:
            "Why the last try failed: refused (the URL guard), timeout, status N, tls or connection failed; never what the target answered. null once delivered.",
        }),
        event_created_at: isoTimestamp,
        first_attempt_at: isoTimestamp,
        last_attempt_at: isoTimestamp,
        next_attempt_at: isoTimestamp.nullable(),
      }) satisfies z.ZodType<DeliveryRecord>,
    ),
  })
  .openapi("WebhookDeliveries");

// ---------------------------------------------------------------------------
// What the service sends (the OpenAPI document's `webhooks`): one schema per event type.

/** Each type's `data`: what the session object publishes for it (session/facts.ts), no more. */
const EVENT_DATA = {
  "session.created": z.object({ meeting_id: z.string(), expires_at: isoTimestamp }),
  "session.sos_triggered": z.object({ sos_started_at: isoTimestamp, repeat: z.boolean() }),
  "session.sos_cancelled": z.object({ expires_at: isoTimestamp }),
  "session.location_unavailable": z.object({
    reason: z.enum([...LOCATION_UNAVAILABLE_REASONS, "lookup_failed"]),
  }),
  "session.psaps_delivered": z.object({
    result_id: z.uuid(),
    psaps: z.array(z.object({ id: z.string(), name: z.string(), phone: z.string().nullable() })),
    area: PsapArea,
    data_version: z.string(),
    reason: z.enum(PSAP_EMPTY_REASONS).nullable(),
  }),
  "session.location_checked": z.object({
    outcome: z.enum(["located", ...LOCATION_UNAVAILABLE_REASONS]),
    country: z.string().nullable().openapi({ description: "ISO 3166-1 alpha-2; null without a fix" }),
    state: z.string().nullable().openapi({ description: "US state or territory code; null without one" }),
  }),
  "session.location_dereferenced": z.object({
    uri_id: z
      .string()
      .openapi({ description: "The location URI's id (luri_...), as its creation was audited" }),
    response: z.enum(HELD_RESPONSE_KINDS).openapi({
      description: "`location`: the fix was given; else the HELD error answered (never a coordinate)",
    }),
  }),
  "session.ended": z.object({ ended_at: isoTimestamp }),
  "session.expired": z.object({ expired_at: isoTimestamp }),
} satisfies { [T in WebhookEventType]: z.ZodType<WebhookEventData[T]> };

const envelope = <T extends WebhookEventType>(type: T) =>
  z.object({
    id: z
      .string()
      .openapi({ example: "evt_3f1c9a0e5b7d4c2a9e8f7a6b5c4d3e2f", description: "the same on every retry" }),
    type: z.literal(type),
    created_at: isoTimestamp,
    platform_id: z.string(),
    session_id: z.uuid(),
    data: EVENT_DATA[type],
  });

type Envelope = ReturnType<typeof envelope>;

export const WebhookEvent = z
  // One envelope per type, in the protocol's order (the list is not empty: a tuple's first element is there).
  .discriminatedUnion("type", WEBHOOK_EVENT_TYPES.map((type) => envelope(type)) as [Envelope, ...Envelope[]])
  .openapi("WebhookEvent", {
    description:
      "A session event as POSTed to the platform's webhook. Never holds a coordinate or the address on file.",
  });

export const WebhookHeaders = z.object({
  "webhook-id": z.string().openapi({ description: "the event's id" }),
  "webhook-timestamp": z.string().openapi({ description: "seconds since the epoch, fresh on every attempt" }),
  "webhook-signature": z.string().openapi({
    description:
      "v1,<base64 HMAC-SHA256 of {id}.{timestamp}.{body}> keyed with the base64-decoded secret after whsec_; several separated by spaces during a rotation",
  }),
});
