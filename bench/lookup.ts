// Lookup benchmark: our index (real code, KV reads counted) against geokdbush and a brute-force scan,
// on the same seeded query points, with every answer checked while it is timed.
import { isDeepStrictEqual } from "node:util";
import { around } from "geokdbush";
import KDBush from "kdbush";
import {
  type BuiltIndex,
  bruteForceLookup,
  buildIndex,
  haversineKm,
  lookupPsaps,
  MemoryPsapStore,
  type PsapDataset,
  prepareReference,
  resetPsapLookupCache,
} from "../src/psap/index.ts";
import type { LookupRow } from "./results.ts";
import { percentiles, round } from "./stats.ts";
import { type QueryPoint, queryPoints } from "./synthetic.ts";

export const K = 5;

export interface LookupPlan {
  dataset: LookupRow["dataset"];
  /** Query points timed for our lookup and geokdbush. */
  queries: number;
  /** The first this many are also timed (and checked) against the brute-force scans. */
  bruteQueries: number;
  seed: number;
}

/** Figures beyond the shape: cold lookups, the plain k-nearest scan, bucket sizes. */
export interface LookupDetail {
  dataset: string;
  n: number;
  queries: number;
  brute_queries: number;
  ours_cold_us_p50: number;
  ours_cold_us_p99: number;
  kv_reads_stream_mean: number;
  /** KV reads during the hot pass (pointer refreshes only; buckets stay cached). */
  hot_kv_reads: number;
  geokdbush_us_p99: number;
  brute_us_p99: number;
  plain_scan_us_p50: number;
  buckets: number;
  max_bucket_bytes: number;
  resolution: number;
  empty_answers: number;
  mismatches: string[];
}

const now = () => performance.now();

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

/** geokdbush's answer as distances (our haversine), for comparing with the plain scan. */
function kdDistances(dataset: PsapDataset, ids: readonly number[], q: QueryPoint): number[] {
  return ids.map((i) => {
    const p = dataset.psaps[i];
    return p ? haversineKm(q.latitude, q.longitude, p.latitude, p.longitude) : Number.NaN;
  });
}

/** Equal up to floating-point noise: geokdbush orders by its own formula, ties may swap. */
export function sameDistances(a: readonly number[], b: readonly number[], epsKm = 1e-6): boolean {
  if (a.length !== b.length) return false;
  const x = [...a].sort((p, q) => p - q);
  const y = [...b].sort((p, q) => p - q);
  return x.every((v, i) => Math.abs(v - (y[i] as number)) <= epsKm);
}

export function indexBytes(index: BuiltIndex): number {
  let bytes = Buffer.byteLength(index.pointerKey) + Buffer.byteLength(index.pointerValue);
  for (const [k, v] of index.buckets) bytes += Buffer.byteLength(k) + Buffer.byteLength(v);
  return bytes;
}

export function kdIndexOf(dataset: PsapDataset): KDBush {
  const kd = new KDBush(dataset.psaps.length);
  for (const p of dataset.psaps) kd.add(p.longitude, p.latitude);
  return kd.finish();
}

/** Runs one data set; throws nothing on a mismatch but lists it (the run reports and fails on it). */
export async function benchLookup(
  dataset: PsapDataset,
  plan: LookupPlan,
  log: (line: string) => void = () => {},
): Promise<{ row: LookupRow; detail: LookupDetail }> {
  const n = dataset.psaps.length;
  const t0 = now();
  const index = buildIndex(dataset, { version: `bench-${plan.dataset}` });
  const buildS = (now() - t0) / 1000;
  log(`  ${plan.dataset}: index built in ${buildS.toFixed(1)} s, ${index.stats.buckets} buckets`);
  const store = MemoryPsapStore.fromIndex(index);
  const reference = prepareReference(dataset);
  const kd = kdIndexOf(dataset);
  const queries = queryPoints(plan.queries, plan.seed);
  const mismatches: string[] = [];
  const mismatch = (what: string) => {
    if (mismatches.length < 20) mismatches.push(what);
  };

  // Stream: as a fresh isolate would see these fixes one after another (pointer and bucket caches live).
  resetPsapLookupCache();
  const streamStart = store.reads;
  for (const q of queries) await lookupPsaps(store, q);
  const streamReads = store.reads - streamStart;

  // Cold: every cache emptied first, so each lookup reads the pointer and its bucket.
  const cold: number[] = [];
  const reads: number[] = [];
  const answers: Awaited<ReturnType<typeof lookupPsaps>>[] = [];
  for (const q of queries) {
    resetPsapLookupCache();
    const before = store.reads;
    const t = now();
    const answer = await lookupPsaps(store, q);
    cold.push((now() - t) * 1000);
    reads.push(store.reads - before);
    answers.push(answer);
  }

  // Hot: the same fix again right after, its bucket in the isolate cache (no KV read).
  const hot: number[] = [];
  let hotReads = 0;
  for (let i = 0; i < queries.length; i++) {
    const q = queries[i] as QueryPoint;
    await lookupPsaps(store, q);
    const before = store.reads;
    const t = now();
    const answer = await lookupPsaps(store, q);
    hot.push((now() - t) * 1000);
    // Only the pointer can be re-read here, when its 30 s isolate cache expires between the two calls.
    hotReads += store.reads - before;
    if (!isDeepStrictEqual(answer.psaps, answers[i]?.psaps))
      mismatch(`query ${i}: hot answer differs from cold`);
  }

  // geokdbush: k nearest over the whole set, in memory.
  const geo: number[] = [];
  const geoIds: number[][] = [];
  for (const q of queries) {
    const t = now();
    const ids = around(kd, q.longitude, q.latitude, K);
    geo.push((now() - t) * 1000);
    geoIds.push(ids);
  }

  // Brute force: the reference ranking over the whole set (the very answer ours must give), and the
  // plain k-nearest scan; both checked against the others.
  const brute: number[] = [];
  const plain: number[] = [];
  const bruteCount = Math.min(plan.bruteQueries, queries.length);
  for (let i = 0; i < bruteCount; i++) {
    const q = queries[i] as QueryPoint;
    let t = now();
    const expected = bruteForceLookup(reference, q);
    brute.push((now() - t) * 1000);
    t = now();
    const nearestKm = plainNearestKm(dataset, q);
    plain.push((now() - t) * 1000);
    if (!isDeepStrictEqual(answers[i]?.psaps, expected))
      mismatch(`query ${i}: ours differs from brute force`);
    if (!sameDistances(kdDistances(dataset, geoIds[i] ?? [], q), nearestKm)) {
      mismatch(`query ${i}: geokdbush differs from the distance order`);
    }
  }

  const [hotP, coldP, readsP, geoP, bruteP, plainP] = [hot, cold, reads, geo, brute, plain].map((v) =>
    percentiles(v, [50, 99]),
  ) as [Record<50 | 99, number>, ...Record<50 | 99, number>[]];
  const row: LookupRow = {
    dataset: plan.dataset,
    n,
    ours_us_p50: round(hotP[50], 2),
    ours_us_p99: round(hotP[99], 2),
    geokdbush_us_p50: round(geoP?.[50] ?? Number.NaN, 2),
    brute_us_p50: round(bruteP?.[50] ?? Number.NaN, 1),
    kv_reads_p50: readsP?.[50] ?? Number.NaN,
    kv_reads_p99: readsP?.[99] ?? Number.NaN,
    index_build_s: round(buildS, 2),
    index_bytes: indexBytes(index),
  };
  const detail: LookupDetail = {
    dataset: plan.dataset,
    n,
    queries: queries.length,
    brute_queries: bruteCount,
    ours_cold_us_p50: round(coldP?.[50] ?? Number.NaN, 1),
    ours_cold_us_p99: round(coldP?.[99] ?? Number.NaN, 1),
    kv_reads_stream_mean: round(streamReads / queries.length, 3),
    hot_kv_reads: hotReads,
    geokdbush_us_p99: round(geoP?.[99] ?? Number.NaN, 2),
    brute_us_p99: round(bruteP?.[99] ?? Number.NaN, 1),
    plain_scan_us_p50: round(plainP?.[50] ?? Number.NaN, 1),
    buckets: index.stats.buckets,
    max_bucket_bytes: index.stats.maxBucketChars,
    resolution: index.manifest.resolution,
    empty_answers: answers.filter((a) => a.psaps.length === 0).length,
    mismatches,
  };
  resetPsapLookupCache();
  return { row, detail };
}
