// The isolate's entry cache: bounded by count and size, and never dropping the entry read last first.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LruCache } from "../../lib/lru-cache.ts";

describe("LruCache", () => {
  it("keeps within its bounds and never drops next the entry read last (unless it is alone)", () => {
    const op = fc.oneof(
      fc.record({ get: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ set: fc.integer({ min: 0, max: 12 }), size: fc.integer({ min: 1, max: 40 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(op, { maxLength: 200 }), (maxEntries, ops) => {
        const cache = new LruCache<number>(maxEntries, 100);
        for (const o of ops) {
          if ("get" in o) {
            const key = String(o.get);
            if (cache.get(key) === undefined) continue;
            // Fill the cache with one new entry: the one just read must survive it when others can go.
            const before = cache.size;
            cache.set("probe", -1, 1);
            if (before > 1 && before + 1 > maxEntries) expect(cache.get(key)).toBeDefined();
            cache.set("probe", -1, 101); // too big: dropped, nothing else touched
            continue;
          }
          cache.set(String(o.set), o.set, o.size);
          expect(cache.size).toBeLessThanOrEqual(maxEntries);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("drops the least recently used first", () => {
    const cache = new LruCache<string>(3, 1_000);
    for (const k of ["a", "b", "c"]) cache.set(k, k, 1);
    expect(cache.get("a")).toBe("a");
    cache.set("d", "d", 1);
    expect(cache.get("b")).toBeUndefined();
    expect([cache.get("a"), cache.get("c"), cache.get("d")]).toEqual(["a", "c", "d"]);
  });

  it("drops entries by size too, and forgets one on delete", () => {
    const cache = new LruCache<string>(10, 10);
    cache.set("a", "a", 6);
    cache.set("b", "b", 6);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toBe("b");
    cache.delete("b");
    expect(cache.size).toBe(0);
    cache.set("c", "c", 10);
    expect(cache.get("c")).toBe("c");
  });
});
