// Lookup benchmark, every contender timed alike: the same seeded points, each point timed once, by
// the same loop (`timeEach`). Hot: its data already in memory (ours: every entry the points need
// cached; geokdbush: its index built; brute force: the data set in memory), and for ours and
// geokdbush alike, the points of a slice run once untimed (the loading pass), are timed once right
// after it (reported as "after loading") and once more (the hot figure): see lookup-isolate.ts. Cold
// (ours): a fresh isolate, the entry read through the store and parsed, CPU time apart from the
// store's time. Ours and geokdbush each run in a worker thread holding only their own data
// (lookup-isolate.ts), as a Workers isolate would, and take turns slice by slice; the brute force
// needs the whole data set and runs in the main thread. Answers are checked while timed: ours against
// brute force record for record (hot and cold), geokdbush's five distances against a plain scan.
import { isDeepStrictEqual } from "node:util";
import { type KvRead, valueBytes } from "./kv-store.ts";
import {
  buildOurIndex,
  distancesKm,
  type KvValue,
  type PsapDataset,
  plainNearestKm,
  referenceLookup,
  sameDistances,
} from "./lookup-contenders.ts";
import { type LookupIsolate, openIsolate } from "./lookup-isolate.ts";
import type { LookupRow } from "./results.ts";
import { percentiles, round } from "./stats.ts";
import { type QueryPoint, queryPoints } from "./synthetic.ts";
import { hotSlices, timeEach } from "./timing.ts";

export interface LookupPlan {
  dataset: LookupRow["dataset"];
  /** Points timed for ours (hot and cold) and geokdbush. */
  queries: number;
  /** This many of them, spread evenly, are also timed (and checked) against the brute-force scans. */
  bruteQueries: number;
  /** This many, spread evenly, have their cold reads timed again on wrangler dev's local KV. */
  kvSamples: number;
  seed: number;
}

/** The cold reads of some points, to be timed on a real local KV (kv-read.ts). */
export interface KvSample {
  dataset: string;
  /** Per sampled point, the reads of its cold lookup, in order. */
  points: KvRead[][];
  values: Map<string, KvValue>;
}

/** Figures beyond the shape (latest-detail.json). */
export interface LookupDetail {
  dataset: string;
  n: number;
  queries: number;
  brute_queries: number;
  warmup_queries: number;
  /** Hot samples kept, and those dropped because the call read KV after all (pointer expiry). */
  hot_samples: number;
  hot_dropped: number;
  hot_chunks: number;
  /** Slices timed hot, the contenders taking turns (each within one group of `hot_chunks`). */
  hot_slices: number;
  /** Each point timed once right after the loading pass of its slice, before the hot pass. */
  ours_after_load_us_p50: number;
  ours_after_load_us_p99: number;
  geokdbush_after_load_us_p50: number;
  ours_on_brute_points_us_p50: number;
  cold_us_p50: number;
  cold_us_p99: number;
  cold_store_us_p50: number;
  cold_bytes_read_p50: number;
  cold_bytes_read_p99: number;
  geokdbush_us_p99: number;
  geokdbush_build_s: number;
  brute_us_p99: number;
  plain_scan_us_p50: number;
  kv_entries: number;
  largest_entry_key: string;
  empty_answers: number;
  mismatches: string[];
}

export { cacheChunks, hotSlices, timeEach } from "./timing.ts";

const WARMUP = 200;
/** Points per hot slice: small enough that the contenders take many turns. */
const SLICE_POINTS = 100;
const now = () => performance.now();
/** Collects garbage between passes when Node runs with --expose-gc (run.ts does), so no pass pays for another's. */
const collect = () => (globalThis as { gc?: () => void }).gc?.();

/** `count` indexes spread evenly over 0..n-1 (the same points whatever the order of passes). */
export function spread(n: number, count: number): number[] {
  const c = Math.min(n, Math.max(0, count));
  return Array.from({ length: c }, (_, j) => Math.floor((j * n) / c));
}

function p(values: readonly number[]): Record<50 | 99, number> {
  return percentiles(values, [50, 99]);
}

/** Runs one data set; a mismatch is listed (the run reports it and fails), never thrown. */
export async function benchLookup(
  dataset: PsapDataset,
  plan: LookupPlan,
  log: (line: string) => void = () => {},
): Promise<{ row: LookupRow; detail: LookupDetail; kv: KvSample; points: QueryPoint[] }> {
  const n = dataset.psaps.length;
  const points = queryPoints(plan.queries, plan.seed);
  const warmup = queryPoints(WARMUP, plan.seed + 7919);
  const bruteIdx = spread(points.length, plan.bruteQueries);
  const brutePoints = bruteIdx.map((i) => points[i] as QueryPoint);
  const mismatches: string[] = [];
  const mismatch = (what: string) => {
    if (mismatches.length < 20) mismatches.push(what);
  };

  let t = now();
  const index = buildOurIndex(dataset, `bench-${plan.dataset}`);
  const buildS = (now() - t) / 1000;
  let indexBytes = 0;
  let largest = 0;
  let largestKey = "";
  for (const [k, v] of index.entries) {
    const b = valueBytes(v);
    indexBytes += Buffer.byteLength(k) + b;
    if (b > largest) {
      largest = b;
      largestKey = k;
    }
  }
  log(`  ${plan.dataset}: index built in ${buildS.toFixed(1)} s, ${index.entries.size} KV entries`);
  const reference = referenceLookup(dataset);

  // Ours (index entries only) and geokdbush (coordinates only), each in an isolate of its own. Ours
  // makes its cold pass as it opens; then both are timed hot slice by slice, taking turns (the first
  // of each slice alternates), so neither meets a quieter or busier moment of the machine than the other.
  const ours = await openIsolate({
    kind: "ours",
    entries: [...index.entries],
    points,
    warmup,
    cache: index.cache,
  });
  t = now();
  const coordinates = new Float64Array(dataset.psaps.length * 2);
  dataset.psaps.forEach((q, i) => {
    coordinates[2 * i] = q.longitude;
    coordinates[2 * i + 1] = q.latitude;
  });
  let kd: LookupIsolate<unknown>;
  try {
    kd = await openIsolate({ kind: "geokdbush", coordinates, points, warmup });
  } catch (error) {
    await ours.close();
    throw error;
  }
  const kdBuildS = (now() - t) / 1000;
  const { cold, coldCpu, coldStore, reads, bytesRead, readsOf, answers: coldAnswers, chunks } = ours.ready;
  const hot: number[] = [];
  const hotByPoint = new Map<number, number>();
  const geo: number[] = [];
  const geoIds: number[][] = [];
  const oursAfterLoad: number[] = [];
  const geoAfterLoad: number[] = [];
  let dropped = 0;
  const slices = hotSlices(chunks, SLICE_POINTS);
  try {
    for (const [k, slice] of slices.entries()) {
      const turns = k % 2 === 0 ? [ours, kd] : [kd, ours];
      for (const contender of turns) {
        const timed = await contender.hot(slice);
        if (contender === ours) {
          dropped += timed.dropped;
          for (const [i, us] of timed.times) {
            hot.push(us);
            hotByPoint.set(i, us);
          }
          for (const [, us] of timed.afterLoad) oursAfterLoad.push(us);
          for (const i of timed.differs) mismatch(`point ${i}: hot answer differs from cold`);
        } else {
          for (const [, us] of timed.afterLoad) geoAfterLoad.push(us);
          for (const [, us] of timed.times) geo.push(us);
          for (const [i, ids] of timed.ids) geoIds[i] = ids;
        }
      }
    }
  } finally {
    await Promise.all([ours.close(), kd.close()]);
  }
  log(
    `  ${plan.dataset}: cold pass done; hot passes done in ${slices.length} slices, contenders taking turns`,
  );

  // Brute force: the reference ranking over the whole set (the very answer ours must give), and
  // the plain k-nearest scan; both checked against the others.
  for (const q of warmup.slice(0, 3)) reference(q);
  collect();
  const brute = await timeEach(brutePoints, reference, (j, expected) => {
    const i = bruteIdx[j] as number;
    if (!isDeepStrictEqual(coldAnswers[i], expected)) mismatch(`point ${i}: ours differs from brute force`);
  });
  const plain = await timeEach(
    brutePoints,
    (q) => plainNearestKm(dataset, q),
    (j, nearestKm) => {
      const i = bruteIdx[j] as number;
      const q = points[i] as QueryPoint;
      if (!sameDistances(distancesKm(dataset, q, geoIds[i] ?? []), nearestKm))
        mismatch(`point ${i}: geokdbush differs from the plain distance scan`);
    },
  );

  const kvIdx = spread(points.length, plan.kvSamples);
  const kv: KvSample = {
    dataset: plan.dataset,
    points: kvIdx.map((i) => readsOf[i] ?? []),
    values: new Map(),
  };
  for (const r of kv.points.flat()) {
    const v = index.entries.get(r.key);
    if (v !== undefined) kv.values.set(r.key, v);
  }

  const [hotP, cpuP, readsP, geoP, bruteP, coldP, bytesP] = [
    hot,
    coldCpu,
    reads,
    geo,
    brute,
    cold,
    bytesRead,
  ].map(p) as [Record<50 | 99, number>, ...Record<50 | 99, number>[]];
  const oursOnBrute = bruteIdx.flatMap((i) => {
    const us = hotByPoint.get(i);
    return us === undefined ? [] : [us];
  });
  const row: LookupRow = {
    dataset: plan.dataset,
    n,
    ours_us_p50: round(hotP[50], 2),
    ours_us_p99: round(hotP[99], 2),
    geokdbush_us_p50: round(geoP?.[50] ?? Number.NaN, 2),
    brute_us_p50: round(bruteP?.[50] ?? Number.NaN, 1),
    cold_cpu_us_p50: round(cpuP?.[50] ?? Number.NaN, 1),
    cold_cpu_us_p99: round(cpuP?.[99] ?? Number.NaN, 1),
    // Filled in from wrangler dev's local KV (kv-read.ts); NaN until then.
    cold_kv_ms_p50: Number.NaN,
    kv_reads_p50: readsP?.[50] ?? Number.NaN,
    kv_reads_p99: readsP?.[99] ?? Number.NaN,
    index_build_s: round(buildS, 2),
    index_bytes: indexBytes,
    largest_bucket_bytes: largest,
  };
  const detail: LookupDetail = {
    dataset: plan.dataset,
    n,
    queries: points.length,
    brute_queries: brutePoints.length,
    warmup_queries: warmup.length,
    hot_samples: hot.length,
    hot_dropped: dropped,
    hot_chunks: chunks.length,
    hot_slices: slices.length,
    ours_after_load_us_p50: round(p(oursAfterLoad)[50], 2),
    ours_after_load_us_p99: round(p(oursAfterLoad)[99], 2),
    geokdbush_after_load_us_p50: round(p(geoAfterLoad)[50], 2),
    ours_on_brute_points_us_p50: round(p(oursOnBrute)[50], 2),
    cold_us_p50: round(coldP?.[50] ?? Number.NaN, 1),
    cold_us_p99: round(coldP?.[99] ?? Number.NaN, 1),
    cold_store_us_p50: round(p(coldStore)[50], 1),
    cold_bytes_read_p50: bytesP?.[50] ?? Number.NaN,
    cold_bytes_read_p99: bytesP?.[99] ?? Number.NaN,
    geokdbush_us_p99: round(geoP?.[99] ?? Number.NaN, 2),
    geokdbush_build_s: round(kdBuildS, 2),
    brute_us_p99: round(bruteP?.[99] ?? Number.NaN, 1),
    plain_scan_us_p50: round(p(plain)[50], 1),
    kv_entries: index.entries.size,
    largest_entry_key: largestKey,
    empty_answers: coldAnswers.filter((a) => a.length === 0).length,
    mismatches,
  };
  return { row, detail, kv, points };
}
