// The lookup contenders (our index, geokdbush, brute force, a plain scan) and the ONE place the bench
// reaches into the PSAP code: when the index or its ranking changes, this file adapts; the timing
// (lookup.ts), the PostGIS side (postgis/) and the servers stay as they are.
import { around } from "geokdbush";
import KDBush from "kdbush";
import { buildIndex } from "../data/index/build.ts";
import type { PsapDataset } from "../data/index/dataset.ts";
import { PSAP_LIMITS } from "../lib/config.ts";
import { EARTH_RADIUS_KM, haversineKm, KM_PER_DEGREE } from "../lib/psap-index/geo.ts";
import { toleranceKm as borderToleranceKm, decodeRings, encodeRings } from "../lib/psap-index/geometry.ts";
import type { PsapRecord } from "../sdk/src/protocol.ts";
import { answerFix } from "../src/answer/lookup.ts";
import { type PsapIndexStore, resetPsapLookupCache } from "../src/psap/lookup.ts";
import { bruteForceLookup, prepareReference } from "./reference/brute-force.ts";
import type { QueryPoint } from "./synthetic.ts";

export type { IndexedPsap, PsapDataset } from "../data/index/dataset.ts";
export type { PsapIndexStore } from "../src/psap/lookup.ts";
export { EARTH_RADIUS_KM, haversineKm, KM_PER_DEGREE };

/** The border tolerance (km) our ranking applies to a fix of this accuracy. */
export function toleranceKm(q: QueryPoint): number {
  return borderToleranceKm(q.accuracy, PSAP_LIMITS.minBorderToleranceM, PSAP_LIMITS.maxBorderToleranceKm);
}

/** Records a lookup returns (and geokdbush's k, PostGIS's LIMIT). */
export const K: number = PSAP_LIMITS.maxResults;
/** Nothing farther is returned (the SQL ranking applies the same cut). */
export const MAX_DISTANCE_KM: number = PSAP_LIMITS.maxDistanceKm;

/** A KV value as the import writes it. */
export type KvValue = string | Uint8Array;

/** Our index as the import writes it to KV. */
export interface OurIndex {
  /** Every KV entry the lookup reads, the pointer included (the admin catalogue is counted apart). */
  entries: ReadonlyMap<string, KvValue>;
  /** Bytes of the admin catalogue the import writes beside the index (never read by a lookup). */
  catalogueBytes: number;
  /** The isolate cache's bounds, in the units of `cacheSize`: a hot pass keeps within them. */
  cache: { entries: number; size: number };
}

/** Builds our index exactly as `npm run psap:import` does (timed by the caller). */
export function buildOurIndex(dataset: PsapDataset, version: string): OurIndex {
  const built = buildIndex(dataset, { version });
  const entries = new Map<string, KvValue>(built.entries);
  entries.set(built.pointerKey, built.pointerValue);
  let catalogueBytes = 0;
  for (const [k, v] of built.catalogue) catalogueBytes += Buffer.byteLength(k) + Buffer.byteLength(v);
  return {
    entries,
    catalogueBytes,
    cache: { entries: PSAP_LIMITS.entryCacheMaxEntries, size: PSAP_LIMITS.entryCacheMaxChars },
  };
}

/** What a cached entry counts against the isolate cache's size bound. */
export function cacheSize(value: KvValue): number {
  return typeof value === "string" ? value.length : value.byteLength;
}

/**
 * Our lookup, as the session object calls it (`answerFix`: a value when answered from the isolate's caches,
 * else a promise), the records only.
 */
export function ourLookup(store: PsapIndexStore, q: QueryPoint): PsapRecord[] | Promise<PsapRecord[]> {
  const answer = answerFix(store, q);
  return answer instanceof Promise ? answer.then((a) => a.psaps) : answer.psaps;
}

/** Forgets every cache of our lookup: the next call is a fresh isolate's. */
export function forgetOurCaches(): void {
  resetPsapLookupCache();
}

/** The brute-force reference: the exact answer ours must give, by scanning everything. */
export function referenceLookup(dataset: PsapDataset): (q: QueryPoint) => PsapRecord[] {
  const reference = prepareReference(dataset);
  return (q) => bruteForceLookup(reference, q).psaps;
}

/** geokdbush's k nearest (indexes into `dataset.psaps`), its index built up front. */
export function kdNearest(dataset: PsapDataset): (q: QueryPoint) => number[] {
  const coordinates = new Float64Array(dataset.psaps.length * 2);
  dataset.psaps.forEach((p, i) => {
    coordinates[2 * i] = p.longitude;
    coordinates[2 * i + 1] = p.latitude;
  });
  return kdNearestOf(coordinates);
}

/** The same, from longitude, latitude pairs (all a geokdbush isolate holds). */
export function kdNearestOf(coordinates: Float64Array): (q: QueryPoint) => number[] {
  const kd = new KDBush(coordinates.length / 2);
  for (let i = 0; i + 1 < coordinates.length; i += 2)
    kd.add(coordinates[i] as number, coordinates[i + 1] as number);
  kd.finish();
  return (q) => around(kd, q.longitude, q.latitude, K);
}

/** Our great-circle distances (km) from `q` to the given PSAPs (a contender's answer, to compare). */
export function distancesKm(dataset: PsapDataset, q: QueryPoint, indexes: readonly number[]): number[] {
  return indexes.map((i) => {
    const p = dataset.psaps[i];
    return p ? haversineKm(q.latitude, q.longitude, p.latitude, p.longitude) : Number.NaN;
  });
}

/** The k nearest by plain great-circle distance over everything (distances only, ascending). */
export function plainNearestKm(dataset: PsapDataset, q: QueryPoint, k = K): number[] {
  const best: number[] = [];
  for (const p of dataset.psaps) {
    const d = haversineKm(q.latitude, q.longitude, p.latitude, p.longitude);
    if (best.length === k && d >= (best[k - 1] as number)) continue;
    let i = best.length < k ? best.length : k - 1;
    best[i] = d;
    while (i > 0 && (best[i - 1] as number) > d) {
      best[i] = best[i - 1] as number;
      best[i - 1] = d;
      i--;
    }
  }
  return best;
}

/** Equal up to floating-point noise (each side ordered by its own formula, so ties may swap). */
export function sameDistances(a: readonly number[], b: readonly number[], epsKm = 1e-6): boolean {
  if (a.length !== b.length) return false;
  const x = [...a].sort((p, q) => p - q);
  const y = [...b].sort((p, q) => p - q);
  return x.every((v, i) => Math.abs(v - (y[i] as number)) <= epsKm);
}

// ---------------------------------------------------------------------------------------------
// The data set as generic tables, for PostGIS (postgis/schema.ts): PSAPs, areas of a kind with an
// ordered member list: `boundary` (operator polygon), `place` (city limits: the index's `city`),
// `community` (a census-designated community with centres of its own), `town`, `county`. Communities
// that answer for nothing are left out.

export type AreaKindSql = "boundary" | "place" | "community" | "town" | "county";

export interface SqlPsap {
  /** Position in the data set (the id of a row, and what the answers are compared by). */
  idx: number;
  id: string;
  type: "primary" | "secondary";
  jurisdiction: string;
  handled_by: string | null;
  latitude: number;
  longitude: number;
}

export interface SqlArea {
  id: string;
  kind: AreaKindSql;
  /** Rings as the index stores them (micro-degree vertices, longitudes unwrapped around the first). */
  rings: number[][][];
  /** The first vertex's longitude: the SQL unwraps the fix toward it, as the lookup does. */
  refLon: number;
  /** Members in the area's own order (indexes into the PSAPs). */
  members: number[];
}

export interface SqlDataset {
  psaps: SqlPsap[];
  areas: SqlArea[];
}

export function sqlDatasetOf(dataset: PsapDataset): SqlDataset {
  const indexOf = new Map(dataset.psaps.map((p, i) => [p.id, i]));
  const psaps = dataset.psaps.map((p, idx) => ({
    idx,
    id: p.id,
    type: p.type,
    jurisdiction: p.jurisdiction,
    handled_by: p.handled_by,
    latitude: p.latitude,
    longitude: p.longitude,
  }));
  const areas: SqlArea[] = [];
  for (const a of dataset.areas) {
    if (a.kind === "community" && a.psapIds.length === 0) continue;
    // Through the index's own encoding, so the SQL sees the very vertices the lookup tests.
    const geometry = decodeRings(encodeRings(a.rings));
    if (geometry.rings.length === 0) continue;
    const rings = geometry.rings.map((r) => {
      const ring: number[][] = [];
      for (let i = 0; i + 1 < r.length; i += 2) ring.push([r[i] as number, r[i + 1] as number]);
      return ring;
    });
    const members = [...new Set(a.psapIds)].flatMap((id) => {
      const i = indexOf.get(id);
      return i === undefined ? [] : [i];
    });
    areas.push({
      id: a.id,
      kind: a.kind === "city" ? "place" : a.kind,
      rings,
      refLon: geometry.refLon,
      members,
    });
  }
  return { psaps, areas };
}

/** The ranked answer as ids, best first (what the SQL ranking is compared on). */
export function rankedIds(records: readonly PsapRecord[]): string[] {
  return records.map((r) => r.id);
}
