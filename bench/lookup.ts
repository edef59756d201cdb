// Lookup benchmark, every contender timed alike: the same seeded points, each point timed once, by
// the same loop (`timeEach`). Hot: its data already in memory (ours: every bucket the points need
// cached; geokdbush: its index built; brute force: the data set in memory). Cold (ours): a fresh
// isolate, the bucket read through the store and parsed, CPU time apart from the store's time.
// Answers are checked while timed: ours against brute force record for record (hot and cold),
// geokdbush's five distances against a plain scan.
import { isDeepStrictEqual } from "node:util";
import { BenchKvStore, type KvRead, valueBytes } from "./kv-store.ts";
import {
  buildOurIndex,
  cacheSize,
  distancesKm,
  forgetOurCaches,
  type KvValue,
  kdNearest,
  ourLookup,
  type PsapDataset,
  plainNearestKm,
  referenceLookup,
  sameDistances,
} from "./lookup-contenders.ts";
import type { LookupRow } from "./results.ts";
import { percentiles, round } from "./stats.ts";
import { type QueryPoint, queryPoints } from "./synthetic.ts";

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

const WARMUP = 200;
const now = () => performance.now();
/** Collects garbage between passes when Node runs with --expose-gc (run.ts does), so no pass pays for another's. */
const collect = () => (globalThis as { gc?: () => void }).gc?.();

/**
 * Times `query` once per point, each call alone, with the same loop for every contender (a
 * promise is awaited inside the timed span: ours is async, as it is in the worker).
 */
export async function timeEach<A>(
  points: readonly QueryPoint[],
  query: (q: QueryPoint, i: number) => A | Promise<A>,
  onAnswer: (i: number, answer: A, us: number) => void = () => {},
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < points.length; i++) {
    const q = points[i] as QueryPoint;
    const t = now();
    const r = query(q, i);
    const answer = r instanceof Promise ? await r : r;
    const us = (now() - t) * 1000;
    out.push(us);
    onAnswer(i, answer, us);
  }
  return out;
}

/** `count` indexes spread evenly over 0..n-1 (the same points whatever the order of passes). */
export function spread(n: number, count: number): number[] {
  const c = Math.min(n, Math.max(0, count));
  return Array.from({ length: c }, (_, j) => Math.floor((j * n) / c));
}

/**
 * Groups consecutive points so that each group's entries fit the isolate cache together: warming
 * a group then timing it keeps every point's data in memory without repeating a point right after
 * its own load.
 */
export function cacheChunks(
  keysOf: readonly (readonly string[])[],
  sizeOf: (key: string) => number,
  limit: { entries: number; size: number },
): number[][] {
  const chunks: number[][] = [];
  let current: number[] = [];
  let keys = new Set<string>();
  let size = 0;
  const sum = (list: readonly string[]) => list.reduce((s, k) => s + sizeOf(k), 0);
  keysOf.forEach((pointKeys, i) => {
    let fresh = [...new Set(pointKeys)].filter((k) => !keys.has(k));
    if (current.length > 0 && (keys.size + fresh.length > limit.entries || size + sum(fresh) > limit.size)) {
      chunks.push(current);
      current = [];
      keys = new Set();
      size = 0;
      fresh = [...new Set(pointKeys)];
    }
    for (const k of fresh) keys.add(k);
    size += sum(fresh);
    current.push(i);
  });
  if (current.length > 0) chunks.push(current);
  return chunks;
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
  const store = new BenchKvStore(index.entries);
  t = now();
  const kd = kdNearest(dataset);
  const kdBuildS = (now() - t) / 1000;
  const reference = referenceLookup(dataset);

  // Cold: a fresh isolate for every point (the pointer and the bucket read through the store).
  for (const q of warmup) {
    forgetOurCaches();
    await ourLookup(store, q);
  }
  collect();
  const coldAnswers: Awaited<ReturnType<typeof ourLookup>>[] = [];
  const coldCpu: number[] = [];
  const coldStore: number[] = [];
  const reads: number[] = [];
  const bytesRead: number[] = [];
  const readsOf: KvRead[][] = [];
  let storeBefore = 0;
  const cold = await timeEach(
    points,
    (q) => {
      forgetOurCaches();
      store.take();
      storeBefore = store.storeMs;
      return ourLookup(store, q);
    },
    (i, answer, us) => {
      const storeUs = (store.storeMs - storeBefore) * 1000;
      const log = store.take();
      coldAnswers[i] = answer;
      coldStore.push(storeUs);
      coldCpu.push(us - storeUs);
      reads.push(log.length);
      bytesRead.push(log.reduce((s, r) => s + r.bytes, 0));
      readsOf[i] = log;
    },
  );
  log(`  ${plan.dataset}: cold pass done`);

  // Hot: warm a group of points (their buckets fit the cache together), then time each once.
  const chunks = cacheChunks(
    readsOf.map((r) => r.map((x) => x.key)),
    (key) => {
      const v = store.value(key);
      return v === undefined ? 0 : cacheSize(v);
    },
    { entries: index.cache.entries - 1, size: index.cache.size },
  );
  forgetOurCaches();
  for (const q of warmup) await ourLookup(store, q);
  collect();
  const hot: number[] = [];
  const hotByPoint = new Map<number, number>();
  let dropped = 0;
  for (const chunk of chunks) {
    for (const i of chunk) await ourLookup(store, points[i] as QueryPoint);
    const chunkPoints = chunk.map((i) => points[i] as QueryPoint);
    let readsBefore = 0;
    await timeEach(
      chunkPoints,
      (q) => {
        readsBefore = store.reads;
        return ourLookup(store, q);
      },
      (j, answer, us) => {
        const i = chunk[j] as number;
        if (store.reads !== readsBefore) dropped++;
        else {
          hot.push(us);
          hotByPoint.set(i, us);
        }
        if (!isDeepStrictEqual(answer, coldAnswers[i])) mismatch(`point ${i}: hot answer differs from cold`);
      },
    );
  }
  store.take();
  log(`  ${plan.dataset}: hot pass done (${chunks.length} groups)`);

  // geokdbush: its index built, each point once.
  for (const q of warmup) kd(q);
  collect();
  const geoIds: number[][] = [];
  const geo = await timeEach(points, kd, (i, ids) => {
    geoIds[i] = ids;
  });

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
    const v = store.value(r.key);
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
  forgetOurCaches();
  return { row, detail, kv, points };
}
