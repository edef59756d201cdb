// Auth middleware: admin token, platform API key, session token. Each sets the verified identity or answers.
import type { Context, MiddlewareHandler } from "hono";
import type { Role, SessionTokenClaims } from "../../sdk/src/protocol.ts";
import { isAdminToken } from "../auth/admin-token.ts";
import { authenticateApiKey } from "../auth/authenticate-api-key.ts";
import { verifySessionToken } from "../auth/session-tokens.ts";
import type { Env } from "../env.ts";
import type { AppEnv } from "./context.ts";
import { ProblemError, problem } from "./problem.ts";
import { apiKeyRateProblem, withinApiKeyRate, withinSessionRate } from "./rate-limit.ts";

function bearerToken(c: Context<AppEnv>): string | null {
  const header = c.req.header("Authorization");
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? "";
}

export function requireAdmin(): MiddlewareHandler<AppEnv> {
  return async function adminAuth(c, next) {
    const token = bearerToken(c);
    if (token === null)
      throw new ProblemError(problem("missing_credentials", "Send Authorization: Bearer <admin token>."));
    if (!(await isAdminToken(c.env, token))) {
      throw new ProblemError(problem("invalid_admin_token", "The admin token is not valid."));
    }
    await next();
  };
}

/** X-API-Key for the path's platform, within the key's rate. */
export function requireApiKey(): MiddlewareHandler<AppEnv> {
  return async function apiKeyAuth(c, next) {
    const presented = c.req.header("X-API-Key");
    if (!presented)
      throw new ProblemError(problem("missing_credentials", "Send the platform's API key in X-API-Key."));
    const identity = await authenticateApiKey(c.env.DB, presented);
    if (!identity)
      throw new ProblemError(problem("invalid_api_key", "The API key is not valid or was revoked."));
    if (identity.platformId !== c.req.param("platformId")) {
      throw new ProblemError(problem("forbidden", "This API key belongs to another platform."));
    }
    if (!(await withinApiKeyRate(c.env, identity.apiKeyId))) throw new ProblemError(apiKeyRateProblem());
    c.set("apiKey", identity);
    await next();
  };
}

/** The claims of a genuine session token; 401 when it is not one, 410 when only its `exp` has passed. */
export async function verifiedClaims(env: Env, token: string): Promise<SessionTokenClaims> {
  const verified = await verifySessionToken(env, token);
  if (verified.ok) return verified.claims;
  if (verified.reason === "expired")
    throw new ProblemError(problem("session_expired", "This session has expired."));
  throw new ProblemError(problem("invalid_token", "The token is malformed, forged or not for this service."));
}

/**
 * A session token of `role` for the path's platform and session. Over-rate requests are marked, not refused:
 * the route decides (the first SOS trigger of a session is never refused for rate).
 */
export function requireSessionToken(role: Role): MiddlewareHandler<AppEnv> {
  return async function sessionTokenAuth(c, next) {
    const token = bearerToken(c);
    if (token === null)
      throw new ProblemError(problem("missing_credentials", `Send Authorization: Bearer <${role} token>.`));
    const claims = await verifiedClaims(c.env, token);
    if (claims.aud !== role)
      throw new ProblemError(problem("forbidden", `This action needs a ${role} token.`));
    if (claims.pid !== c.req.param("platformId") || claims.sid !== c.req.param("sessionId")) {
      throw new ProblemError(problem("forbidden", "This token is for another session."));
    }
    c.set("claims", claims);
    c.set("rateLimited", !(await withinSessionRate(c.env, claims.sid, claims.aud)));
    await next();
  };
}
