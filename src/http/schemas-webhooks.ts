// Zod schemas of the webhook routes (admin settings, the platform's delivery list): they validate and describe.
import { z } from "@hono/zod-openapi";
import { WEBHOOK_LIMITS } from "../config.ts";
import { WEBHOOK_EVENT_TYPES } from "../webhooks/events.ts";

const isoTimestamp = z.string().openapi({ format: "date-time", example: "2026-11-22T15:00:00.000Z" });
const eventType = z.enum(WEBHOOK_EVENT_TYPES);

export const WebhookRequest = z
  .strictObject({
    url: z.string().min(1, "url must not be empty").max(WEBHOOK_LIMITS.maxUrlLength).openapi({
      example: "https://platform.example.com/hooks/sos",
      description: "https (plain http only to a loopback host, and only in local development)",
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
  .openapi("Webhook");

export const RotateSecretResponse = z
  .object({
    secret: z.string().openapi({
      description: "The new signing secret, shown once; the previous one also signs for 24 h",
    }),
  })
  .openapi("WebhookSecret");

export const DeliveriesQuery = z.object({
  limit: z
    .string()
    .regex(/^\d{1,4}$/, "limit must be a whole number")
    .transform(Number)
    .pipe(
      z
        .number()
        .min(1, "limit must be at least 1")
        .max(
          WEBHOOK_LIMITS.maxDeliveriesPageSize,
          `limit must be at most ${WEBHOOK_LIMITS.maxDeliveriesPageSize}`,
        ),
    )
    .optional()
    .openapi({
      param: { name: "limit", in: "query" },
      description: `deliveries to return, newest event first (default ${WEBHOOK_LIMITS.defaultDeliveriesPageSize}, at most ${WEBHOOK_LIMITS.maxDeliveriesPageSize})`,
      example: "50",
    }),
  status: z
    .enum(["pending", "delivered", "failed"])
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
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
        status: z.enum(["pending", "delivered", "failed"]),
        attempts: z.number().int().openapi({ description: "HTTP requests made so far" }),
        last_status_code: z.number().int().nullable().openapi({ description: "null: no answer" }),
        last_error: z.string().nullable(),
        event_created_at: isoTimestamp,
        first_attempt_at: isoTimestamp,
        last_attempt_at: isoTimestamp,
        next_attempt_at: isoTimestamp.nullable(),
      }),
    ),
  })
  .openapi("WebhookDeliveries");
