// Session tokens (docs/contract.md, section 1): one JWT per role, signed EdDSA with the current key, verified by kid.
import { errors, type JWTHeaderParameters, jwtVerify, SignJWT } from "jose";
import { AUTH_LIMITS, SESSION_LIMITS } from "../../lib/config.ts";
import { LruCache } from "../../lib/lru-cache.ts";
import type { Role, SessionTokenClaims } from "../../sdk/src/protocol.ts";
import type { Env } from "../env.ts";
import {
  loadTokenKeys,
  SigningKeyConfigError,
  TOKEN_ALG,
  type TokenKeyEnv,
  type TokenKeys,
} from "./token-keys.ts";

export type SessionTokenEnv = TokenKeyEnv & Pick<Env, "JWT_ISSUER">;

export interface SessionTokenSubjects {
  sessionId: string;
  platformId: string;
  patientId: string;
  counselorId: string;
  /** The session's `expires_at`. Tokens stay verifiable `SESSION_LIMITS.tokenGraceMs` longer: the session object, not `exp`, decides liveness. */
  expiresAt: Date;
}

export interface SessionTokens {
  patient_token: string;
  counselor_token: string;
}

/**
 * `invalid`: malformed, forged, unknown key, wrong issuer or audience, claims missing or ill-typed (401).
 * `expired`: genuine and well-formed, only past `exp` (410 session_expired, once its claims show it is used
 * on its own session and role: else 403).
 */
export type SessionTokenVerification =
  | { ok: true; claims: SessionTokenClaims }
  | { ok: false; reason: "expired"; claims: SessionTokenClaims }
  | { ok: false; reason: "invalid" };

const TOKEN_TYPE = "JWT";
const ROLES: readonly Role[] = ["patient", "counselor"];
/** Our tokens are about 450 characters; anything far longer is not one of them. */
const MAX_TOKEN_LENGTH = 4096;
/** Three base64url parts, the signature not empty (so `alg: none` tokens stop here already). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_CLAIM_LENGTH = 512;

const INVALID: SessionTokenVerification = { ok: false, reason: "invalid" };

/**
 * Tokens this isolate has found genuine, with their claims, under the key set that verified them: the
 * same text under the same keys verifies the same way, so only `exp` (and the issuer, which comes from
 * the environment) is checked again. A new key set (a rotation) starts with none; bad tokens are never
 * remembered, so forged ones cannot crowd out good ones; the least recently used is dropped first, so
 * the tokens of sessions in use stay.
 */
const genuineTokens = new WeakMap<TokenKeys, LruCache<SessionTokenClaims>>();

function rememberGenuine(keys: TokenKeys, token: string, claims: SessionTokenClaims): void {
  let known = genuineTokens.get(keys);
  if (known === undefined) {
    const max = AUTH_LIMITS.verifiedTokenCacheMaxEntries;
    known = new LruCache(max, max);
    genuineTokens.set(keys, known);
  }
  // Frozen: every later request of the session gets this same object. Each counts 1 against the bound.
  known.set(token, Object.freeze(claims), 1);
}

/** As jose decides it: expired once `exp` is at or before the current second. */
function byExpiry(claims: SessionTokenClaims): SessionTokenVerification {
  return claims.exp <= Math.floor(Date.now() / 1000)
    ? { ok: false, reason: "expired", claims }
    : { ok: true, claims };
}

/**
 * The patient's and the counselor's token for a new session. Throws `SigningKeyConfigError` when the
 * signing key or issuer is not configured (an operator error: answer 500), `TypeError` on bad input.
 */
export async function issueSessionTokens(
  env: SessionTokenEnv,
  subjects: SessionTokenSubjects,
): Promise<SessionTokens> {
  const issuer = configuredIssuer(env);
  const keys = await loadTokenKeys(env);
  const { sessionId, platformId, patientId, counselorId, expiresAt } = subjects;
  for (const [name, value] of Object.entries({ sessionId, platformId, patientId, counselorId })) {
    if (typeof value !== "string" || value === "") throw new TypeError(`${name} must be a non-empty string`);
  }
  if (!(expiresAt instanceof Date) || Number.isNaN(expiresAt.getTime())) {
    throw new TypeError("expiresAt must be a valid Date");
  }
  const iat = Math.floor(Date.now() / 1000);
  const exp = Math.floor((expiresAt.getTime() + SESSION_LIMITS.tokenGraceMs) / 1000);
  const sign = (role: Role, subject: string) =>
    new SignJWT({ sid: sessionId, pid: platformId })
      .setProtectedHeader({ alg: TOKEN_ALG, kid: keys.signingKid, typ: TOKEN_TYPE })
      .setIssuer(issuer)
      .setAudience(role)
      .setSubject(subject)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(crypto.randomUUID())
      .sign(keys.signingKey);
  const [patient_token, counselor_token] = await Promise.all([
    sign("patient", patientId),
    sign("counselor", counselorId),
  ]);
  return { patient_token, counselor_token };
}

/**
 * Checks a session token: EdDSA only, a known `kid` (current or previous key), this service's issuer,
 * `aud` patient or counselor, every claim present and typed. Never throws for a bad token; throws
 * `SigningKeyConfigError` only when the service's own keys are misconfigured.
 */
export async function verifySessionToken(
  env: SessionTokenEnv,
  token: unknown,
): Promise<SessionTokenVerification> {
  const issuer = configuredIssuer(env);
  const keys = await loadTokenKeys(env);
  if (typeof token !== "string" || token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token))
    return INVALID;
  const known = genuineTokens.get(keys)?.get(token);
  if (known !== undefined && known.iss === issuer) return byExpiry(known);
  try {
    const { payload } = await jwtVerify(token, (header) => verificationKey(keys, header), {
      algorithms: [TOKEN_ALG],
      typ: TOKEN_TYPE,
      issuer,
      audience: [...ROLES],
    });
    const claims = readClaims(payload, issuer);
    if (claims === null) return INVALID;
    rememberGenuine(keys, token, claims);
    return { ok: true, claims };
  } catch (error) {
    // jose reports expiry only after the signature, typ, issuer and audience have passed.
    if (error instanceof errors.JWTExpired) {
      const claims = readClaims(error.payload, issuer);
      if (claims !== null) {
        rememberGenuine(keys, token, claims);
        return { ok: false, reason: "expired", claims };
      }
    }
    return INVALID;
  }
}

function verificationKey(keys: TokenKeys, header: JWTHeaderParameters): CryptoKey {
  const key =
    header.alg === TOKEN_ALG && typeof header.kid === "string"
      ? keys.verificationKeys.get(header.kid)
      : undefined;
  if (key === undefined) throw new errors.JWKSNoMatchingKey();
  return key;
}

/** The claims as typed, or null if any is missing or of the wrong type (jose checks only some of them). */
function readClaims(payload: Record<string, unknown>, issuer: string): SessionTokenClaims | null {
  const { iss, aud, sub, sid, pid, iat, exp, jti } = payload;
  if (iss !== issuer) return null;
  if (typeof aud !== "string" || !ROLES.includes(aud as Role)) return null;
  if (!isShortString(sub) || !isShortString(sid) || !isShortString(pid) || !isShortString(jti)) return null;
  if (!isNumericDate(iat) || !isNumericDate(exp)) return null;
  return { iss, aud: aud as Role, sub, sid, pid, iat, exp, jti };
}

function configuredIssuer(env: Pick<Env, "JWT_ISSUER">): string {
  const issuer: unknown = env.JWT_ISSUER;
  if (typeof issuer !== "string" || issuer === "") {
    throw new SigningKeyConfigError("JWT_ISSUER is not set (wrangler.toml [vars])");
  }
  return issuer;
}

function isShortString(value: unknown): value is string {
  return typeof value === "string" && value !== "" && value.length <= MAX_CLAIM_LENGTH;
}

function isNumericDate(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}
