// Resolves an `X-API-Key` value to its platform: format check, then a hash lookup in D1 behind the isolate cache.

import { hashApiKey, isWellFormedApiKey } from "./api-key.ts";
import { type ApiKeyIdentity, cachedLookup, rememberLookup } from "./api-key-cache.ts";

/**
 * The platform and key id of a live (not revoked) API key, or null. Garbage is refused without a
 * database read. Comparison is by hash lookup, so timing reveals nothing about stored keys.
 * A key revoked in another isolate stops here within `AUTH_LIMITS.apiKeyCacheMs` (5 s).
 * Throws only if D1 fails (a server error, not the caller's).
 */
export async function authenticateApiKey(
  db: D1Database,
  presentedKey: string | null | undefined,
): Promise<ApiKeyIdentity | null> {
  if (!isWellFormedApiKey(presentedKey)) return null;
  const keyHash = await hashApiKey(presentedKey);
  const now = Date.now();
  const cached = cachedLookup(keyHash, now);
  if (cached !== undefined) return cached;
  const lookup = findLiveKey(db, keyHash);
  rememberLookup(keyHash, lookup, now);
  return lookup;
}

async function findLiveKey(db: D1Database, keyHash: string): Promise<ApiKeyIdentity | null> {
  const row = await db
    .prepare("SELECT id, platform_id FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL")
    .bind(keyHash)
    .first<{ id: string; platform_id: string }>();
  return row === null ? null : { platformId: row.platform_id, apiKeyId: row.id };
}
