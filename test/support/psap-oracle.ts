// The lookup checked against the brute-force reference: one index of a data set, and a check that a
// fix gets exactly the records (and the place and county) the reference scan gives.
import { expect } from "vitest";
import { type BuildOptions, type BuiltIndex, buildIndex } from "../../data/index/build.ts";
import type { PsapDataset } from "../../data/index/dataset.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import { bruteForceLookup, prepareReference } from "../../data/reference/brute-force.ts";
import { lookupPsaps, type PsapLookupResult, type PsapQuery } from "../../src/psap/lookup.ts";

export interface Oracle {
  built: BuiltIndex;
  store: MemoryPsapStore;
  /** Looks the fix up in the index and asserts the answer equals the reference scan's. */
  check(q: PsapQuery, limit?: number): Promise<PsapLookupResult>;
}

export function sameAsReference(dataset: PsapDataset, options: BuildOptions = {}): Oracle {
  const built = buildIndex(dataset, options);
  const store = MemoryPsapStore.fromIndex(built);
  const reference = prepareReference(dataset);
  return {
    built,
    store,
    async check(q, limit = 5) {
      const got = await lookupPsaps(store, q, { limit });
      const want = bruteForceLookup(reference, q, { limit, maxToleranceKm: options.maxToleranceKm });
      const where = `fix ${q.latitude},${q.longitude} accuracy ${q.accuracy} limit ${limit}`;
      expect(got.psaps, where).toEqual(want.psaps);
      expect(got.reason, where).toBe(want.psaps.length === 0 ? "outside_coverage" : undefined);
      if (want.psaps.length > 0) {
        expect(got.area.county, where).toBe(want.county?.name ?? null);
        expect(got.area.place, where).toBe(want.place?.name ?? null);
      }
      return got;
    },
  };
}
