// The session-token keys, read from the worker's secrets and imported once per isolate: the signing key
// (JWT_SIGNING_KEY) and every public key still accepted (its own, plus JWT_PREVIOUS_PUBLIC_KEYS).
import { CompactSign, compactVerify, importJWK } from "jose";
import type { Env } from "../env.ts";

/** The only JWS algorithm this service signs or accepts. */
export const TOKEN_ALG = "EdDSA";

/** JWT_PREVIOUS_PUBLIC_KEYS is set only while a rotation is under way, so the generated Env leaves it out. */
export type TokenKeyEnv = Pick<Env, "JWT_SIGNING_KEY"> & { JWT_PREVIOUS_PUBLIC_KEYS?: string };

/** A public verification key as published in the JWKS (never a private part). */
export interface PublicSigningJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  alg: "EdDSA";
  use: "sig";
}

export interface TokenKeys {
  signingKid: string;
  signingKey: CryptoKey;
  /** Public keys accepted for verification, by kid: the current key and the previous ones. */
  verificationKeys: ReadonlyMap<string, CryptoKey>;
  /** The same keys as published: the current key first. */
  jwks: readonly PublicSigningJwk[];
}

/**
 * The operator's configuration of the token keys is missing or wrong. The message says what to fix and
 * never contains key material; callers answer 500 (a server fault, never the client's).
 */
export class SigningKeyConfigError extends Error {
  static readonly code = "signing_key_misconfigured";
  readonly code = SigningKeyConfigError.code;
  constructor(message: string) {
    super(message);
    this.name = "SigningKeyConfigError";
  }
}

/** Ed25519 keys (`x` and `d`) are 32 bytes: 43 base64url characters. */
const ED25519_KEY_PART = /^[A-Za-z0-9_-]{43}$/;
const MAX_KID_LENGTH = 256;
/** Tests build a few environments; a deployed isolate has exactly one. */
const MAX_CACHED_CONFIGURATIONS = 8;

const cache = new Map<string, Promise<TokenKeys>>();

/** The keys for this environment, imported on first use and then reused by the isolate. */
export function loadTokenKeys(env: TokenKeyEnv): Promise<TokenKeys> {
  const signing: unknown = env.JWT_SIGNING_KEY;
  const previous: unknown = env.JWT_PREVIOUS_PUBLIC_KEYS;
  const cacheKey = `${String(signing)}\n${String(previous)}`;
  let keys = cache.get(cacheKey);
  if (keys === undefined) {
    if (cache.size >= MAX_CACHED_CONFIGURATIONS) cache.clear();
    keys = importTokenKeys(signing, previous);
    cache.set(cacheKey, keys);
    // A failure is not remembered: the next call reports it again, afresh.
    keys.catch(() => cache.delete(cacheKey));
  }
  return keys;
}

async function importTokenKeys(signingSecret: unknown, previousSecret: unknown): Promise<TokenKeys> {
  const current = parseSigningJwk(signingSecret);
  const signingKey = await importOrFail(
    { kty: "OKP", crv: "Ed25519", x: current.x, d: current.d },
    "JWT_SIGNING_KEY",
  );
  const currentPublic = await importOrFail({ kty: "OKP", crv: "Ed25519", x: current.x }, "JWT_SIGNING_KEY");
  await assertPairMatches(signingKey, currentPublic);

  const verificationKeys = new Map<string, CryptoKey>([[current.kid, currentPublic]]);
  const jwks: PublicSigningJwk[] = [publicJwk(current.x, current.kid)];
  for (const [index, old] of parsePreviousJwks(previousSecret).entries()) {
    if (verificationKeys.has(old.kid)) continue; // the current key, or a duplicate: the first one wins
    const label = `JWT_PREVIOUS_PUBLIC_KEYS[${index}]`;
    verificationKeys.set(old.kid, await importOrFail({ kty: "OKP", crv: "Ed25519", x: old.x }, label));
    jwks.push(publicJwk(old.x, old.kid));
  }
  return { signingKid: current.kid, signingKey, verificationKeys, jwks };
}

function parseSigningJwk(secret: unknown): { x: string; d: string; kid: string } {
  const name = "JWT_SIGNING_KEY";
  if (typeof secret !== "string" || secret.trim() === "") {
    throw new SigningKeyConfigError(
      `${name} is not set: locally \`npm run dev\` writes it to .dev.vars; in production run \`wrangler secret put ${name}\` with an Ed25519 private JWK`,
    );
  }
  const jwk = parseJsonOrFail(secret, name);
  const { x, d, kid } = readOkpFields(jwk, name);
  if (typeof d !== "string" || !ED25519_KEY_PART.test(d)) {
    throw new SigningKeyConfigError(
      `${name} must be an Ed25519 private JWK: its "d" is missing or malformed`,
    );
  }
  return { x, d, kid };
}

function parsePreviousJwks(secret: unknown): { x: string; kid: string }[] {
  const name = "JWT_PREVIOUS_PUBLIC_KEYS";
  if (secret === undefined || secret === null || (typeof secret === "string" && secret.trim() === ""))
    return [];
  if (typeof secret !== "string") throw new SigningKeyConfigError(`${name} must be a JSON string`);
  const parsed = parseJsonOrFail(secret, name);
  // A whole JWKS document ({ "keys": [...] }, as served by /.well-known/jwks.json) is accepted too.
  const list = isRecord(parsed) && Array.isArray(parsed.keys) ? parsed.keys : parsed;
  if (!Array.isArray(list)) {
    throw new SigningKeyConfigError(`${name} must be a JSON array of Ed25519 public JWKs, each with a "kid"`);
  }
  // Only x and kid are kept: a private part pasted here by mistake is never used nor published.
  return list.map((jwk, index) => {
    const { x, kid } = readOkpFields(jwk, `${name}[${index}]`);
    return { x, kid };
  });
}

function readOkpFields(jwk: unknown, name: string): { x: string; d: unknown; kid: string } {
  if (!isRecord(jwk) || jwk.kty !== "OKP" || jwk.crv !== "Ed25519") {
    throw new SigningKeyConfigError(`${name} must be an Ed25519 JWK ("kty": "OKP", "crv": "Ed25519")`);
  }
  if (typeof jwk.x !== "string" || !ED25519_KEY_PART.test(jwk.x)) {
    throw new SigningKeyConfigError(`${name}: its "x" (public key) is missing or malformed`);
  }
  if (typeof jwk.kid !== "string" || jwk.kid === "" || jwk.kid.length > MAX_KID_LENGTH) {
    throw new SigningKeyConfigError(
      `${name} needs a "kid" (a non-empty string) so tokens can name their key`,
    );
  }
  if (jwk.alg !== undefined && jwk.alg !== TOKEN_ALG && jwk.alg !== "Ed25519") {
    throw new SigningKeyConfigError(`${name}: "alg" must be "${TOKEN_ALG}" when present`);
  }
  return { x: jwk.x, d: jwk.d, kid: jwk.kid };
}

function parseJsonOrFail(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the input: never pass it on.
    throw new SigningKeyConfigError(`${name} is not valid JSON`);
  }
}

async function importOrFail(jwk: { kty: "OKP"; crv: "Ed25519"; x: string; d?: string }, name: string) {
  try {
    return await importJWK(jwk, TOKEN_ALG);
  } catch {
    throw new SigningKeyConfigError(`${name} could not be imported as an Ed25519 key`);
  }
}

/** A `d` that does not belong to `x` would sign tokens that nobody can verify: catch it at load. */
async function assertPairMatches(privateKey: CryptoKey, publicKey: CryptoKey): Promise<void> {
  try {
    const probe = await new CompactSign(new TextEncoder().encode("key-check"))
      .setProtectedHeader({ alg: TOKEN_ALG })
      .sign(privateKey);
    await compactVerify(probe, publicKey, { algorithms: [TOKEN_ALG] });
  } catch {
    throw new SigningKeyConfigError(
      'JWT_SIGNING_KEY: its private part "d" does not match its public part "x"',
    );
  }
}

function publicJwk(x: string, kid: string): PublicSigningJwk {
  return { kty: "OKP", crv: "Ed25519", x, kid, alg: TOKEN_ALG, use: "sig" };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
