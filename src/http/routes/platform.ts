// Platform API (server side, X-API-Key): create, read and end sessions, read their audit trail.
import { createRoute, z } from "@hono/zod-openapi";
import { SESSION_LIMITS } from "../../../lib/config.ts";
import type { SessionCreateResponse } from "../../../sdk/src/protocol.ts";
import { issueSessionTokens } from "../../auth/session-tokens.ts";
import type { Env } from "../../env.ts";
import { ProblemError, problem } from "../../problem.ts";
import { iso } from "../../session/record.ts";
import { requireApiKey } from "../auth.ts";
import { readJsonBody, readNoBody, validate } from "../body.ts";
import { withIdempotency } from "../idempotency.ts";
import { respond } from "../respond.ts";
import {
  type App,
  errors,
  json,
  needs,
  noBody,
  platformParams,
  route,
  serve,
  sessionParams,
} from "../route.ts";
import {
  AuditEventsResponse,
  CreateSessionRequest,
  CreateSessionResponse,
  EndSessionResponse,
  EventsQuery,
  SessionViewResponse,
} from "../schemas.ts";
import { isSessionId, sessionStub } from "../session-stub.ts";

export function mountPlatformRoutes(app: App): void {
  serve(app, createSessionRoute, readSessionRoute, endSessionRoute, eventsRoute);
}

const createSessionRoute = route(
  createRoute({
    method: "post",
    path: "/v1/platforms/{platformId}/sessions",
    tags: ["Platform"],
    summary: "Create a session for one counselor and one patient",
    security: needs("ApiKey"),
    middleware: requireApiKey(),
    request: {
      params: platformParams,
      headers: z.object({ "Idempotency-Key": z.string().min(1).max(255).optional() }),
      body: { content: json(CreateSessionRequest), required: true },
    },
    responses: {
      201: { description: "Created", content: json(CreateSessionResponse) },
      ...errors(400, 401, 403, 409, 413, 415, 422, 429),
    },
  }),
  async (c) => {
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
        location_check: input.location_check ?? "off",
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
  },
);

const readSessionRoute = route(
  createRoute({
    method: "get",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}",
    tags: ["Platform"],
    summary: "Read a session (any state)",
    security: needs("ApiKey"),
    middleware: requireApiKey(),
    request: { params: sessionParams },
    responses: {
      200: { description: "The session", content: json(SessionViewResponse) },
      ...errors(401, 403, 404, 429),
    },
  }),
  async (c) => {
    return respond(await platformSession(c.env, c.req.param("sessionId")).read(c.get("apiKey").platformId));
  },
);

const endSessionRoute = route(
  createRoute({
    method: "post",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}/end",
    tags: ["Platform"],
    summary: "End a session (repeatable)",
    security: needs("ApiKey"),
    middleware: requireApiKey(),
    request: { params: sessionParams, body: noBody },
    responses: {
      200: { description: "Ended", content: json(EndSessionResponse) },
      ...errors(400, 401, 403, 404, 410, 413, 415, 429),
    },
  }),
  async (c) => {
    // The object reports a refused body after its own 404 and 410, and then ends nothing.
    const body = await readNoBody(c.req.raw);
    const stub = platformSession(c.env, c.req.param("sessionId"));
    return respond(await stub.end(c.get("apiKey").platformId, body));
  },
);

const eventsRoute = route(
  createRoute({
    method: "get",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}/events",
    tags: ["Platform"],
    summary: "The session's audit trail, a page at a time (never holds coordinates)",
    security: needs("ApiKey"),
    middleware: requireApiKey(),
    request: { params: sessionParams, query: EventsQuery },
    responses: {
      200: { description: "Events in order", content: json(AuditEventsResponse) },
      ...errors(400, 401, 403, 404, 429),
    },
  }),
  async (c) => {
    // A bad page is reported after a 404 (the contract's order), so the object reports it.
    const page = validate(EventsQuery, c.req.query());
    const stub = platformSession(c.env, c.req.param("sessionId"));
    return respond(await stub.events(c.get("apiKey").platformId, page));
  },
);

/** A well-formed id reaches its object; anything else is a 404 without waking one. */
function platformSession(env: Env, sessionId: string | undefined) {
  if (!sessionId || !isSessionId(sessionId)) throw new ProblemError(problem("not_found", "No such session."));
  return sessionStub(env, sessionId);
}
