// Admin API (operators): platforms and their API keys.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { apiKeyExists, createApiKey, createPlatform, revokeApiKey } from "../../auth/platforms.ts";
import { ProblemError, problem } from "../../problem.ts";
import { requireAdmin } from "../auth.ts";
import { readJsonBody, readNoBody } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { knownPlatform, noSuchPlatform } from "../known-platform.ts";
import { CreatePlatformRequest } from "../schemas.ts";

export function mountAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.post("/v1/admin/platforms", requireAdmin(), async (c) => {
    const body = await readJsonBody(c.req.raw, CreatePlatformRequest);
    if (!body.ok) throw new ProblemError(body.problem);
    return c.json(await createPlatform(c.env.DB, body.value.name), 201);
  });

  app.post("/v1/admin/platforms/:platformId/api-keys", requireAdmin(), async (c) => {
    const body = await readNoBody(c.req.raw);
    if (!body.ok) {
      await knownPlatform(c);
      throw new ProblemError(body.problem);
    }
    const created = await createApiKey(c.env.DB, c.req.param("platformId"));
    if (!created) throw noSuchPlatform();
    return c.json(created, 201);
  });

  app.delete("/v1/admin/platforms/:platformId/api-keys/:apiKeyId", requireAdmin(), async (c) => {
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
  });
}
