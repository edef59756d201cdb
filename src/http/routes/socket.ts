// GET /ws?token=: checks the token and, for an upgrade, its handshake; then hands the socket (or the
// no-Upgrade probe) to the session object, which decides the rest (410, 429, 426) so the probe always
// answers as the upgrade would.
import { createRoute, z } from "@hono/zod-openapi";
import { problemResponse } from "../../problem.ts";
import { withCaller } from "../../session/caller.ts";
import { liveClaims, missingSocketToken } from "../auth.ts";
import { browserCors } from "../cors.ts";
import { type App, errors, problemContent, route, serve } from "../route.ts";
import { sessionStub } from "../session-stub.ts";
import { asksForUpgrade, handshakeProblem, WEBSOCKET_VERSION } from "../websocket-handshake.ts";

export function mountSocketRoute(app: App): void {
  app.use("/ws", browserCors());
  serve(app, socketRoute);
}

const socketRoute = route(
  createRoute({
    method: "get",
    path: "/ws",
    tags: ["Browser"],
    summary: "The session socket (patient or counselor token in ?token=); without Upgrade, a probe",
    request: { query: z.object({ token: z.string() }) },
    responses: {
      101: { description: "Switching protocols" },
      400: {
        description:
          "An upgrade whose Sec-WebSocket-Key is not the base64 of 16 bytes, or whose Sec-WebSocket-Version is not 13",
        content: problemContent,
      },
      ...errors(401, 410, 426),
      429: {
        description:
          "10 sockets of this role are open, or 30 were opened in the last minute; with Retry-After",
        content: problemContent,
      },
    },
  }),
  async (c) => {
    const token = c.req.query("token");
    if (!token) throw missingSocketToken();
    const claims = await liveClaims(c.env, token);
    // After the token (401 and an expired token's 410 come first), before the object hears of it.
    if (asksForUpgrade(c.req.raw.headers)) {
      const refused = handshakeProblem(c.req.raw.headers);
      if (refused) return problemResponse(refused, { "Sec-WebSocket-Version": WEBSOCKET_VERSION });
    }
    const caller = { role: claims.aud, sub: claims.sub, jti: claims.jti };
    return sessionStub(c.env, claims.sid).fetch(withCaller(c.req.raw, caller));
  },
);
