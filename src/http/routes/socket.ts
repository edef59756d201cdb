// GET /ws?token=: checks the token, then hands the socket (or the no-Upgrade probe) to the session object.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { SOCKET_IDENTITY_HEADERS } from "../../session/session-object.ts";
import { verifiedClaims } from "../auth.ts";
import type { AppEnv } from "../context.ts";
import { browserCors } from "../cors.ts";
import { ProblemError, problem } from "../problem.ts";
import { sessionStub } from "../session-stub.ts";

export function mountSocketRoute(app: OpenAPIHono<AppEnv>): void {
  app.use("/ws", browserCors());
  app.get("/ws", async (c) => {
    const token = c.req.query("token");
    if (!token) throw new ProblemError(problem("missing_credentials", "Pass the session token as ?token=."));
    const claims = await verifiedClaims(c.env, token);
    // The object trusts these headers: only the worker can reach it, and only after this check.
    const forwarded = new Request(c.req.raw);
    forwarded.headers.set(SOCKET_IDENTITY_HEADERS.role, claims.aud);
    forwarded.headers.set(SOCKET_IDENTITY_HEADERS.sub, claims.sub);
    forwarded.headers.set(SOCKET_IDENTITY_HEADERS.jti, claims.jti);
    return sessionStub(c.env, claims.sid).fetch(forwarded);
  });
}
