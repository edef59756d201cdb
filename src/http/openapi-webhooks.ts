// The OpenAPI description of the webhook routes (registered with the others in openapi.ts).
import { createRoute } from "@hono/zod-openapi";
import { admin, errors, json, noBody, platformParams } from "./openapi-parts.ts";
import * as s from "./schemas-webhooks.ts";

export const WEBHOOK_ROUTES = [
  createRoute({
    method: "put",
    path: "/v1/admin/platforms/{platformId}/webhook",
    tags: ["Admin"],
    summary: "Set the platform's webhook (URL and event types); applies to events created after the answer",
    security: admin,
    request: { params: platformParams, body: { content: json(s.WebhookRequest), required: true } },
    responses: {
      200: {
        description:
          "Set; `secret` is shown when the webhook is created, null on a later PUT (which keeps it)",
        content: json(s.WebhookResponse),
      },
      ...errors(400, 401, 404, 413, 415),
    },
  }),
  createRoute({
    method: "delete",
    path: "/v1/admin/platforms/{platformId}/webhook",
    tags: ["Admin"],
    summary: "Remove the platform's webhook: no event created after the answer is delivered",
    security: admin,
    request: { params: platformParams, body: noBody },
    responses: { 204: { description: "Removed (or there was none)" }, ...errors(400, 401, 404, 413, 415) },
  }),
  createRoute({
    method: "post",
    path: "/v1/admin/platforms/{platformId}/webhook/rotate-secret",
    tags: ["Admin"],
    summary: "Issue a new signing secret; deliveries carry both signatures for 24 h",
    security: admin,
    request: { params: platformParams, body: noBody },
    responses: {
      200: { description: "The new secret, shown once", content: json(s.RotateSecretResponse) },
      ...errors(400, 401, 404, 413, 415),
    },
  }),
  createRoute({
    method: "get",
    path: "/v1/platforms/{platformId}/webhook/deliveries",
    tags: ["Platform"],
    summary: "Recent webhook deliveries of the platform's events, newest first",
    security: [{ ApiKey: [] }],
    request: { params: platformParams, query: s.DeliveriesQuery },
    responses: {
      200: { description: "Deliveries", content: json(s.DeliveriesResponse) },
      ...errors(400, 401, 403, 429),
    },
  }),
];

/** What the service sends to a platform's webhook: the document's `webhooks` entry. */
export const SESSION_EVENT_WEBHOOK = {
  method: "post" as const,
  path: "sessionEvent",
  tags: ["Webhooks"],
  summary: "A session event, signed per Standard Webhooks; any 2xx within 10 s acknowledges it",
  request: { headers: s.WebhookHeaders, body: { content: json(s.WebhookEvent), required: true } },
  responses: {
    200: {
      description:
        "Any 2xx acknowledges the event; anything else (a 3xx too) or no answer within 10 s is retried",
    },
  },
};
