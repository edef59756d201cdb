// Admin API (operators): platforms and their API keys.
import { createRoute, z } from "@hono/zod-openapi";
import { apiKeyExists, createApiKey, createPlatform, revokeApiKey } from "../../auth/platforms.ts";
import { ProblemError, problem } from "../../problem.ts";
import { requireAdmin } from "../auth.ts";
import { readJsonBody, readNoBody } from "../body.ts";
import { knownPlatform, noSuchPlatform } from "../known-platform.ts";
import { type App, errors, json, needs, noBody, platformId, platformParams, route, serve } from "../route.ts";
import { CreateApiKeyResponse, CreatePlatformRequest, CreatePlatformResponse } from "../schemas.ts";

export function mountAdminRoutes(app: App): void {
  serve(app, createPlatformRoute, createApiKeyRoute, revokeApiKeyRoute);
}

const createPlatformRoute = route(
  createRoute({
    method: "post",
    path: "/v1/admin/platforms",
    tags: ["Admin"],
    summary: "Register a platform and issue its first API key",
    security: needs("AdminToken"),
    middleware: requireAdmin(),
    request: { body: { content: json(CreatePlatformRequest), required: true } },
    responses: {
      201: { description: "Created; the API key is shown only now", content: json(CreatePlatformResponse) },
      ...errors(400, 401, 413, 415),
    },
  }),
  async (c) => {
    const body = await readJsonBody(c.req.raw, CreatePlatformRequest);
    if (!body.ok) throw new ProblemError(body.problem);
    return c.json(await createPlatform(c.env.DB, body.value.name), 201);
  },
);

const createApiKeyRoute = route(
  createRoute({
    method: "post",
    path: "/v1/admin/platforms/{platformId}/api-keys",
    tags: ["Admin"],
    summary: "Issue another API key (rotation: old keys work until revoked)",
    security: needs("AdminToken"),
    middleware: requireAdmin(),
    request: { params: platformParams, body: noBody },
    responses: {
      201: { description: "Created; the API key is shown only now", content: json(CreateApiKeyResponse) },
      ...errors(400, 401, 404, 413, 415),
    },
  }),
  async (c) => {
    const body = await readNoBody(c.req.raw);
    if (!body.ok) {
      await knownPlatform(c);
      throw new ProblemError(body.problem);
    }
    const created = await createApiKey(c.env.DB, c.req.param("platformId"));
    if (!created) throw noSuchPlatform();
    return c.json(created, 201);
  },
);

const revokeApiKeyRoute = route(
  createRoute({
    method: "delete",
    path: "/v1/admin/platforms/{platformId}/api-keys/{apiKeyId}",
    tags: ["Admin"],
    summary: "Revoke an API key",
    security: needs("AdminToken"),
    middleware: requireAdmin(),
    request: {
      params: z.object({
        platformId,
        apiKeyId: z.string().openapi({ param: { name: "apiKeyId", in: "path" } }),
      }),
      body: noBody,
    },
    responses: { 204: { description: "Revoked" }, ...errors(400, 401, 404, 413, 415) },
  }),
  async (c) => {
    const [platformId, apiKeyId] = [c.req.param("platformId"), c.req.param("apiKeyId")];
    const noSuchKey = () => new ProblemError(problem("not_found", "No such API key for this platform."));
    const body = await readNoBody(c.req.raw);
    if (!body.ok) {
      if (!(await apiKeyExists(c.env.DB, platformId, apiKeyId))) throw noSuchKey();
      throw new ProblemError(body.problem);
    }
    const revoked = await revokeApiKey(c.env.DB, platformId, apiKeyId);
    if (!revoked) throw noSuchKey();
    return c.body(null, 204);
  },
);
