// GET /ws?token=: checks the token, then hands the socket (or the no-Upgrade probe) to the session object,
// which decides the rest (410, 429, 426) so the probe always answers as the upgrade would.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { withCaller } from "../../session/caller.ts";
import { liveClaims, missingSocketToken } from "../auth.ts";
import type { AppEnv } from "../context.ts";
import { browserCors } from "../cors.ts";
import { sessionStub } from "../session-stub.ts";

export function mountSocketRoute(app: OpenAPIHono<AppEnv>): void {
  app.use("/ws", browserCors());
  app.get("/ws", async (c) => {
    const token = c.req.query("token");
    if (!token) throw missingSocketToken();
    const claims = await liveClaims(c.env, token);
    const caller = { role: claims.aud, sub: claims.sub, jti: claims.jti };
    return sessionStub(c.env, claims.sid).fetch(withCaller(c.req.raw, caller));
  });
}
