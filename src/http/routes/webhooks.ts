// Webhook routes: the admin sets, rotates and removes a platform's webhook; the platform lists its deliveries.
// The document also describes what the service sends to the webhook (its `webhooks` entry).
import { createRoute } from "@hono/zod-openapi";
import { WEBHOOK_LIMITS } from "../../../lib/config.ts";
import { fieldProblem, ProblemError, problem } from "../../problem.ts";
import { listDeliveries } from "../../webhooks/deliveries.ts";
import { deleteWebhook, hasWebhook, putWebhook, rotateWebhookSecret } from "../../webhooks/store.ts";
import { checkWebhookUrl } from "../../webhooks/url.ts";
import { requireAdmin, requireApiKey } from "../auth.ts";
import { readJsonBody, readNoBody, validate } from "../body.ts";
import { knownPlatform, noSuchPlatform } from "../known-platform.ts";
import { type App, errors, json, needs, noBody, platformParams, route, serve } from "../route.ts";
import {
  DeliveriesQuery,
  DeliveriesResponse,
  RotateSecretResponse,
  WebhookEvent,
  WebhookHeaders,
  WebhookRequest,
  WebhookResponse,
} from "../schemas-webhooks.ts";

export function mountWebhookRoutes(app: App): void {
  serve(app, putWebhookRoute, deleteWebhookRoute, rotateSecretRoute, deliveriesRoute);
  app.openAPIRegistry.registerWebhook(SESSION_EVENT_WEBHOOK);
}

const putWebhookRoute = route(
  createRoute({
    method: "put",
    path: "/v1/admin/platforms/{platformId}/webhook",
    tags: ["Admin"],
    summary: "Set the platform's webhook (URL and event types); applies to events created after the answer",
    security: needs("AdminToken"),
    middleware: requireAdmin(),
    request: { params: platformParams, body: { content: json(WebhookRequest), required: true } },
    responses: {
      200: {
        description:
          "Set; `secret` is shown when the webhook is created, null on a later PUT (which keeps it)",
        content: json(WebhookResponse),
      },
      ...errors(400, 401, 404, 413, 415),
    },
  }),
  async (c) => {
    const body = await readJsonBody(c.req.raw, WebhookRequest);
    const platformId = await knownPlatform(c);
    if (!body.ok) throw new ProblemError(body.problem);
    const url = checkWebhookUrl(body.value.url, c.env.WEBHOOK_ALLOW_LOOPBACK_HTTP === "true");
    if (!url.ok) throw new ProblemError(fieldProblem("url", url.message));
    const events = body.value.events ? [...new Set(body.value.events)] : null;
    const settings = await putWebhook(c.env.DB, platformId, url.url, events);
    if (!settings) throw noSuchPlatform();
    return c.json(settings);
  },
);

const deleteWebhookRoute = route(
  createRoute({
    method: "delete",
    path: "/v1/admin/platforms/{platformId}/webhook",
    tags: ["Admin"],
    summary: "Remove the platform's webhook: no event created after the answer is delivered",
    security: needs("AdminToken"),
    middleware: requireAdmin(),
    request: { params: platformParams, body: noBody },
    responses: { 204: { description: "Removed (or there was none)" }, ...errors(400, 401, 404, 413, 415) },
  }),
  async (c) => {
    const body = await readNoBody(c.req.raw);
    const platformId = await knownPlatform(c);
    if (!body.ok) throw new ProblemError(body.problem);
    await deleteWebhook(c.env.DB, platformId);
    return c.body(null, 204);
  },
);

const rotateSecretRoute = route(
  createRoute({
    method: "post",
    path: "/v1/admin/platforms/{platformId}/webhook/rotate-secret",
    tags: ["Admin"],
    summary: "Issue a new signing secret; deliveries carry both signatures for 24 h",
    security: needs("AdminToken"),
    middleware: requireAdmin(),
    request: { params: platformParams, body: noBody },
    responses: {
      200: { description: "The new secret, shown once", content: json(RotateSecretResponse) },
      ...errors(400, 401, 404, 413, 415),
    },
  }),
  async (c) => {
    const body = await readNoBody(c.req.raw);
    const platformId = await knownPlatform(c);
    if (!body.ok) {
      if (!(await hasWebhook(c.env.DB, platformId))) throw noWebhook();
      throw new ProblemError(body.problem);
    }
    const secret = await rotateWebhookSecret(c.env.DB, platformId);
    if (!secret) throw noWebhook();
    return c.json({ secret });
  },
);

const deliveriesRoute = route(
  createRoute({
    method: "get",
    path: "/v1/platforms/{platformId}/webhook/deliveries",
    tags: ["Platform"],
    summary: "Recent webhook deliveries of the platform's events, newest first",
    security: needs("ApiKey"),
    middleware: requireApiKey(),
    request: { params: platformParams, query: DeliveriesQuery },
    responses: {
      200: { description: "Deliveries", content: json(DeliveriesResponse) },
      ...errors(400, 401, 403, 429),
    },
  }),
  async (c) => {
    const query = validate(DeliveriesQuery, c.req.query());
    if (!query.ok) throw new ProblemError(query.problem);
    const deliveries = await listDeliveries(c.env.DB, c.get("apiKey").platformId, {
      limit: query.value.limit ?? WEBHOOK_LIMITS.defaultDeliveriesPageSize,
      status: query.value.status,
      sessionId: query.value.session_id,
    });
    return c.json({ deliveries });
  },
);

/** What the service sends to a platform's webhook: the document's `webhooks` entry. */
const SESSION_EVENT_WEBHOOK = {
  method: "post" as const,
  path: "sessionEvent",
  tags: ["Webhooks"],
  summary: "A session event, signed per Standard Webhooks; any 2xx within 10 s acknowledges it",
  request: { headers: WebhookHeaders, body: { content: json(WebhookEvent), required: true } },
  responses: {
    200: {
      description:
        "Any 2xx acknowledges the event; anything else (a 3xx too) or no answer within 10 s is retried",
    },
  },
};

function noWebhook(): ProblemError {
  return new ProblemError(problem("not_found", "This platform has no webhook; set one first."));
}
