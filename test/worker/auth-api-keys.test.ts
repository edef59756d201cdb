// API key format, hashing and the ids that name platforms and keys.
import { describe, expect, it } from "vitest";
import {
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  newApiKeyId,
  newPlatformId,
} from "../../src/auth/api-key.ts";
import { randomBase62 } from "../../src/auth/random.ts";

describe("API key format", () => {
  it("is sk_live_ followed by 40 base62 characters", () => {
    expect(generateApiKey()).toMatch(/^sk_live_[0-9A-Za-z]{40}$/);
  });

  it("never repeats", () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).toBe(1000);
  });

  it("uses every base62 character about equally often (no modulo bias)", () => {
    const counts = new Map<string, number>();
    const sample = randomBase62(80_000);
    for (const char of sample) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Expected 1290 each (sd ≈ 36). Modulo bias would give 8 characters ~1560: far outside ±15 %.
    const expected = sample.length / 62;
    for (const count of counts.values()) {
      expect(Math.abs(count - expected) / expected).toBeLessThan(0.15);
    }
  });

  it("is recognised as well formed, while garbage and near misses are not", () => {
    expect(isWellFormedApiKey(generateApiKey())).toBe(true);
    for (const bad of [
      "",
      "sk_live_",
      "sk_test_" + "a".repeat(40),
      "sk_live_" + "a".repeat(31),
      "sk_live_" + "a".repeat(65),
      "sk_live_" + "a".repeat(39) + "-",
      " sk_live_" + "a".repeat(40),
      "sk_live_" + "a".repeat(40) + "\n",
      null,
      undefined,
      42,
    ]) {
      expect(isWellFormedApiKey(bad), String(bad)).toBe(false);
    }
  });
});

describe("API key hashing", () => {
  it("is the lower-case hex SHA-256 of the whole key", async () => {
    // FIPS 180-2 test vector for "abc".
    expect(await hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("differs for keys that differ in one character", async () => {
    const key = generateApiKey();
    const other = key.slice(0, -1) + (key.endsWith("a") ? "b" : "a");
    expect(await hashApiKey(key)).not.toBe(await hashApiKey(other));
  });
});

describe("platform and key ids", () => {
  it("are URL-safe with their prefixes and unique", () => {
    const platformIds = new Set(Array.from({ length: 200 }, newPlatformId));
    const keyIds = new Set(Array.from({ length: 200 }, newApiKeyId));
    expect(platformIds.size).toBe(200);
    expect(keyIds.size).toBe(200);
    for (const id of platformIds) expect(id).toMatch(/^plt_[0-9A-Za-z]{24}$/);
    for (const id of keyIds) expect(id).toMatch(/^key_[0-9A-Za-z]{24}$/);
    for (const id of platformIds) expect(encodeURIComponent(id)).toBe(id);
  });
});
