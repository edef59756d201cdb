// Webhook routes: the admin sets, rotates and removes a platform's webhook; the platform lists its deliveries.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { platformExists } from "../../auth/platforms.ts";
import { WEBHOOK_LIMITS } from "../../config.ts";
import { ProblemError, problem } from "../../problem.ts";
import { listDeliveries } from "../../webhooks/deliveries.ts";
import { deleteWebhook, putWebhook, rotateWebhookSecret } from "../../webhooks/store.ts";
import { checkWebhookUrl } from "../../webhooks/url.ts";
import { requireAdmin, requireApiKey } from "../auth.ts";
import { readJsonBody, validate } from "../body.ts";
import type { AppEnv } from "../context.ts";
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
    if (!settings) throw notFound();
    return c.json(settings);
  });

  app.delete(WEBHOOK, requireAdmin(), async (c) => {
    const platformId = await knownPlatform(c);
    await deleteWebhook(c.env.DB, platformId);
    return c.body(null, 204);
  });

  app.post(`${WEBHOOK}/rotate-secret`, requireAdmin(), async (c) => {
    const platformId = await knownPlatform(c);
    const secret = await rotateWebhookSecret(c.env.DB, platformId);
    if (!secret) throw new ProblemError(problem("not_found", "This platform has no webhook; set one first."));
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

/** The path's platform, or 404. */
async function knownPlatform(c: Context<AppEnv>): Promise<string> {
  const platformId = c.req.param("platformId") ?? "";
  if (platformId.length === 0 || platformId.length > 64 || !(await platformExists(c.env.DB, platformId))) {
    throw notFound();
  }
  return platformId;
}

function notFound(): ProblemError {
  return new ProblemError(problem("not_found", "No such platform."));
}
