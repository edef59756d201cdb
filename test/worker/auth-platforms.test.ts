// Platforms and API keys in D1: creation, rotation, revocation and authentication, as the admin and platform routes use them.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AUTH_LIMITS } from "../../lib/config.ts";
import { generateApiKey, hashApiKey } from "../../src/auth/api-key.ts";
import { clearApiKeyCache } from "../../src/auth/api-key-cache.ts";
import { authenticateApiKey } from "../../src/auth/authenticate-api-key.ts";
import { createApiKey, createPlatform, platformExists, revokeApiKey } from "../../src/auth/platforms.ts";

beforeEach(() => clearApiKeyCache());
afterEach(() => vi.useRealTimers());

/** A D1 stand-in that fails the test if anything reaches the database. */
const unreachableDb = new Proxy({} as D1Database, {
  get() {
    throw new Error("the database must not be touched");
  },
});

describe("createPlatform", () => {
  it("returns a URL-safe platform id, the name, a working API key, its id and an ISO timestamp", async () => {
    const created = await createPlatform(env.DB, "Acme Telehealth");
    expect(created).toEqual({
      platform_id: expect.stringMatching(/^plt_[0-9A-Za-z]+$/),
      name: "Acme Telehealth",
      api_key: expect.stringMatching(/^sk_live_[0-9A-Za-z]{40}$/),
      api_key_id: expect.stringMatching(/^key_[0-9A-Za-z]+$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(await authenticateApiKey(env.DB, created.api_key)).toEqual({
      platformId: created.platform_id,
      apiKeyId: created.api_key_id,
    });
    expect(await platformExists(env.DB, created.platform_id)).toBe(true);
  });

  it("stores the key only as its SHA-256 hash", async () => {
    const created = await createPlatform(env.DB, "Hash Check");
    const rows = await env.DB.prepare("SELECT * FROM api_keys WHERE platform_id = ?")
      .bind(created.platform_id)
      .all();
    expect(rows.results).toHaveLength(1);
    expect(rows.results[0]?.key_hash).toBe(await hashApiKey(created.api_key));
    expect(JSON.stringify(rows.results)).not.toContain(created.api_key.slice("sk_live_".length));
  });
});

describe("platformExists", () => {
  it("is false for an unknown platform", async () => {
    expect(await platformExists(env.DB, "plt_doesnotexist")).toBe(false);
  });
});

describe("createApiKey (rotation)", () => {
  it("adds a second key while the first one keeps working", async () => {
    const platform = await createPlatform(env.DB, "Rotating");
    const second = await createApiKey(env.DB, platform.platform_id);
    expect(second).not.toBeNull();
    if (second === null) return;
    expect(second.api_key).not.toBe(platform.api_key);
    expect(second.api_key_id).not.toBe(platform.api_key_id);
    expect(await authenticateApiKey(env.DB, second.api_key)).toEqual({
      platformId: platform.platform_id,
      apiKeyId: second.api_key_id,
    });
    expect(await authenticateApiKey(env.DB, platform.api_key)).toEqual({
      platformId: platform.platform_id,
      apiKeyId: platform.api_key_id,
    });
  });

  it("returns null and writes nothing for an unknown platform", async () => {
    expect(await createApiKey(env.DB, "plt_nosuchplatform")).toBeNull();
    const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE platform_id = ?")
      .bind("plt_nosuchplatform")
      .first<{ n: number }>();
    expect(row?.n).toBe(0);
  });
});

describe("revokeApiKey", () => {
  it("refuses a revoked key at once in the isolate that revoked it", async () => {
    const platform = await createPlatform(env.DB, "Revoking");
    expect(await authenticateApiKey(env.DB, platform.api_key)).not.toBeNull(); // now cached
    expect(await revokeApiKey(env.DB, platform.platform_id, platform.api_key_id)).toBe(true);
    expect(await authenticateApiKey(env.DB, platform.api_key)).toBeNull();
  });

  it("leaves the platform's other keys working", async () => {
    const platform = await createPlatform(env.DB, "Revoke one of two");
    const second = await createApiKey(env.DB, platform.platform_id);
    await revokeApiKey(env.DB, platform.platform_id, platform.api_key_id);
    expect(await authenticateApiKey(env.DB, second?.api_key)).toEqual({
      platformId: platform.platform_id,
      apiKeyId: second?.api_key_id,
    });
  });

  it("reports an unknown key id as not found", async () => {
    const platform = await createPlatform(env.DB, "Unknown key");
    expect(await revokeApiKey(env.DB, platform.platform_id, "key_doesnotexist")).toBe(false);
  });

  it("cannot revoke another platform's key", async () => {
    const owner = await createPlatform(env.DB, "Owner");
    const intruder = await createPlatform(env.DB, "Intruder");
    expect(await revokeApiKey(env.DB, intruder.platform_id, owner.api_key_id)).toBe(false);
    expect(await authenticateApiKey(env.DB, owner.api_key)).not.toBeNull();
  });

  it("can be repeated and keeps the first revocation time", async () => {
    const platform = await createPlatform(env.DB, "Twice");
    await revokeApiKey(env.DB, platform.platform_id, platform.api_key_id);
    const first = await revokedAt(platform.api_key_id);
    expect(first).not.toBeNull();
    expect(await revokeApiKey(env.DB, platform.platform_id, platform.api_key_id)).toBe(true);
    expect(await revokedAt(platform.api_key_id)).toBe(first);
  });

  it("stops a key revoked elsewhere (another isolate) within the 5 s cache time", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const platform = await createPlatform(env.DB, "Revoked elsewhere");
    expect(await authenticateApiKey(env.DB, platform.api_key)).not.toBeNull(); // cached here
    // Another isolate revokes it: this isolate's cache does not hear of it.
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?")
      .bind(new Date().toISOString(), platform.api_key_id)
      .run();
    expect(await authenticateApiKey(env.DB, platform.api_key)).not.toBeNull();
    vi.advanceTimersByTime(AUTH_LIMITS.apiKeyCacheMs);
    expect(await authenticateApiKey(env.DB, platform.api_key)).toBeNull();
  });
});

describe("authenticateApiKey", () => {
  it("refuses garbage without reading the database", async () => {
    for (const garbage of [
      "",
      "Bearer x",
      "sk_live_short",
      "sk_live_" + "é".repeat(40),
      "x".repeat(10_000),
      null,
    ]) {
      expect(await authenticateApiKey(unreachableDb, garbage)).toBeNull();
    }
  });

  it("refuses a well-formed key that was never issued", async () => {
    expect(await authenticateApiKey(env.DB, generateApiKey())).toBeNull();
  });

  it("serves a repeated key from the isolate cache, not the database", async () => {
    const platform = await createPlatform(env.DB, "Cached");
    const identity = await authenticateApiKey(env.DB, platform.api_key);
    expect(await authenticateApiKey(unreachableDb, platform.api_key)).toEqual(identity);
  });

  it("forgets an unknown key quickly, so a key created meanwhile works within a second", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const key = generateApiKey();
    expect(await authenticateApiKey(env.DB, key)).toBeNull();
    const platform = await createPlatform(env.DB, "Late key");
    await env.DB.prepare("UPDATE api_keys SET key_hash = ? WHERE id = ?")
      .bind(await hashApiKey(key), platform.api_key_id)
      .run();
    vi.advanceTimersByTime(AUTH_LIMITS.apiKeyNegativeCacheMs);
    expect(await authenticateApiKey(env.DB, key)).toEqual({
      platformId: platform.platform_id,
      apiKeyId: platform.api_key_id,
    });
  });

  it("does not remember a database failure", async () => {
    const platform = await createPlatform(env.DB, "Flaky");
    const failingDb = {
      prepare: () => {
        throw new Error("D1 unavailable");
      },
    } as unknown as D1Database;
    await expect(authenticateApiKey(failingDb, platform.api_key)).rejects.toThrow("D1 unavailable");
    expect(await authenticateApiKey(env.DB, platform.api_key)).not.toBeNull();
  });
});

async function revokedAt(apiKeyId: string): Promise<string | null> {
  const row = await env.DB.prepare("SELECT revoked_at FROM api_keys WHERE id = ?")
    .bind(apiKeyId)
    .first<{ revoked_at: string | null }>();
  return row?.revoked_at ?? null;
}
