// The lookup checked against the brute-force reference: one index of a data set, and a check that a
// fix gets exactly the records (and the place and county) the reference scan gives.
import { expect } from "vitest";
import {
  bruteForceLookup,
  prepareReference,
  type ReferenceResult,
} from "../../bench/reference/brute-force.ts";
import { type BuildOptions, type BuiltIndex, buildIndex } from "../../data/index/build.ts";
import type { PsapDataset } from "../../data/index/dataset.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import { AREA_CITY, AREA_COMMUNITY, AREA_COUNTY, type AreaKindCode } from "../../lib/psap-index/format.ts";
import { lookupPsaps, type PsapLookupResult } from "../../src/answer/lookup.ts";
import { describeArea } from "../../src/answer/where.ts";
import type { PsapQuery } from "../../src/psap/lookup.ts";

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
      // As a client reads them (JSON): a generated PSAP at latitude -0 is at 0, which the index stores.
      expect(asJson(got.psaps), where).toEqual(asJson(want.psaps));
      expect(got.reason, where).toBe(want.psaps.length === 0 ? "outside_coverage" : undefined);
      if (want.psaps.length > 0) expectSameArea(got, want, q, where);
      return got;
    },
  };
}

/**
 * The lookup found the areas the scan finds: its `area` names the county and place that `describeArea`
 * (the one function that words them) makes of the scan's place, county and near county.
 */
export function expectSameArea(
  got: PsapLookupResult,
  want: ReferenceResult,
  q: PsapQuery,
  where: string,
): void {
  const named = (a: { name: string; state: string | null } | null, kind: AreaKindCode) =>
    a === null ? null : { kind, name: a.name, state: a.state };
  const placeKind = want.place?.kind === "city" ? AREA_CITY : AREA_COMMUNITY;
  const expected = describeArea(
    q.latitude,
    q.longitude,
    named(want.place, placeKind),
    named(want.county, AREA_COUNTY),
    named(want.nearCounty, AREA_COUNTY),
  );
  expect(got.area.county, where).toBe(expected.county);
  expect(got.area.place, where).toBe(want.place?.name ?? null);
}

function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
