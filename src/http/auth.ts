// Auth middleware: admin token, platform API key, session token. Each sets the verified identity or
// refuses, in the contract's order (401, then 403, then 410 for a token past its `exp`); every 401
// carries a `WWW-Authenticate` challenge.
import type { Context, MiddlewareHandler } from "hono";
import type { Role, SessionTokenClaims } from "../../sdk/src/protocol.ts";
import { isAdminToken } from "../auth/admin-token.ts";
import { authenticateApiKey } from "../auth/authenticate-api-key.ts";
import { verifySessionToken } from "../auth/session-tokens.ts";
import type { Env } from "../env.ts";
import { type ProblemCode, ProblemError, problem } from "../problem.ts";
import { sessionOver } from "../session/problems.ts";
import type { AppEnv } from "./context.ts";
import { apiKeyRateProblem, withinApiKeyRate } from "./rate-limit.ts";

const REALM = "sos";

/** RFC 6750: no `error` when no credentials were sent; `invalid_token` when they were bad. */
function bearerChallenge(realm: string, invalid: boolean): string {
  return invalid ? `Bearer realm="${realm}", error="invalid_token"` : `Bearer realm="${realm}"`;
}

function unauthorized(code: ProblemCode, detail: string, challenge: string): ProblemError {
  return new ProblemError(problem(code, detail, { challenge }));
}

/** The bearer token, "" for an Authorization header of another form, null without one. */
function bearerToken(c: Context<AppEnv>): string | null {
  const header = c.req.header("Authorization");
  if (header === undefined) return null;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? "";
}

export function requireAdmin(): MiddlewareHandler<AppEnv> {
  const realm = `${REALM}-admin`;
  return async function adminAuth(c, next) {
    const token = bearerToken(c);
    if (token === null) {
      throw unauthorized(
        "missing_credentials",
        "Send Authorization: Bearer <admin token>.",
        bearerChallenge(realm, false),
      );
    }
    if (!(await isAdminToken(c.env, token))) {
      throw unauthorized(
        "invalid_admin_token",
        "The admin token is not valid.",
        bearerChallenge(realm, true),
      );
    }
    await next();
  };
}

/** X-API-Key for the path's platform, within the key's rate. */
export function requireApiKey(): MiddlewareHandler<AppEnv> {
  const challenge = `ApiKey realm="${REALM}", header="X-API-Key"`;
  return async function apiKeyAuth(c, next) {
    const presented = c.req.header("X-API-Key");
    if (!presented) {
      throw unauthorized("missing_credentials", "Send the platform's API key in X-API-Key.", challenge);
    }
    const identity = await authenticateApiKey(c.env.DB, presented);
    if (!identity) {
      throw unauthorized("invalid_api_key", "The API key is not valid or was revoked.", challenge);
    }
    if (identity.platformId !== c.req.param("platformId")) {
      throw new ProblemError(problem("forbidden", "This API key belongs to another platform."));
    }
    if (!(await withinApiKeyRate(c.env, identity.apiKeyId))) throw new ProblemError(apiKeyRateProblem());
    c.set("apiKey", identity);
    await next();
  };
}

/**
 * LoST's credentials (docs/contract.md, section 9): a platform's API key in X-API-Key, or HTTP Basic with the platform id
 * as the user and the key as the password (what a SIP server's HTTP client sends); within the key's rate.
 * A 401 challenges for Basic, which clients such as Kamailio's answer by sending the credentials.
 */
export function requireLostCredentials(): MiddlewareHandler<AppEnv> {
  const challenge = 'Basic realm="lost"';
  return async function lostAuth(c, next) {
    const presented = c.req.header("X-API-Key") ?? basicCredentials(c.req.header("Authorization"));
    if (presented === undefined) {
      throw unauthorized(
        "missing_credentials",
        "Send the platform's API key in X-API-Key, or HTTP Basic with the platform id and the key.",
        challenge,
      );
    }
    const key = typeof presented === "string" ? presented : presented.password;
    const identity = key ? await authenticateApiKey(c.env.DB, key) : null;
    // With Basic, the user must be the key's own platform.
    if (!identity || (typeof presented !== "string" && presented.user !== identity.platformId)) {
      throw unauthorized(
        "invalid_api_key",
        "The platform id or API key is not valid, or was revoked.",
        challenge,
      );
    }
    if (!(await withinApiKeyRate(c.env, identity.apiKeyId))) throw new ProblemError(apiKeyRateProblem());
    c.set("apiKey", identity);
    await next();
  };
}

/** HTTP Basic credentials (RFC 7617), or undefined without them; a malformed header gives empty ones. */
function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  if (header === undefined) return undefined;
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)?.[1];
  if (!encoded) return { user: "", password: "" };
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      Uint8Array.from(atob(encoded), (ch) => ch.charCodeAt(0)),
    );
  } catch {
    return { user: "", password: "" };
  }
  const colon = decoded.indexOf(":");
  return colon < 0
    ? { user: "", password: "" }
    : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** A session token of `role` for the path's platform and session. Rate limits are the session object's. */
export function requireSessionToken(role: Role): MiddlewareHandler<AppEnv> {
  return async function sessionTokenAuth(c, next) {
    const token = bearerToken(c);
    if (token === null) {
      throw unauthorized(
        "missing_credentials",
        `Send Authorization: Bearer <${role} token>.`,
        bearerChallenge(REALM, false),
      );
    }
    const { claims, expired } = await genuineClaims(c.env, token);
    // A token for another role, platform or session is refused as such, even past its `exp`.
    if (claims.aud !== role)
      throw new ProblemError(problem("forbidden", `This action needs a ${role} token.`));
    if (claims.pid !== c.req.param("platformId") || claims.sid !== c.req.param("sessionId")) {
      throw new ProblemError(problem("forbidden", "This token is for another session."));
    }
    if (expired) throw new ProblemError(sessionOver("expired"));
    c.set("claims", claims);
    await next();
  };
}

/**
 * Either credential, for a route both the platform's backend and a browser call (a location URI): the
 * platform's API key when X-API-Key is sent, else the session's token of `role`.
 */
export function requireApiKeyOrSessionToken(role: Role): MiddlewareHandler<AppEnv> {
  const apiKey = requireApiKey();
  const sessionToken = requireSessionToken(role);
  return async function apiKeyOrSessionTokenAuth(c, next) {
    return c.req.header("X-API-Key") === undefined ? sessionToken(c, next) : apiKey(c, next);
  };
}

/** The claims of a live session token (for `/ws`, where no path names a session): 401 or 410 otherwise. */
export async function liveClaims(env: Env, token: string): Promise<SessionTokenClaims> {
  const { claims, expired } = await genuineClaims(env, token);
  if (expired) throw new ProblemError(sessionOver("expired"));
  return claims;
}

export function missingSocketToken(): ProblemError {
  return unauthorized(
    "missing_credentials",
    "Pass the session token as ?token=.",
    bearerChallenge(REALM, false),
  );
}

/** A token we signed (past its `exp` or not); 401 for anything else. */
async function genuineClaims(
  env: Env,
  token: string,
): Promise<{ claims: SessionTokenClaims; expired: boolean }> {
  const verified = await verifySessionToken(env, token);
  if (verified.ok) return { claims: verified.claims, expired: false };
  if (verified.reason === "expired") return { claims: verified.claims, expired: true };
  throw unauthorized(
    "invalid_token",
    "The token is malformed, forged or not for this service.",
    bearerChallenge(REALM, true),
  );
}
