// The I/O half of a cold lookup, on a real local KV: the same reads (same keys, same values, same
// order) that sampled cold lookups made, replayed on `wrangler dev` through the bench route
// /__floor/kv. The worker's clock has millisecond steps, so the client times each call and takes
// away the time of an identical call that reads nothing (one just before, one just after).
import type { KvSample } from "./lookup.ts";
import type { KvValue } from "./lookup-contenders.ts";
import { percentiles, round } from "./stats.ts";

export interface KvReadDetail {
  dataset: string;
  points: number;
  distinct_keys: number;
  bytes_loaded: number;
  /** The call with the reads, and the empty call, as the client saw them. */
  with_reads_ms_p50: number;
  empty_ms_p50: number;
  kv_ms_p99: number;
  /** The worker's own millisecond clock around the reads (coarse: a cross-check). */
  in_worker_ms_p50: number;
}

/** Sample keys live under their own prefix, so they never shadow the index the server serves. */
export function sampleKey(dataset: string, key: string): string {
  return `bench-kv:${dataset}:${key}`;
}

export function sampleEntries(samples: readonly KvSample[]): [string, KvValue][] {
  return samples.flatMap((s) =>
    [...s.values].map(([k, v]) => [sampleKey(s.dataset, k), v] as [string, KvValue]),
  );
}

async function call(
  baseUrl: string,
  reads: { key: string; type: string }[],
): Promise<{ ms: number; inWorker: number }> {
  const t = performance.now();
  const res = await fetch(`${baseUrl}/__floor/kv`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ reads }),
  });
  const body = (await res.json()) as { ms: number[] };
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`/__floor/kv answered ${res.status}`);
  return { ms, inWorker: body.ms.reduce((s, v) => s + v, 0) };
}

/** Replays each sampled point's cold reads once; returns the p50 of the reads' time in ms. */
export async function timeKvReads(
  baseUrl: string,
  sample: KvSample,
): Promise<{ p50: number; detail: KvReadDetail }> {
  const readsOf = sample.points.map((reads) =>
    reads.map((r) => ({ key: sampleKey(sample.dataset, r.key), type: r.type })),
  );
  for (let i = 0; i < 20; i++) await call(baseUrl, []);
  const kv: number[] = [];
  const withReads: number[] = [];
  const empty: number[] = [];
  const inWorker: number[] = [];
  for (const reads of readsOf) {
    const before = await call(baseUrl, []);
    const timed = await call(baseUrl, reads);
    const after = await call(baseUrl, []);
    const base = (before.ms + after.ms) / 2;
    kv.push(Math.max(0, timed.ms - base));
    withReads.push(timed.ms);
    empty.push(before.ms, after.ms);
    inWorker.push(timed.inWorker);
  }
  const p = percentiles(kv, [50, 99]);
  let bytes = 0;
  for (const v of sample.values.values())
    bytes += typeof v === "string" ? Buffer.byteLength(v) : v.byteLength;
  return {
    p50: round(p[50], 3),
    detail: {
      dataset: sample.dataset,
      points: readsOf.length,
      distinct_keys: sample.values.size,
      bytes_loaded: bytes,
      with_reads_ms_p50: round(percentiles(withReads, [50])[50], 3),
      empty_ms_p50: round(percentiles(empty, [50])[50], 3),
      kv_ms_p99: round(p[99], 3),
      in_worker_ms_p50: percentiles(inWorker, [50])[50],
    },
  };
}
