// Public keys for token verification.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { getJwks } from "../../auth/jwks.ts";
import type { AppEnv } from "../context.ts";

export function mountMetaRoutes(app: OpenAPIHono<AppEnv>): void {
  app.get("/.well-known/jwks.json", async (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(await getJwks(c.env));
  });
}
