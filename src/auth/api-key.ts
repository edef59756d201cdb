// API key and id formats, and the hash under which a key is stored. Pure WebCrypto: scripts/dev.ts uses it too.
import { AUTH_LIMITS } from "../../lib/config.ts";
import { randomBase62 } from "./random.ts";

export const API_KEY_PREFIX = "sk_live_";
export const PLATFORM_ID_PREFIX = "plt_";
export const API_KEY_ID_PREFIX = "key_";

/**
 * What an API key may look like. Keys we issue have exactly `apiKeyRandomChars` (40) characters after
 * the prefix; the range leaves room to change that length without locking out keys already issued.
 */
const API_KEY_PATTERN = /^sk_live_[0-9A-Za-z]{32,64}$/;

/** A new secret API key: `sk_live_` + 40 uniformly random base62 characters (about 238 bits). */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBase62(AUTH_LIMITS.apiKeyRandomChars);
}

/** Cheap syntactic check, so garbage never costs a hash or a database read. */
export function isWellFormedApiKey(value: unknown): value is string {
  return typeof value === "string" && API_KEY_PATTERN.test(value);
}

/** Lower-case hex SHA-256 of the whole key (prefix included): the only form in which a key is stored. */
export async function hashApiKey(key: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  let hex = "";
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** `plt_` + random base62: URL-safe as is. */
export function newPlatformId(): string {
  return PLATFORM_ID_PREFIX + randomBase62(AUTH_LIMITS.idRandomChars);
}

/** `key_` + random base62: names a key (for revocation) without revealing it. */
export function newApiKeyId(): string {
  return API_KEY_ID_PREFIX + randomBase62(AUTH_LIMITS.idRandomChars);
}
