// The OpenAPI 3.1 description of every route, built from the same zod schemas that validate requests.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import packageJson from "../../package.json";
import type { AppEnv } from "./context.ts";
import { admin, errors, json, noBody, platformId, platformParams, problemContent } from "./openapi-parts.ts";
import { PSAP_ROUTES } from "./openapi-psaps.ts";
import { SESSION_EVENT_WEBHOOK, WEBHOOK_ROUTES } from "./openapi-webhooks.ts";
import * as s from "./schemas.ts";

const sessionId = z.uuid().openapi({ param: { name: "sessionId", in: "path" } });
const apiKeyId = z.string().openapi({ param: { name: "apiKeyId", in: "path" } });
const sessionParams = z.object({ platformId, sessionId });
const idempotencyHeader = z.object({
  "Idempotency-Key": z.string().min(1).max(255).optional(),
});

const apiKey = [{ ApiKey: [] }];
const counselor = [{ CounselorToken: [] }];
const patient = [{ PatientToken: [] }];

export const ROUTES = [
  createRoute({
    method: "post",
    path: "/v1/admin/platforms",
    tags: ["Admin"],
    summary: "Register a platform and issue its first API key",
    security: admin,
    request: { body: { content: json(s.CreatePlatformRequest), required: true } },
    responses: {
      201: { description: "Created; the API key is shown only now", content: json(s.CreatePlatformResponse) },
      ...errors(400, 401, 413, 415),
    },
  }),
  createRoute({
    method: "post",
    path: "/v1/admin/platforms/{platformId}/api-keys",
    tags: ["Admin"],
    summary: "Issue another API key (rotation: old keys work until revoked)",
    security: admin,
    request: { params: platformParams, body: noBody },
    responses: {
      201: { description: "Created; the API key is shown only now", content: json(s.CreateApiKeyResponse) },
      ...errors(400, 401, 404, 413, 415),
    },
  }),
  createRoute({
    method: "delete",
    path: "/v1/admin/platforms/{platformId}/api-keys/{apiKeyId}",
    tags: ["Admin"],
    summary: "Revoke an API key",
    security: admin,
    request: { params: z.object({ platformId, apiKeyId }), body: noBody },
    responses: { 204: { description: "Revoked" }, ...errors(400, 401, 404, 413, 415) },
  }),
  createRoute({
    method: "post",
    path: "/v1/platforms/{platformId}/sessions",
    tags: ["Platform"],
    summary: "Create a session for one counselor and one patient",
    security: apiKey,
    request: {
      params: platformParams,
      headers: idempotencyHeader,
      body: { content: json(s.CreateSessionRequest), required: true },
    },
    responses: {
      201: { description: "Created", content: json(s.CreateSessionResponse) },
      ...errors(400, 401, 403, 409, 413, 415, 422, 429),
    },
  }),
  createRoute({
    method: "get",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}",
    tags: ["Platform"],
    summary: "Read a session (any state)",
    security: apiKey,
    request: { params: sessionParams },
    responses: {
      200: { description: "The session", content: json(s.SessionView) },
      ...errors(401, 403, 404, 429),
    },
  }),
  createRoute({
    method: "post",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}/end",
    tags: ["Platform"],
    summary: "End a session (repeatable)",
    security: apiKey,
    request: { params: sessionParams, body: noBody },
    responses: {
      200: { description: "Ended", content: json(s.EndSessionResponse) },
      ...errors(400, 401, 403, 404, 410, 413, 415, 429),
    },
  }),
  createRoute({
    method: "get",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}/events",
    tags: ["Platform"],
    summary: "The session's audit trail, a page at a time (never holds coordinates)",
    security: apiKey,
    request: { params: sessionParams, query: s.EventsQuery },
    responses: {
      200: { description: "Events in order", content: json(s.AuditEventsResponse) },
      ...errors(400, 401, 403, 404, 429),
    },
  }),
  createRoute({
    method: "post",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}/sos",
    tags: ["Browser"],
    summary: "Trigger an SOS (counselor)",
    security: counselor,
    request: { params: sessionParams, body: { content: json(s.EmptyRequest), required: false } },
    responses: {
      202: { description: "The SOS started", content: json(s.SosTriggerResponse) },
      200: {
        description: "Already in SOS: a fresh location request was sent",
        content: json(s.SosTriggerResponse),
      },
      ...errors(400, 401, 403, 410, 413, 415, 429),
    },
  }),
  createRoute({
    method: "post",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}/sos/cancel",
    tags: ["Browser"],
    summary: "Cancel an SOS: a false alarm (counselor)",
    security: counselor,
    request: { params: sessionParams, body: { content: json(s.EmptyRequest), required: false } },
    responses: {
      200: { description: "Back to active", content: json(s.SosCancelResponse) },
      ...errors(400, 401, 403, 409, 410, 413, 415, 429),
    },
  }),
  createRoute({
    method: "post",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}/sos/location",
    tags: ["Browser"],
    summary: "Submit the patient's location, or why there is none (patient)",
    security: patient,
    request: { params: sessionParams, body: { content: json(s.LocationSubmissionRequest), required: true } },
    responses: {
      200: {
        description: "The nearest PSAPs (for a fix) or an acknowledgement (for `unavailable`)",
        content: json(z.union([s.PsapResultsResponse, s.LocationReceivedResponse])),
      },
      ...errors(400, 401, 403, 409, 410, 413, 415, 429),
      503: {
        description:
          "The PSAP data could not be read (psap_lookup_failed, psap_index_unavailable); with Retry-After",
        content: problemContent,
      },
    },
  }),
  createRoute({
    method: "get",
    path: "/ws",
    tags: ["Browser"],
    summary: "The session socket (patient or counselor token in ?token=); without Upgrade, a probe",
    request: { query: z.object({ token: z.string() }) },
    responses: {
      101: { description: "Switching protocols" },
      ...errors(400, 401, 410, 426),
      429: {
        description:
          "10 sockets of this role are open, or 30 were opened in the last minute; with Retry-After",
        content: problemContent,
      },
    },
  }),
  createRoute({
    method: "get",
    path: "/.well-known/jwks.json",
    tags: ["Meta"],
    summary: "Public keys that verify session tokens",
    responses: { 200: { description: "JWKS", content: json(s.JwksResponse) } },
  }),
  ...PSAP_ROUTES,
  ...WEBHOOK_ROUTES,
];

/** Registers the descriptions and serves the document at /v1/openapi.json. */
export function mountOpenApi(app: OpenAPIHono<AppEnv>): void {
  for (const route of ROUTES) app.openAPIRegistry.registerPath(route);
  app.openAPIRegistry.registerWebhook(SESSION_EVENT_WEBHOOK);
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminToken", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "CounselorToken", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "PatientToken", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
  });
  app.doc31("/v1/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Emergency-session (SOS) service",
      version: packageJson.version,
      description:
        "Finds the nearest 911 PSAPs for a telehealth patient and delivers them to patient and counselor.",
    },
  });
}
