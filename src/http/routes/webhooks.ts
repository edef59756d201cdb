// Webhook routes: the admin sets, rotates and removes a platform's webhook; the platform lists its deliveries.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { WEBHOOK_LIMITS } from "../../config.ts";
import { ProblemError, problem } from "../../problem.ts";
import { listDeliveries } from "../../webhooks/deliveries.ts";
import { deleteWebhook, hasWebhook, putWebhook, rotateWebhookSecret } from "../../webhooks/store.ts";
import { checkWebhookUrl } from "../../webhooks/url.ts";
import { requireAdmin, requireApiKey } from "../auth.ts";
import { readJsonBody, readNoBody, validate } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { knownPlatform, noSuchPlatform } from "../known-platform.ts";
import { DeliveriesQuery, WebhookRequest } from "../schemas-webhooks.ts";

const WEBHOOK = "/v1/admin/platforms/:platformId/webhook";

export function mountWebhookRoutes(app: OpenAPIHono<AppEnv>): void {
  app.put(WEBHOOK, requireAdmin(), async (c) => {
    const body = await readJsonBody(c.req.raw, WebhookRequest);
    const platformId = await knownPlatform(c);
    if (!body.ok) throw new ProblemError(body.problem);
    const url = checkWebhookUrl(body.value.url, c.env.WEBHOOK_ALLOW_LOOPBACK_HTTP === "true");
    if (!url.ok) {
      throw new ProblemError(
        problem("invalid_request", `url: ${url.message}.`, {
          errors: [{ field: "url", message: url.message }],
        }),
      );
    }
    const events = body.value.events ? [...new Set(body.value.events)] : null;
    const settings = await putWebhook(c.env.DB, platformId, url.url, events);
    if (!settings) throw noSuchPlatform();
    return c.json(settings);
  });

  app.delete(WEBHOOK, requireAdmin(), async (c) => {
    const body = await readNoBody(c.req.raw);
    const platformId = await knownPlatform(c);
    if (!body.ok) throw new ProblemError(body.problem);
    await deleteWebhook(c.env.DB, platformId);
    return c.body(null, 204);
  });

  app.post(`${WEBHOOK}/rotate-secret`, requireAdmin(), async (c) => {
    const body = await readNoBody(c.req.raw);
    const platformId = await knownPlatform(c);
    if (!body.ok) {
      if (!(await hasWebhook(c.env.DB, platformId))) throw noWebhook();
      throw new ProblemError(body.problem);
    }
    const secret = await rotateWebhookSecret(c.env.DB, platformId);
    if (!secret) throw noWebhook();
    return c.json({ secret });
  });

  app.get("/v1/platforms/:platformId/webhook/deliveries", requireApiKey(), async (c) => {
    const query = validate(DeliveriesQuery, c.req.query());
    if (!query.ok) throw new ProblemError(query.problem);
    const deliveries = await listDeliveries(c.env.DB, c.get("apiKey").platformId, {
      limit: query.value.limit ?? WEBHOOK_LIMITS.defaultDeliveriesPageSize,
      status: query.value.status,
      sessionId: query.value.session_id,
    });
    return c.json({ deliveries });
  });
}

function noWebhook(): ProblemError {
  return new ProblemError(problem("not_found", "This platform has no webhook; set one first."));
}
