// A location URI's token: the session's id and the URI's own random id, sealed with AES-256-GCM, so the
// worker finds the session object from the URI alone (no lookup table, nothing written outside the
// session) while the URI shows nothing of the session, and a token nobody sealed is refused before any
// object is woken. Whether a URI still answers is the session object's to say (it records each URI with
// the SOS it belongs to); this file only tells a token we made from one we did not.
//
// The key is derived (HKDF-SHA-256, its own label) from the signing key's private part, so a deployment
// needs no secret of its own for it; rotating JWT_SIGNING_KEY therefore ends the live URIs (they last an
// hour at most).
import { base64url } from "jose";
import { HELD_LIMITS } from "../../lib/config.ts";
import { SigningKeyConfigError } from "../auth/token-keys.ts";
import type { Env } from "../env.ts";

const IV_BYTES = 12;
const SESSION_ID_BYTES = 16;
const TAG_BYTES = 16;
/** What a token decodes to: the IV, then the sealed session id and URI id with their tag. */
const TOKEN_BYTES = IV_BYTES + SESSION_ID_BYTES + HELD_LIMITS.uriIdBytes + TAG_BYTES;
/** base64url without padding: 4 characters for every 3 bytes. */
const TOKEN_PATTERN = new RegExp(`^[A-Za-z0-9_-]{${Math.ceil((TOKEN_BYTES * 4) / 3)}}$`);
/** Bound into every token, so a token of another kind or version never opens as this one. */
const ADDITIONAL_DATA = new TextEncoder().encode("sos-held-token-v1");
const KEY_LABEL = new TextEncoder().encode("sos-held-location-uri-key-v1");

/** A sealed token's content: which session, and which of its URIs. */
export interface UriRef {
  sessionId: string;
  /** `luri_` + the URI id's base64url: what audit events and webhooks name the URI by. */
  uriId: string;
}

const keys = new Map<string, Promise<CryptoKey>>();

/** The sealing key for this deployment's signing key, derived once per isolate. */
function sealingKey(env: Pick<Env, "JWT_SIGNING_KEY">): Promise<CryptoKey> {
  const secret = String(env.JWT_SIGNING_KEY ?? "");
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 8) keys.clear(); // tests build a few environments; a deployment has one
    key = deriveKey(secret);
    keys.set(secret, key);
    key.catch(() => keys.delete(secret));
  }
  return key;
}

async function deriveKey(secret: string): Promise<CryptoKey> {
  let d: unknown;
  try {
    d = (JSON.parse(secret) as { d?: unknown }).d;
  } catch {
    d = undefined;
  }
  if (typeof d !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(d)) {
    throw new SigningKeyConfigError(
      "JWT_SIGNING_KEY has no private part to derive the location URI key from",
    );
  }
  const material = await crypto.subtle.importKey("raw", base64url.decode(d), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: KEY_LABEL },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** A new URI id: 128 random bits. */
export function newUriId(): string {
  return `luri_${base64url.encode(crypto.getRandomValues(new Uint8Array(HELD_LIMITS.uriIdBytes)))}`;
}

/** The token of URI `uriId` of session `sessionId` (a UUID): a fresh random IV each time. */
export async function sealToken(env: Pick<Env, "JWT_SIGNING_KEY">, ref: UriRef): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const plain = new Uint8Array(SESSION_ID_BYTES + HELD_LIMITS.uriIdBytes);
  plain.set(uuidBytes(ref.sessionId), 0);
  plain.set(base64url.decode(ref.uriId.slice("luri_".length)), SESSION_ID_BYTES);
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: ADDITIONAL_DATA },
    await sealingKey(env),
    plain,
  );
  const token = new Uint8Array(IV_BYTES + sealed.byteLength);
  token.set(iv, 0);
  token.set(new Uint8Array(sealed), IV_BYTES);
  return base64url.encode(token);
}

/** What `token` was sealed with, or null for anything this deployment did not seal (forged, cut, another key). */
export async function openToken(env: Pick<Env, "JWT_SIGNING_KEY">, token: string): Promise<UriRef | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const bytes = base64url.decode(token);
  if (bytes.length !== TOKEN_BYTES) return null;
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.subarray(0, IV_BYTES), additionalData: ADDITIONAL_DATA },
      await sealingKey(env),
      bytes.subarray(IV_BYTES),
    );
  } catch (error) {
    // A broken key configuration is ours to report; a tag that does not verify is the caller's token.
    if (error instanceof SigningKeyConfigError) throw error;
    return null;
  }
  const content = new Uint8Array(plain);
  return {
    sessionId: uuidOf(content.subarray(0, SESSION_ID_BYTES)),
    uriId: `luri_${base64url.encode(content.subarray(SESSION_ID_BYTES))}`,
  };
}

function uuidBytes(uuid: string): Uint8Array {
  const hex = uuid.replaceAll("-", "");
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new Error("not a session id");
  return Uint8Array.from({ length: 16 }, (_, i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16));
}

function uuidOf(bytes: Uint8Array): string {
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
