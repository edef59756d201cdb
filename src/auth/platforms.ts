// Platforms and their API keys in D1: create, rotate (add a key), revoke. Plaintext keys leave only in the answer.

import { generateApiKey, hashApiKey, newApiKeyId, newPlatformId } from "./api-key.ts";
import { forgetLookup } from "./api-key-cache.ts";

export interface CreatedPlatform {
  platform_id: string;
  name: string;
  /** Shown once: only its hash is stored. */
  api_key: string;
  api_key_id: string;
  created_at: string;
}

export interface CreatedApiKey {
  /** Shown once: only its hash is stored. */
  api_key: string;
  api_key_id: string;
  created_at: string;
}

/** A new platform with its first API key, written in one D1 batch (both rows or neither). */
export async function createPlatform(db: D1Database, name: string): Promise<CreatedPlatform> {
  const platformId = newPlatformId();
  const apiKey = generateApiKey();
  const apiKeyId = newApiKeyId();
  const createdAt = new Date().toISOString();
  const keyHash = await hashApiKey(apiKey);
  await db.batch([
    db
      .prepare("INSERT INTO platforms (id, name, created_at) VALUES (?, ?, ?)")
      .bind(platformId, name, createdAt),
    db
      .prepare("INSERT INTO api_keys (id, platform_id, key_hash, created_at) VALUES (?, ?, ?, ?)")
      .bind(apiKeyId, platformId, keyHash, createdAt),
  ]);
  forgetLookup(keyHash);
  return { platform_id: platformId, name, api_key: apiKey, api_key_id: apiKeyId, created_at: createdAt };
}

/** One more API key for a platform (rotation: older keys keep working until revoked); null if no such platform. */
export async function createApiKey(db: D1Database, platformId: string): Promise<CreatedApiKey | null> {
  const apiKey = generateApiKey();
  const apiKeyId = newApiKeyId();
  const createdAt = new Date().toISOString();
  const keyHash = await hashApiKey(apiKey);
  // One statement checks the platform and inserts: no window between the two.
  const result = await db
    .prepare(
      "INSERT INTO api_keys (id, platform_id, key_hash, created_at) SELECT ?, id, ?, ? FROM platforms WHERE id = ?",
    )
    .bind(apiKeyId, keyHash, createdAt, platformId)
    .run();
  if (result.meta.changes === 0) return null;
  forgetLookup(keyHash);
  return { api_key: apiKey, api_key_id: apiKeyId, created_at: createdAt };
}

/**
 * Revokes a platform's key; true if the platform has a key with that id (revoking twice is fine and
 * keeps the first revocation time). This isolate refuses the key at once, others within the cache time.
 */
export async function revokeApiKey(db: D1Database, platformId: string, apiKeyId: string): Promise<boolean> {
  const { results } = await db
    .prepare(
      "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND platform_id = ? RETURNING key_hash",
    )
    .bind(new Date().toISOString(), apiKeyId, platformId)
    .all<{ key_hash: string }>();
  for (const row of results) forgetLookup(row.key_hash);
  return results.length > 0;
}

/** Whether the platform has a key with this id (revoked or not). */
export async function apiKeyExists(db: D1Database, platformId: string, apiKeyId: string): Promise<boolean> {
  const row = await db
    .prepare("SELECT 1 AS found FROM api_keys WHERE id = ? AND platform_id = ?")
    .bind(apiKeyId, platformId)
    .first();
  return row !== null;
}

/** Whether a platform with this id exists. */
export async function platformExists(db: D1Database, platformId: string): Promise<boolean> {
  const row = await db.prepare("SELECT 1 AS found FROM platforms WHERE id = ?").bind(platformId).first();
  return row !== null;
}
