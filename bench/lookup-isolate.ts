// Runs one lookup contender in a worker thread of its own: a V8 isolate holding only that contender's
// data, as a Workers isolate holds only the index entries it read. The parent process keeps the whole
// data set (for the brute-force reference); timed in the parent, every contender would also pay for
// collecting that heap, which has nothing to do with any of them.
//
// An isolate stays open while the parent asks it, slice by slice, for hot timings: the parent
// alternates the contenders slice by slice, so both are timed at the same moments of the machine.
//
// A slice is run three times by every contender alike: once untimed (the loading pass: ours reads and
// decodes the entries its points need), then each point timed once right after that pass
// (`afterLoad`), then each point timed once more after a pass that loaded nothing (`times`, the hot
// figure). Right after loading, ours finds its entries' memory pushed out of the CPU's caches by the
// decoding itself, which geokdbush, whose data was loaded when its isolate opened, never meets; the
// second pass times both in the same state, their data in memory and last touched by lookups alone.
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { PsapRecord } from "../sdk/src/protocol.ts";
import { BenchKvStore, type KvRead } from "./kv-store.ts";
import { cacheSize, forgetOurCaches, type KvValue, kdNearestOf, ourLookup } from "./lookup-contenders.ts";
import type { QueryPoint } from "./synthetic.ts";
import { cacheChunks, timeEach } from "./timing.ts";

export interface OursJob {
  kind: "ours";
  entries: [string, KvValue][];
  points: QueryPoint[];
  warmup: QueryPoint[];
  cache: { entries: number; size: number };
}

/** What our isolate reports once open: the cold pass, and the groups of points whose entries fit the cache together. */
export interface OursCold {
  cold: number[];
  coldCpu: number[];
  coldStore: number[];
  reads: number[];
  bytesRead: number[];
  readsOf: KvRead[][];
  answers: PsapRecord[][];
  chunks: number[][];
}

export interface KdJob {
  kind: "geokdbush";
  /** Longitude, latitude pairs of the data set's PSAPs. */
  coordinates: Float64Array;
  points: QueryPoint[];
  warmup: QueryPoint[];
}

/** One slice timed hot: microseconds per point index (points whose call read from the store are left out). */
export interface HotSlice {
  /** The hot figure: each point timed once after a pass that loaded nothing. */
  times: [number, number][];
  /** Each point timed once right after the loading pass (reported beside the hot figure, not as it). */
  afterLoad: [number, number][];
  /** Points left out because their call read from the store (ours only). */
  dropped: number;
  /** Points whose hot answer differed from their cold one (ours only). */
  differs: number[];
  /** The answer's PSAP indexes per point (geokdbush only). */
  ids: [number, number[]][];
}

const collect = () => (globalThis as { gc?: () => void }).gc?.();

/** A contender inside its isolate: made ready once, then asked for hot slices. */
interface Contender<Ready> {
  ready: Ready;
  /** Runs every point of the slice once untimed (its data in memory, as hot means), then times each once, twice over. */
  hot(indexes: readonly number[]): Promise<HotSlice>;
}

async function openOurs(job: OursJob): Promise<Contender<OursCold>> {
  const store = new BenchKvStore(new Map(job.entries));
  // Cold: a fresh isolate for every point (the pointer and the entry read through the store).
  for (const q of job.warmup) {
    forgetOurCaches();
    await ourLookup(store, q);
  }
  collect();
  const r: OursCold = {
    cold: [],
    coldCpu: [],
    coldStore: [],
    reads: [],
    bytesRead: [],
    readsOf: [],
    answers: [],
    chunks: [],
  };
  let storeBefore = 0;
  r.cold = await timeEach(
    job.points,
    (q) => {
      forgetOurCaches();
      store.take();
      storeBefore = store.storeMs;
      return ourLookup(store, q);
    },
    (i, answer, us) => {
      const storeUs = (store.storeMs - storeBefore) * 1000;
      const log = store.take();
      r.answers[i] = answer;
      r.coldStore.push(storeUs);
      r.coldCpu.push(us - storeUs);
      r.reads.push(log.length);
      r.bytesRead.push(log.reduce((s, x) => s + x.bytes, 0));
      r.readsOf[i] = log;
    },
  );
  r.chunks = cacheChunks(
    r.readsOf.map((reads) => reads.map((x) => x.key)),
    (key) => {
      const v = store.value(key);
      return v === undefined ? 0 : cacheSize(v);
    },
    { entries: job.cache.entries - 1, size: job.cache.size },
  );
  forgetOurCaches();
  for (const q of job.warmup) await ourLookup(store, q);
  collect();
  return {
    ready: r,
    async hot(indexes) {
      const slice: HotSlice = { times: [], afterLoad: [], dropped: 0, differs: [], ids: [] };
      for (const i of indexes) await ourLookup(store, job.points[i] as QueryPoint);
      const points = indexes.map((i) => job.points[i] as QueryPoint);
      for (const into of [slice.afterLoad, slice.times]) {
        let readsBefore = 0;
        // Between two timed calls only what geokdbush's pass does too (keep the answer, note the time):
        // the answers are compared once the pass is over, so no check runs between two timed lookups.
        const answers: unknown[] = [];
        await timeEach(
          points,
          (q) => {
            readsBefore = store.reads;
            return ourLookup(store, q);
          },
          (j, answer, us) => {
            if (store.reads !== readsBefore) slice.dropped++;
            else into.push([indexes[j] as number, us]);
            answers.push(answer);
          },
        );
        answers.forEach((answer, j) => {
          const i = indexes[j] as number;
          if (JSON.stringify(answer) !== JSON.stringify(r.answers[i])) slice.differs.push(i);
        });
      }
      return slice;
    },
  };
}

function openKd(job: KdJob): Contender<Record<string, never>> {
  const kd = kdNearestOf(job.coordinates);
  for (const q of job.warmup) kd(q);
  collect();
  return {
    ready: {},
    async hot(indexes) {
      const slice: HotSlice = { times: [], afterLoad: [], dropped: 0, differs: [], ids: [] };
      const points = indexes.map((i) => job.points[i] as QueryPoint);
      for (const q of points) kd(q);
      await timeEach(points, kd, (j, _answer, us) => {
        slice.afterLoad.push([indexes[j] as number, us]);
      });
      await timeEach(points, kd, (j, answer, us) => {
        const i = indexes[j] as number;
        slice.times.push([i, us]);
        slice.ids.push([i, answer]);
      });
      return slice;
    },
  };
}

/** The parent's handle on an open isolate. */
export interface LookupIsolate<Ready> {
  ready: Ready;
  hot(indexes: readonly number[]): Promise<HotSlice>;
  close(): Promise<void>;
}

type FromIsolate = { ready: unknown } | { slice: HotSlice } | { failed: string };

/** Opens a contender in a fresh worker thread; resolves once it is ready (ours: after its cold pass). */
export function openIsolate(job: OursJob): Promise<LookupIsolate<OursCold>>;
export function openIsolate(job: KdJob): Promise<LookupIsolate<Record<string, never>>>;
export function openIsolate(job: OursJob | KdJob): Promise<LookupIsolate<unknown>> {
  const worker = new Worker(new URL(import.meta.url), { workerData: job });
  // One request at a time: each answer settles the request waiting for it. Once the worker has
  // failed or gone, every later request fails at once instead of waiting forever.
  let waiting: { resolve(m: FromIsolate): void; reject(e: Error): void } | null = null;
  let broken: Error | null = null;
  const next = () =>
    new Promise<FromIsolate>((resolve, reject) => {
      if (broken) reject(broken);
      else waiting = { resolve, reject };
    });
  const fail = (error: Error) => {
    broken ??= error;
    const w = waiting;
    waiting = null;
    w?.reject(error);
  };
  worker.on("message", (m: FromIsolate) => {
    const w = waiting;
    waiting = null;
    if ("failed" in m) w?.reject(new Error(`lookup isolate failed: ${m.failed}`));
    else w?.resolve(m);
  });
  worker.on("error", fail);
  worker.once("exit", (code) => fail(new Error(`lookup isolate exited with ${code}`)));
  // An isolate that failed to open is stopped here: no caller holds it to close it.
  const opened = next().catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  return opened.then(async (first) => {
    if (!("ready" in first)) {
      await worker.terminate();
      throw new Error("lookup isolate did not report ready");
    }
    return {
      ready: first.ready,
      async hot(indexes) {
        const answer = next();
        worker.postMessage({ hot: [...indexes] });
        const m = await answer;
        if (!("slice" in m)) throw new Error("lookup isolate answered no slice");
        return m.slice;
      },
      async close() {
        fail(new Error("lookup isolate closed"));
        await worker.terminate();
      },
    };
  });
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  const job = workerData as OursJob | KdJob;
  try {
    const contender: Contender<unknown> = job.kind === "ours" ? await openOurs(job) : openKd(job);
    port.on("message", (m: { hot: number[] }) => {
      contender.hot(m.hot).then(
        (slice) => port.postMessage({ slice } satisfies FromIsolate),
        (error: unknown) => port.postMessage({ failed: String(error) } satisfies FromIsolate),
      );
    });
    port.postMessage({ ready: contender.ready } satisfies FromIsolate);
  } catch (error) {
    port.postMessage({ failed: String(error) } satisfies FromIsolate);
  }
}
