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

/** Mismatches found so far: listed (at most 20), never thrown; the run reports them and fails. */
type Mismatches = { list: string[]; add(what: string): void };

function mismatchList(): Mismatches {
  const list: string[] = [];
  return { list, add: (what) => void (list.length < 20 && list.push(what)) };
}

/** Runs one data set; a mismatch is listed (the run reports it and fails), never thrown. */
export async function benchLookup(
  dataset: PsapDataset,
  plan: LookupPlan,
  log: (line: string) => void = () => {},
): Promise<{ row: LookupRow; detail: LookupDetail; kv: KvSample; points: QueryPoint[] }> {
  const points = queryPoints(plan.queries, plan.seed);
  const warmup = queryPoints(WARMUP, plan.seed + 7919);
  const bruteIdx = spread(points.length, plan.bruteQueries);
  const mismatches = mismatchList();
  const built = buildTimed(dataset, plan.dataset, log);
  const { ours, kd, kdBuildS } = await openContenders(dataset, built.index, points, warmup);
  const hot = await timeHot(ours, kd, mismatches);
  log(`  ${plan.dataset}: cold pass done; hot passes done in ${hot.slices} slices, contenders taking turns`);
  const brute = await timeBruteForce(dataset, points, warmup, bruteIdx, {
    coldAnswers: ours.ready.answers,
    geoIds: hot.geoIds,
    mismatches,
  });
  const kv = kvSampleOf(plan, built.index, spread(points.length, plan.kvSamples), ours.ready.readsOf);
  const timed: Timed = { built, cold: ours.ready, hot, brute, bruteIdx, kdBuildS };
  const row = lookupRow(plan, dataset.psaps.length, timed);
  const detail = lookupDetail(plan, dataset.psaps.length, timed, { points, warmup, mismatches });
  return { row, detail, kv, points };
}

/** Our index, built and timed, with its size on KV. */
function buildTimed(dataset: PsapDataset, name: string, log: (line: string) => void) {
  const t = now();
  const index = buildOurIndex(dataset, `bench-${name}`);
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
  log(`  ${name}: index built in ${buildS.toFixed(1)} s, ${index.entries.size} KV entries`);
  return { index, buildS, indexBytes, largest, largestKey };
}

type Built = ReturnType<typeof buildTimed>;

/**
 * Ours (index entries only) and geokdbush (coordinates only), each in an isolate of its own. Ours makes
 * its cold pass as it opens.
 */
async function openContenders(
  dataset: PsapDataset,
  index: Built["index"],
  points: QueryPoint[],
  warmup: QueryPoint[],
) {
  const ours = await openIsolate({
    kind: "ours",
    entries: [...index.entries],
    points,
    warmup,
    cache: index.cache,
  });
  const t = now();
  const coordinates = new Float64Array(dataset.psaps.length * 2);
  dataset.psaps.forEach((q, i) => {
    coordinates[2 * i] = q.longitude;
    coordinates[2 * i + 1] = q.latitude;
  });
  try {
    const kd = await openIsolate({ kind: "geokdbush", coordinates, points, warmup });
    return { ours, kd, kdBuildS: (now() - t) / 1000 };
  } catch (error) {
    await ours.close();
    throw error;
  }
}

type Ours = Awaited<ReturnType<typeof openContenders>>["ours"];

/**
 * Both timed hot slice by slice, taking turns (the first of each slice alternates), so neither meets a
 * quieter or busier moment of the machine than the other. Closes both isolates.
 */
async function timeHot(ours: Ours, kd: LookupIsolate<unknown>, mismatches: Mismatches) {
  const hot = { times: [] as number[], byPoint: new Map<number, number>(), afterLoad: [] as number[] };
  const geo = { times: [] as number[], ids: [] as number[][], afterLoad: [] as number[] };
  let dropped = 0;
  const slices = hotSlices(ours.ready.chunks, SLICE_POINTS);
  try {
    for (const [k, slice] of slices.entries()) {
      for (const contender of k % 2 === 0 ? [ours, kd] : [kd, ours]) {
        const timed = await contender.hot(slice);
        if (contender === ours) {
          dropped += timed.dropped;
          for (const [i, us] of timed.times) {
            hot.times.push(us);
            hot.byPoint.set(i, us);
          }
          for (const [, us] of timed.afterLoad) hot.afterLoad.push(us);
          for (const i of timed.differs) mismatches.add(`point ${i}: hot answer differs from cold`);
        } else {
          for (const [, us] of timed.afterLoad) geo.afterLoad.push(us);
          for (const [, us] of timed.times) geo.times.push(us);
          for (const [i, ids] of timed.ids) geo.ids[i] = ids;
        }
      }
    }
  } finally {
    await Promise.all([ours.close(), kd.close()]);
  }
  return {
    ...hot,
    geo: geo.times,
    geoIds: geo.ids,
    geoAfterLoad: geo.afterLoad,
    dropped,
    slices: slices.length,
  };
}

/**
 * Brute force: the reference ranking over the whole set (the very answer ours must give), and the plain
 * k-nearest scan; both checked against the others.
 */
async function timeBruteForce(
  dataset: PsapDataset,
  points: QueryPoint[],
  warmup: QueryPoint[],
  bruteIdx: number[],
  check: { coldAnswers: Ours["ready"]["answers"]; geoIds: number[][]; mismatches: Mismatches },
) {
  const reference = referenceLookup(dataset);
  const brutePoints = bruteIdx.map((i) => points[i] as QueryPoint);
  for (const q of warmup.slice(0, 3)) reference(q);
  collect();
  const brute = await timeEach(brutePoints, reference, (j, expected) => {
    const i = bruteIdx[j] as number;
    if (!isDeepStrictEqual(check.coldAnswers[i], expected))
      check.mismatches.add(`point ${i}: ours differs from brute force`);
  });
  const plain = await timeEach(
    brutePoints,
    (q) => plainNearestKm(dataset, q),
    (j, nearestKm) => {
      const i = bruteIdx[j] as number;
      const q = points[i] as QueryPoint;
      if (!sameDistances(distancesKm(dataset, q, check.geoIds[i] ?? []), nearestKm))
        check.mismatches.add(`point ${i}: geokdbush differs from the plain distance scan`);
    },
  );
  return { brute, plain };
}

/** The cold reads of the sampled points, with the values they read, to replay on a real local KV. */
function kvSampleOf(plan: LookupPlan, index: Built["index"], kvIdx: number[], readsOf: KvRead[][]): KvSample {
  const kv: KvSample = {
    dataset: plan.dataset,
    points: kvIdx.map((i) => readsOf[i] ?? []),
    values: new Map(),
  };
  for (const r of kv.points.flat()) {
    const v = index.entries.get(r.key);
    if (v !== undefined) kv.values.set(r.key, v);
  }
  return kv;
}

/** Everything timed over one data set. */
interface Timed {
  built: Built;
  cold: Ours["ready"];
  hot: Awaited<ReturnType<typeof timeHot>>;
  brute: Awaited<ReturnType<typeof timeBruteForce>>;
  bruteIdx: number[];
  kdBuildS: number;
}

function lookupRow(plan: LookupPlan, n: number, t: Timed): LookupRow {
  const [hotP, cpuP, readsP, geoP, bruteP] = [
    t.hot.times,
    t.cold.coldCpu,
    t.cold.reads,
    t.hot.geo,
    t.brute.brute,
  ].map(p) as [Record<50 | 99, number>, ...Record<50 | 99, number>[]];
  return {
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
    index_build_s: round(t.built.buildS, 2),
    index_bytes: t.built.indexBytes,
    largest_bucket_bytes: t.built.largest,
  };
}

function lookupDetail(
  plan: LookupPlan,
  n: number,
  t: Timed,
  run: { points: QueryPoint[]; warmup: QueryPoint[]; mismatches: Mismatches },
): LookupDetail {
  const [geoP, bruteP, coldP, bytesP] = [t.hot.geo, t.brute.brute, t.cold.cold, t.cold.bytesRead].map(p);
  const oursOnBrute = t.bruteIdx.flatMap((i) => {
    const us = t.hot.byPoint.get(i);
    return us === undefined ? [] : [us];
  });
  return {
    dataset: plan.dataset,
    n,
    queries: run.points.length,
    brute_queries: t.bruteIdx.length,
    warmup_queries: run.warmup.length,
    hot_samples: t.hot.times.length,
    hot_dropped: t.hot.dropped,
    hot_chunks: t.cold.chunks.length,
    hot_slices: t.hot.slices,
    ours_after_load_us_p50: round(p(t.hot.afterLoad)[50], 2),
    ours_after_load_us_p99: round(p(t.hot.afterLoad)[99], 2),
    geokdbush_after_load_us_p50: round(p(t.hot.geoAfterLoad)[50], 2),
    ours_on_brute_points_us_p50: round(p(oursOnBrute)[50], 2),
    cold_us_p50: round(coldP?.[50] ?? Number.NaN, 1),
    cold_us_p99: round(coldP?.[99] ?? Number.NaN, 1),
    cold_store_us_p50: round(p(t.cold.coldStore)[50], 1),
    cold_bytes_read_p50: bytesP?.[50] ?? Number.NaN,
    cold_bytes_read_p99: bytesP?.[99] ?? Number.NaN,
    geokdbush_us_p99: round(geoP?.[99] ?? Number.NaN, 2),
    geokdbush_build_s: round(t.kdBuildS, 2),
    brute_us_p99: round(bruteP?.[99] ?? Number.NaN, 1),
    plain_scan_us_p50: round(p(t.brute.plain)[50], 1),
    kv_entries: t.built.index.entries.size,
    largest_entry_key: t.built.largestKey,
    empty_answers: t.cold.answers.filter((a) => a.length === 0).length,
    mismatches: run.mismatches.list,
  };
}
