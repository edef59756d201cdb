// How much each benchmark does: `--quick` (every data set and scale, 1,000,000 PSAPs and 1,000
// sessions included, fewer repetitions) or full. `tiny` is the harness's own test size.
import type { DatasetName } from "./results.ts";

export interface DatasetPlan {
  /** Points timed for ours (hot and cold), geokdbush and PostGIS. */
  queries: number;
  /** Of those, spread evenly: also timed by brute force; every contender's answer checked. */
  bruteQueries: number;
  /** Of those, spread evenly: cold reads replayed on wrangler dev's local KV. */
  kvSamples: number;
}

export interface Plans {
  lookup: Record<DatasetName, DatasetPlan>;
  postgis: { connections: number };
  e2e: {
    sessions: number;
    rounds: number;
    spreadMs: number;
    slices: number;
    burstRounds: number;
    soloLoops: number;
  };
  load: { sessions: number };
  /** LoST beside the session location POST (bench/lost.ts): seeded fixes, each timed once per kind. */
  lost: { points: number };
  /**
   * The location check beside the SOS loop (bench/check.ts): seeded fixes, each with a fresh session of
   * each kind, `concurrency` fixes in flight at once.
   */
  check: { fixes: number; concurrency: number };
  /** Location URIs (bench/held.ts): seeded fixes, each with its session and URI, each kind timed once. */
  held: { points: number };
}

export type PlanSize = "quick" | "full";

export function plans(size: PlanSize): Plans {
  return size === "quick"
    ? {
        lookup: {
          fcc: { queries: 2_000, bruteQueries: 300, kvSamples: 200 },
          "synthetic-100k": { queries: 1_000, bruteQueries: 100, kvSamples: 100 },
          "synthetic-1m": { queries: 500, bruteQueries: 20, kvSamples: 100 },
        },
        postgis: { connections: 10 },
        e2e: { sessions: 100, rounds: 2, spreadMs: 20_000, slices: 4, burstRounds: 1, soloLoops: 30 },
        load: { sessions: 1_000 },
        lost: { points: 500 },
        check: { fixes: 200, concurrency: 50 },
        held: { points: 300 },
      }
    : {
        lookup: {
          fcc: { queries: 20_000, bruteQueries: 2_000, kvSamples: 500 },
          "synthetic-100k": { queries: 5_000, bruteQueries: 300, kvSamples: 300 },
          "synthetic-1m": { queries: 2_000, bruteQueries: 60, kvSamples: 300 },
        },
        postgis: { connections: 30 },
        e2e: { sessions: 100, rounds: 5, spreadMs: 20_000, slices: 4, burstRounds: 2, soloLoops: 100 },
        load: { sessions: 1_000 },
        lost: { points: 2_000 },
        check: { fixes: 1_000, concurrency: 100 },
        held: { points: 1_000 },
      };
}
