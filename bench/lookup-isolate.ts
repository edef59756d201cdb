// Runs one lookup contender in a worker thread of its own: a V8 isolate holding only that contender's
// data, as a Workers isolate holds only the index entries it read. The parent process keeps the whole
// data set (for the brute-force reference); timed in the parent, every contender would also pay for
// collecting that heap, which has nothing to do with any of them.
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

export interface OursResult {
  cold: number[];
  coldCpu: number[];
  coldStore: number[];
  reads: number[];
  bytesRead: number[];
  readsOf: KvRead[][];
  answers: PsapRecord[][];
  hot: number[];
  /** Microseconds per point index, for the points whose hot call read nothing. */
  hotByPoint: [number, number][];
  dropped: number;
  chunks: number;
  /** Points whose hot answer differed from their cold one. */
  hotDiffers: number[];
}

export interface KdJob {
  kind: "geokdbush";
  /** Longitude, latitude pairs of the data set's PSAPs. */
  coordinates: Float64Array;
  points: QueryPoint[];
  warmup: QueryPoint[];
}

export interface KdResult {
  times: number[];
  ids: number[][];
}

const collect = () => (globalThis as { gc?: () => void }).gc?.();

async function runOurs(job: OursJob): Promise<OursResult> {
  const store = new BenchKvStore(new Map(job.entries));
  // Cold: a fresh isolate for every point (the pointer and the entry read through the store).
  for (const q of job.warmup) {
    forgetOurCaches();
    await ourLookup(store, q);
  }
  collect();
  const r: OursResult = {
    cold: [],
    coldCpu: [],
    coldStore: [],
    reads: [],
    bytesRead: [],
    readsOf: [],
    answers: [],
    hot: [],
    hotByPoint: [],
    dropped: 0,
    chunks: 0,
    hotDiffers: [],
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
  // Hot: warm a group of points (their entries fit the cache together), then time each once.
  const chunks = cacheChunks(
    r.readsOf.map((reads) => reads.map((x) => x.key)),
    (key) => {
      const v = store.value(key);
      return v === undefined ? 0 : cacheSize(v);
    },
    { entries: job.cache.entries - 1, size: job.cache.size },
  );
  r.chunks = chunks.length;
  forgetOurCaches();
  for (const q of job.warmup) await ourLookup(store, q);
  collect();
  for (const chunk of chunks) {
    for (const i of chunk) await ourLookup(store, job.points[i] as QueryPoint);
    const chunkPoints = chunk.map((i) => job.points[i] as QueryPoint);
    let readsBefore = 0;
    await timeEach(
      chunkPoints,
      (q) => {
        readsBefore = store.reads;
        return ourLookup(store, q);
      },
      (j, answer, us) => {
        const i = chunk[j] as number;
        if (store.reads !== readsBefore) r.dropped++;
        else {
          r.hot.push(us);
          r.hotByPoint.push([i, us]);
        }
        if (JSON.stringify(answer) !== JSON.stringify(r.answers[i])) r.hotDiffers.push(i);
      },
    );
  }
  forgetOurCaches();
  return r;
}

async function runKd(job: KdJob): Promise<KdResult> {
  const kd = kdNearestOf(job.coordinates);
  for (const q of job.warmup) kd(q);
  collect();
  const ids: number[][] = [];
  const times = await timeEach(job.points, kd, (i, answer) => {
    ids[i] = answer;
  });
  return { times, ids };
}

/** Runs a job in a fresh worker thread and resolves with its result. */
export function inIsolate(job: OursJob): Promise<OursResult>;
export function inIsolate(job: KdJob): Promise<KdResult>;
export function inIsolate(job: OursJob | KdJob): Promise<OursResult | KdResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: job });
    worker.once("message", (result: OursResult | KdResult) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (code !== 0) reject(new Error(`lookup isolate exited with ${code}`));
    });
  });
}

if (!isMainThread && parentPort) {
  const job = workerData as OursJob | KdJob;
  const result = job.kind === "ours" ? await runOurs(job) : await runKd(job);
  parentPort.postMessage(result);
}
