// Platform API (server side, X-API-Key): create, read and end sessions, read their audit trail.

import type { OpenAPIHono } from "@hono/zod-openapi";
import type { SessionCreateResponse } from "../../../sdk/src/protocol.ts";
import { issueSessionTokens } from "../../auth/session-tokens.ts";
import { SESSION_LIMITS } from "../../config.ts";
import type { Env } from "../../env.ts";
import { ProblemError, problem } from "../../problem.ts";
import { iso } from "../../session/record.ts";
import { requireApiKey } from "../auth.ts";
import { readJsonBody, readNoBody, validate } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { withIdempotency } from "../idempotency.ts";
import { respond } from "../respond.ts";
import { CreateSessionRequest, EventsQuery } from "../schemas.ts";
import { isSessionId, sessionStub } from "../session-stub.ts";

const SESSION = "/v1/platforms/:platformId/sessions/:sessionId";

export function mountPlatformRoutes(app: OpenAPIHono<AppEnv>): void {
  app.post("/v1/platforms/:platformId/sessions", requireApiKey(), async (c) => {
    const body = await readJsonBody(c.req.raw, CreateSessionRequest);
    if (!body.ok) throw new ProblemError(body.problem);
    const platformId = c.get("apiKey").platformId;
    // The whole body, address included, decides whether an Idempotency-Key is replayed.
    const input = {
      ...body.value,
      expires_in_minutes: body.value.expires_in_minutes ?? SESSION_LIMITS.defaultExpiresInMinutes,
    };
    return withIdempotency(c.env, platformId, c.req.header("Idempotency-Key"), input, async () => {
      const sessionId = crypto.randomUUID();
      const now = Date.now();
      const expiresAt = now + input.expires_in_minutes * 60_000;
      const tokens = await issueSessionTokens(c.env, {
        sessionId,
        platformId,
        patientId: input.patient_id,
        counselorId: input.counselor_id,
        expiresAt: new Date(expiresAt),
      });
      const created = await sessionStub(c.env, sessionId).create({
        session_id: sessionId,
        platform_id: platformId,
        meeting_id: input.meeting_id,
        counselor_id: input.counselor_id,
        patient_id: input.patient_id,
        patient_address: input.patient_address ?? null,
        created_at: now,
        expires_at: expiresAt,
      });
      if (!created.ok) throw new ProblemError(created.problem);
      const response: SessionCreateResponse = {
        session_id: sessionId,
        platform_id: platformId,
        state: "active",
        patient_token: tokens.patient_token,
        counselor_token: tokens.counselor_token,
        expires_at: iso(expiresAt),
        created_at: iso(now),
      };
      return { status: 201, body: response };
    });
  });

  app.get(SESSION, requireApiKey(), async (c) => {
    return respond(await platformSession(c.env, c.req.param("sessionId")).read(c.get("apiKey").platformId));
  });

  app.post(`${SESSION}/end`, requireApiKey(), async (c) => {
    // The object reports a refused body after its own 404 and 410, and then ends nothing.
    const body = await readNoBody(c.req.raw);
    const stub = platformSession(c.env, c.req.param("sessionId"));
    return respond(await stub.end(c.get("apiKey").platformId, body));
  });

  app.get(`${SESSION}/events`, requireApiKey(), async (c) => {
    // A bad page is reported after a 404 (the contract's order), so the object reports it.
    const page = validate(EventsQuery, c.req.query());
    const stub = platformSession(c.env, c.req.param("sessionId"));
    return respond(await stub.events(c.get("apiKey").platformId, page));
  });
}

/** A well-formed id reaches its object; anything else is a 404 without waking one. */
function platformSession(env: Env, sessionId: string | undefined) {
  if (!sessionId || !isSessionId(sessionId)) throw new ProblemError(problem("not_found", "No such session."));
  return sessionStub(env, sessionId);
}
