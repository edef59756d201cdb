// Location by reference for the call path (docs/contract.md, section 10): the platform or the counselor has a location
// URI made for the SOS, and whoever the call reaches (a SIP server, a PSAP) reads the patient's latest fix
// from it as PIDF-LO (HELD, RFC 5985; dereference, RFC 6753). The session object decides what a URI
// answers (src/held/location-uris.ts); here the token is sealed and opened, and the XML read and written.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { LocationUriResponse } from "../../../sdk/src/protocol.ts";
import type { UriMinter } from "../../held/location-uris.ts";
import { HELD_MEDIA_TYPE, type HeldRefusal, readLocationRequest } from "../../held/request.ts";
import { heldError, locationResponse, PIDF_MEDIA_TYPE, pidfDocument } from "../../held/response.ts";
import { newUriId, openToken, sealToken } from "../../held/token.ts";
import { ProblemError, problem } from "../../problem.ts";
import { requireApiKeyOrSessionToken } from "../auth.ts";
import { readNoBody, readTextBody } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { browserCors } from "../cors.ts";
import { respond } from "../respond.ts";
import {
  type App,
  errors,
  json,
  needs,
  noBody,
  problemContent,
  route,
  serve,
  sessionParams,
} from "../route.ts";
import { isSessionId, sessionStub } from "../session-stub.ts";

export function mountHeldRoutes(app: App): void {
  // The counselor's console asks for a URI from the platform's own pages.
  app.use("/v1/platforms/:platformId/sessions/:sessionId/location-uri", browserCors());
  serve(app, mintRoute, dereferenceByGetRoute, dereferenceByPostRoute);
}

const servedWhen = (env: AppEnv["Bindings"]) => env.HELD_ENABLED === "true";

const LocationUriCreated = z
  .object({
    uri: z.url().openapi({
      example: "https://sos.example.com/held/3q2mXw...",
      description: "Put it in a SIP Geolocation header (RFC 6442), or read it out to a PSAP",
    }),
    expires_at: z.string().openapi({ description: "ISO 8601; the URI dies sooner if the SOS ends" }),
  })
  .openapi("LocationUri") satisfies z.ZodType<LocationUriResponse>;

const mintRoute = route(
  createRoute({
    method: "post",
    path: "/v1/platforms/{platformId}/sessions/{sessionId}/location-uri",
    tags: ["Location URIs"],
    summary: "Make a location URI for the SOS (platform API key or counselor token)",
    description:
      "Served only where the deployment sets HELD_ENABLED=true. Only in state `sos` (else 409 not_in_sos); " +
      "at most 3 live URIs per session (409 location_uri_limit). The URI answers the patient's latest fix " +
      "until the SOS is cancelled, the session ends or expires, or 60 minutes pass. Counselors receive " +
      "`location_uri` on their sockets.",
    security: [...needs("ApiKey"), ...needs("CounselorToken")],
    middleware: requireApiKeyOrSessionToken("counselor"),
    request: { params: sessionParams, body: noBody },
    responses: {
      201: { description: "The URI and when it expires", content: json(LocationUriCreated) },
      ...errors(400, 401, 403, 404, 409, 410, 413, 415, 429),
    },
  }),
  async (c) => {
    const body = await readNoBody(c.req.raw);
    const sessionId = c.req.param("sessionId");
    // A token names its session already; an API key reaches any id, so a malformed one wakes nothing.
    if (!isSessionId(sessionId)) throw new ProblemError(problem("not_found", "No such session."));
    const uriId = newUriId();
    const token = await sealToken(c.env, { sessionId, uriId });
    const uri = `${new URL(c.req.url).origin}/held/${token}`;
    return respond(
      await sessionStub(c.env, sessionId).mintLocationUri({ by: minterOf(c), body, uriId, uri }),
    );
  },
  { servedWhen },
);

const tokenParams = z.object({
  token: z.string().openapi({ param: { name: "token", in: "path" }, description: "The URI's sealed token" }),
});
const heldXml = { [HELD_MEDIA_TYPE]: { schema: z.string() } };
const pidfXml = { [PIDF_MEDIA_TYPE]: { schema: z.string() } };
const gone = {
  404: { description: "Unknown, expired or revoked: one answer for all three", content: problemContent },
};

const dereferenceByGetRoute = route(
  createRoute({
    method: "get",
    path: "/held/{token}",
    tags: ["Location URIs"],
    summary: "Dereference a location URI (RFC 6753): the patient's latest fix as PIDF-LO",
    description:
      "No credential: the URI is one. A HELD error (application/held+xml, HTTP 200) before the patient's " +
      "first fix (locationUnknown). At most 60 dereferences a minute per URI.",
    security: [],
    request: { params: tokenParams },
    responses: {
      200: { description: "PIDF-LO, or a HELD error", content: { ...pidfXml, ...heldXml } },
      ...errors(429),
      ...gone,
    },
  }),
  (c) => dereference(c, "GET", null),
  { servedWhen },
);

const dereferenceByPostRoute = route(
  createRoute({
    method: "post",
    path: "/held/{token}",
    tags: ["Location URIs"],
    summary: "Dereference a location URI with a HELD locationRequest (RFC 5985, RFC 6753)",
    description:
      "Body: a HELD locationRequest, application/held+xml, at most 16 KiB, no DTD, nesting at most 32. " +
      "HTTP 200 with a locationResponse holding the PIDF-LO, or a HELD error: locationUnknown (no fix yet), " +
      'cannotProvideLiType (locationType exact="true" without geodetic), xmlError, unsupportedMessage.',
    security: [],
    request: { params: tokenParams, body: { content: heldXml, required: true } },
    responses: {
      200: { description: "locationResponse, or a HELD error", content: heldXml },
      ...errors(413, 429),
      ...gone,
    },
  }),
  async (c) => {
    const body = await readTextBody(c.req.raw);
    // Too large is refused before the token is looked at: the answer says nothing about the URI.
    if (!body.ok && body.problem.code === "payload_too_large") throw new ProblemError(body.problem);
    const text = body.ok ? body.value : null;
    return dereference(c, "POST", readLocationRequest(c.req.header("Content-Type"), text, body.ok));
  },
  { servedWhen },
);

/**
 * What the URI answers: 404 for a token we did not seal and for one whose URI is dead (the same answer),
 * 429 over its rate, else the fix or a HELD error (HTTP 200, as HELD's errors are its own messages). The
 * request's own faults are answered only once the URI is known to be alive, so they tell nothing either.
 */
async function dereference(c: Context<AppEnv>, method: "GET" | "POST", refusal: HeldRefusal | null) {
  const ref = await openToken(c.env, c.req.param("token") ?? "");
  if (!ref) throw new ProblemError(uriGone());
  const outcome = await sessionStub(c.env, ref.sessionId).dereferenceLocationUri({
    uriId: ref.uriId,
    method,
    refusal,
  });
  switch (outcome.kind) {
    case "gone":
      throw new ProblemError(uriGone());
    case "rate_limited":
      throw new ProblemError(
        problem("rate_limited", "Too many dereferences of this location URI; retry later.", {
          retryAfter: outcome.retryAfter,
        }),
      );
    case "error":
      return xmlResponse(heldError(outcome.code, outcome.message), HELD_MEDIA_TYPE);
    case "located": {
      const meta = { uriId: ref.uriId, host: new URL(c.req.url).hostname, expiresAt: outcome.expiresAt };
      return method === "GET"
        ? xmlResponse(pidfDocument(outcome.fix, meta), PIDF_MEDIA_TYPE)
        : xmlResponse(locationResponse(outcome.fix, meta), HELD_MEDIA_TYPE);
    }
  }
}

function minterOf(c: Context<AppEnv>): UriMinter {
  if (c.req.header("X-API-Key") !== undefined)
    return { role: "platform", platformId: c.get("apiKey").platformId };
  const claims = c.get("claims");
  return { role: claims.aud, sub: claims.sub, jti: claims.jti };
}

function uriGone() {
  return problem("not_found", "No such location URI.");
}

function xmlResponse(xml: string, mediaType: string): Response {
  // Never cached anywhere: the next read may hold a newer fix, or nothing at all.
  return new Response(xml, {
    status: 200,
    headers: { "Content-Type": `${mediaType}; charset=utf-8`, "Cache-Control": "no-store" },
  });
}
