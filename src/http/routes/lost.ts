// LoST (docs/contract.md, section 9): `POST /lost` answers a SIP server's findService with the PSAP the session API
// would put first for the same fix, and an operator reads how many queries each platform made.
// Credentials, rate and size are refused with problem+json; everything past them is answered in LoST's
// own XML (HTTP 200 with `errors`), which is all a SIP server's LoST client reads.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { PSAP_LIMITS } from "../../../lib/config.ts";
import { d1Contacts } from "../../contacts/store.ts";
import type { Env } from "../../env.ts";
import { errorSummary } from "../../error-name.ts";
import { answerFindService } from "../../lost/answer.ts";
import { type FindServiceRequest, LostError, readFindService } from "../../lost/request.ts";
import { errorsResponse, findServiceResponse, type LostMapping } from "../../lost/response.ts";
import { lostUsage } from "../../lost/usage-object.ts";
import { ProblemError } from "../../problem.ts";
import { withTimeout } from "../../timeout.ts";
import { requireAdmin, requireLostCredentials } from "../auth.ts";
import { readTextBody } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { knownPlatform } from "../known-platform.ts";
import { type App, errors, json, needs, platformParams, route, serve } from "../route.ts";
import { LostUsageResponse } from "../schemas-lost.ts";

export function mountLostRoutes(app: App): void {
  serve(app, findServiceRoute, lostUsageRoute);
}

const LOST_MEDIA_TYPE = "application/lost+xml";
const lostXml = { [LOST_MEDIA_TYPE]: { schema: z.string() } };

const findServiceRoute = route(
  createRoute({
    method: "post",
    path: "/lost",
    tags: ["LoST"],
    summary: "LoST findService (RFC 5222): the PSAP or crisis line for a geodetic location",
    description:
      "Served only where the deployment sets LOST_ENABLED=true. Credentials: the platform's API key in " +
      "X-API-Key, or HTTP Basic with the platform id and the key. Every answer past credentials, rate and " +
      "size is HTTP 200 application/lost+xml: a findServiceResponse or an errors element.",
    security: [...needs("ApiKey"), ...needs("LostBasic")],
    middleware: requireLostCredentials(),
    request: { body: { content: lostXml, required: true } },
    responses: {
      200: { description: "findServiceResponse, or errors with one LoST error", content: lostXml },
      ...errors(401, 413, 429),
    },
  }),
  async (c) => {
    const startedAt = Date.now();
    const body = await readTextBody(c.req.raw);
    // Too large is refused before anything is read (problem+json, docs/contract.md, section 9); the rest is LoST's.
    if (!body.ok && body.problem.code === "payload_too_large") throw new ProblemError(body.problem);
    countQuery(c);
    const source = lostSource(c.env, c.req.url);
    try {
      const text = body.ok ? body.value : null;
      const request = readFindService(acceptedText(c.req.header("Content-Type"), text, body.ok));
      const mapping = await answerWithinTime(c, request, startedAt);
      const validated = request.validateLocation ? request.fix.elements : undefined;
      return lostResponse(
        findServiceResponse({ source, mapping, locationId: request.locationId, validated }),
      );
    } catch (error) {
      if (error instanceof LostError) return lostResponse(errorsResponse(source, error));
      // Not a fact about the world: LoST's internalError, with the kind logged (never the request).
      console.error(`LoST query failed: ${errorSummary(error)}`);
      const failed = new LostError("internalError", "the query failed on our side; try again");
      return lostResponse(errorsResponse(source, failed));
    }
  },
  { servedWhen: (env) => env.LOST_ENABLED === "true" },
);

const lostUsageRoute = route(
  createRoute({
    method: "get",
    path: "/v1/admin/platforms/{platformId}/lost-usage",
    tags: ["LoST"],
    summary: "How many LoST queries a platform made, per UTC day (newest first)",
    security: needs("AdminToken"),
    middleware: requireAdmin(),
    request: { params: platformParams },
    responses: {
      200: { description: "Queries per day", content: json(LostUsageResponse) },
      ...errors(401, 404),
    },
  }),
  async (c) => {
    const platformId = await knownPlatform(c);
    const days = await lostUsage(c.env, platformId).read();
    return c.json({ platform_id: platformId, days }, 200, { "Cache-Control": "no-store" });
  },
);

/**
 * The body as LoST reads it, or a badRequest saying what is wrong with it: the media type must be
 * application/lost+xml (a charset, if given, utf-8), and the bytes UTF-8.
 */
function acceptedText(contentType: string | undefined, text: string | null, complete: boolean): string {
  if (!complete) throw new LostError("badRequest", "the request body broke off before its end");
  const [mediaType = "", ...parameters] = (contentType ?? "")
    .split(";")
    .map((part) => part.trim().toLowerCase());
  if (mediaType !== LOST_MEDIA_TYPE) {
    throw new LostError("badRequest", `the request's Content-Type must be ${LOST_MEDIA_TYPE}`);
  }
  const charset = parameters
    .find((p) => p.startsWith("charset="))
    ?.slice("charset=".length)
    .replaceAll('"', "");
  if (charset !== undefined && charset !== "utf-8") {
    throw new LostError("badRequest", "the request's charset must be utf-8");
  }
  if (text === null) throw new LostError("badRequest", "the request body is not valid UTF-8");
  return text;
}

/** The mapping, or internalError when the PSAP data gives no answer in the session API's time. */
async function answerWithinTime(
  c: Context<AppEnv>,
  request: FindServiceRequest,
  startedAt: number,
): Promise<LostMapping> {
  const limitMs = PSAP_LIMITS.lookupTimeoutMs;
  const answering = answerFindService(c.env.PSAP_INDEX, request, {
    now: startedAt,
    sipDomain: c.env.LOST_SIP_DOMAIN || undefined,
    lookup: { contacts: d1Contacts(c.env.DB) },
  });
  // A late answer is dropped, but never left rejecting unheard.
  answering.catch(() => undefined);
  return withTimeout(answering, limitMs, () => {
    throw new LostError(
      "internalError",
      `the PSAP data gave no answer within ${limitMs} ms; try again shortly`,
    );
  });
}

/** Counts the query for its platform, off the query's path: a count that fails costs the answer nothing. */
function countQuery(c: Context<AppEnv>): void {
  const day = new Date().toISOString().slice(0, 10);
  const counting = lostUsage(c.env, c.get("apiKey").platformId)
    .count(day)
    .catch((error: unknown) => console.error(`LoST usage count failed: ${errorSummary(error)}`));
  c.executionCtx.waitUntil(counting);
}

/** RFC 5222's appUniqueString: a dotted name, no port (`localhost` and `host:8787` are not one). */
const APP_UNIQUE_STRING = /^([a-zA-Z0-9-]+\.)+[a-zA-Z0-9]+$/;
/** An IPv4 address matches the pattern above, but RFC 5222 wants a host name there: never an address. */
const IPV4 = /^\d+(\.\d+){3}$/;

/**
 * The answers' `source`, the deployment's host name: LOST_SOURCE where the operator names it, else the host
 * the request reached when it is a dotted host name, else (an address such as 127.0.0.1, or a name LoST's
 * schema does not take, such as `localhost`) JWT_ISSUER's host (`sos.localhost` locally).
 */
export function lostSource(env: Pick<Env, "LOST_SOURCE" | "JWT_ISSUER">, requestUrl: string): string {
  if (env.LOST_SOURCE) return env.LOST_SOURCE;
  const reached = new URL(requestUrl).hostname;
  return isHostName(reached) ? reached : new URL(env.JWT_ISSUER).hostname;
}

function isHostName(host: string): boolean {
  return APP_UNIQUE_STRING.test(host) && !IPV4.test(host);
}

function lostResponse(xml: string): Response {
  return new Response(xml, {
    status: 200,
    headers: { "Content-Type": `${LOST_MEDIA_TYPE}; charset=utf-8`, "Cache-Control": "no-store" },
  });
}
