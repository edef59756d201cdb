// The isolate's short memory of API key lookups: bounded, time-limited, keyed by key hash (never the key).
import { AUTH_LIMITS } from "../../lib/config.ts";

/** Who an accepted API key belongs to. */
export interface ApiKeyIdentity {
  platformId: string;
  apiKeyId: string;
}

interface Entry {
  /** The lookup, shared by concurrent requests that present the same key. */
  lookup: Promise<ApiKeyIdentity | null>;
  expiresAt: number;
}

const entries = new Map<string, Entry>();

/** The cached lookup for this key hash, if still fresh. */
export function cachedLookup(keyHash: string, now: number): Promise<ApiKeyIdentity | null> | undefined {
  const entry = entries.get(keyHash);
  if (entry === undefined) return undefined;
  if (entry.expiresAt <= now) {
    entries.delete(keyHash);
    return undefined;
  }
  return entry.lookup;
}

/**
 * Remembers a lookup: a found key for `apiKeyCacheMs` (so a revocation elsewhere takes effect within
 * that time), an unknown or revoked one for `apiKeyNegativeCacheMs`, a failed lookup not at all.
 */
export function rememberLookup(keyHash: string, lookup: Promise<ApiKeyIdentity | null>, now: number): void {
  if (entries.size >= AUTH_LIMITS.apiKeyCacheMaxEntries) {
    // Maps iterate in insertion order: the first key is the oldest entry.
    const oldest = entries.keys().next();
    if (!oldest.done) entries.delete(oldest.value);
  }
  const entry: Entry = { lookup, expiresAt: now + AUTH_LIMITS.apiKeyCacheMs };
  entries.set(keyHash, entry);
  lookup.then(
    (identity) => {
      if (identity === null)
        entry.expiresAt = Math.min(entry.expiresAt, now + AUTH_LIMITS.apiKeyNegativeCacheMs);
    },
    () => {
      if (entries.get(keyHash) === entry) entries.delete(keyHash);
    },
  );
}

/** Drops one key's entry: its state just changed in this isolate (revoked or created). */
export function forgetLookup(keyHash: string): void {
  entries.delete(keyHash);
}

/** Empties the cache (tests; nothing in the service needs it). */
export function clearApiKeyCache(): void {
  entries.clear();
}
