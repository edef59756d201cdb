// Browser API (session tokens): trigger and cancel an SOS (counselor), submit the location (patient).
// Rate limits, like every rule of the session, are the session object's: routes only read and forward.
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { LocationSubmission } from "../../../sdk/src/protocol.ts";
import { problem } from "../../problem.ts";
import type { SessionCaller } from "../../session/caller.ts";
import { requireSessionToken } from "../auth.ts";
import { type BodyResult, fail, readJsonBody, validate } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { browserCors } from "../cors.ts";
import { respond } from "../respond.ts";
import { EmptyRequest, LocationFixRequest, LocationUnavailableRequest } from "../schemas.ts";
import { sessionStub } from "../session-stub.ts";

const SOS = "/v1/platforms/:platformId/sessions/:sessionId/sos";

export function mountBrowserRoutes(app: OpenAPIHono<AppEnv>): void {
  app.use(SOS, browserCors());
  app.use(`${SOS}/*`, browserCors());

  app.post(SOS, requireSessionToken("counselor"), async (c) => {
    const body = await readJsonBody(c.req.raw, EmptyRequest, { optional: true });
    return respond(await stubOf(c).trigger(callerOf(c), body));
  });

  app.post(`${SOS}/cancel`, requireSessionToken("counselor"), async (c) => {
    const body = await readJsonBody(c.req.raw, EmptyRequest, { optional: true });
    return respond(await stubOf(c).cancel(callerOf(c), body));
  });

  app.post(`${SOS}/location`, requireSessionToken("patient"), async (c) => {
    const body = await readLocation(c.req.raw);
    return respond(await stubOf(c).submitLocation(callerOf(c), body));
  });
}

/** What a fix carries (its schema's fields): sent beside `unavailable`, the client sent both kinds of body at once. */
const FIX_FIELDS = Object.keys(LocationFixRequest.shape);

/** A fix or an `unavailable` report: the presence of `unavailable` says which the client meant. */
async function readLocation(request: Request): Promise<BodyResult<LocationSubmission>> {
  const body = await readJsonBody(request, z.unknown());
  if (!body.ok) return body;
  const value = body.value;
  const meantUnavailable = typeof value === "object" && value !== null && "unavailable" in value;
  if (meantUnavailable && FIX_FIELDS.some((field) => field in value)) {
    return fail(
      problem("invalid_request", "Send a fix (latitude, longitude) or unavailable, not both.", {
        errors: [{ field: "unavailable", message: "is sent instead of a fix, not with one" }],
      }),
    );
  }
  return meantUnavailable ? validate(LocationUnavailableRequest, value) : validate(LocationFixRequest, value);
}

function stubOf(c: Context<AppEnv>) {
  return sessionStub(c.env, c.get("claims").sid);
}

function callerOf(c: Context<AppEnv>): SessionCaller {
  const claims = c.get("claims");
  return { role: claims.aud, sub: claims.sub, jti: claims.jti };
}
