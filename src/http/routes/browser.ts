// Browser API (session tokens): trigger and cancel an SOS (counselor), submit the location and the
// location check (patient).
// Rate limits, like every rule of the session, are the session object's: routes only read and forward.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { LocationSubmission } from "../../../sdk/src/protocol.ts";
import { problem } from "../../problem.ts";
import type { SessionCaller } from "../../session/caller.ts";
import { requireSessionToken } from "../auth.ts";
import { type BodyResult, fail, readJsonBody, validate } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { browserCors } from "../cors.ts";
import { respond } from "../respond.ts";
import { type App, errors, json, needs, problemContent, route, serve, sessionParams } from "../route.ts";
import {
  EmptyRequest,
  LocationFixRequest,
  LocationReceivedResponse,
  LocationSubmissionRequest,
  LocationUnavailableRequest,
  PsapResultsResponse,
  SosCancelResponse,
  SosTriggerResponse,
} from "../schemas.ts";
import { sessionStub } from "../session-stub.ts";

const SESSION = "/v1/platforms/:platformId/sessions/:sessionId";
const SOS = `${SESSION}/sos`;

export function mountBrowserRoutes(app: App): void {
  // Every answer under these paths, the preflight and the 405s included, carries the CORS headers.
  app.use(SOS, browserCors());
  app.use(`${SOS}/*`, browserCors());
  app.use(`${SESSION}/location-check`, browserCors());
  serve(app, triggerRoute, cancelRoute, locationRoute, locationCheckRoute);
}

/** What a location submission answers, for the SOS and for the check alike. */
const locationResponses = {
  200: {
    description: "The nearest PSAPs (for a fix) or an acknowledgement (for `unavailable`)",
    content: json(z.union([PsapResultsResponse, LocationReceivedResponse])),
  },
  ...errors(400, 401, 403, 409, 410, 413, 415, 429),
  503: {
    description:
      "The PSAP data could not be read (psap_lookup_failed, psap_index_unavailable); with Retry-After",
    content: problemContent,
  },
};

const triggerRoute = route(
  createRoute({
    method: "post",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}/sos",
    tags: ["Browser"],
    summary: "Trigger an SOS (counselor)",
    security: needs("CounselorToken"),
    middleware: requireSessionToken("counselor"),
    request: { params: sessionParams, body: { content: json(EmptyRequest), required: false } },
    responses: {
      202: { description: "The SOS started", content: json(SosTriggerResponse) },
      200: {
        description: "Already in SOS: a fresh location request was sent",
        content: json(SosTriggerResponse),
      },
      ...errors(400, 401, 403, 410, 413, 415, 429),
    },
  }),
  async (c) => {
    const body = await readJsonBody(c.req.raw, EmptyRequest, { optional: true });
    return respond(await stubOf(c).trigger(callerOf(c), body));
  },
);

const cancelRoute = route(
  createRoute({
    method: "post",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}/sos/cancel",
    tags: ["Browser"],
    summary: "Cancel an SOS: a false alarm (counselor)",
    security: needs("CounselorToken"),
    middleware: requireSessionToken("counselor"),
    request: { params: sessionParams, body: { content: json(EmptyRequest), required: false } },
    responses: {
      200: { description: "Back to active", content: json(SosCancelResponse) },
      ...errors(400, 401, 403, 409, 410, 413, 415, 429),
    },
  }),
  async (c) => {
    const body = await readJsonBody(c.req.raw, EmptyRequest, { optional: true });
    return respond(await stubOf(c).cancel(callerOf(c), body));
  },
);

const locationRoute = route(
  createRoute({
    method: "post",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}/sos/location",
    tags: ["Browser"],
    summary: "Submit the patient's location, or why there is none (patient)",
    security: needs("PatientToken"),
    middleware: requireSessionToken("patient"),
    description: "Only in state `sos` (else 409 not_in_sos).",
    request: { params: sessionParams, body: { content: json(LocationSubmissionRequest), required: true } },
    responses: locationResponses,
  }),
  async (c) => {
    const body = await readLocation(c.req.raw);
    return respond(await stubOf(c).submitLocation(callerOf(c), body));
  },
);

const locationCheckRoute = route(
  createRoute({
    method: "post",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}/location-check",
    tags: ["Browser"],
    summary: "Submit the location check: where the patient is before anything happens (patient)",
    description:
      'Only for a session created with `location_check: "at_start"` (else 409 location_check_off), in ' +
      "states `active` and `sos`. The patient SDK answers the `location_request` whose `purpose` is " +
      "`check` here. Counselors receive `location_check`; each check replaces the previous one. If the " +
      "PSAP data cannot be read, the answer is 503 and nothing is recorded.",
    security: needs("PatientToken"),
    middleware: requireSessionToken("patient"),
    request: { params: sessionParams, body: { content: json(LocationSubmissionRequest), required: true } },
    responses: locationResponses,
  }),
  async (c) => {
    const body = await readLocation(c.req.raw);
    return respond(await stubOf(c).checkLocation(callerOf(c), body));
  },
);

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
