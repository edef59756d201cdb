// How much each benchmark does: `--quick` (under 5 minutes on 2 cores, every data set and scale) or full.
import type { DatasetName } from "./results.ts";

export interface Plans {
  lookup: Record<DatasetName, { queries: number; bruteQueries: number }>;
  e2e: { sessions: number; rounds: number; spreadMs: number; burstRounds: number; soloLoops: number };
  load: { sessions: number };
}

export function plans(quick: boolean, _seed: number): Plans {
  return quick
    ? {
        lookup: {
          fcc: { queries: 2_000, bruteQueries: 300 },
          "synthetic-100k": { queries: 1_000, bruteQueries: 100 },
          "synthetic-1m": { queries: 500, bruteQueries: 20 },
        },
        e2e: { sessions: 100, rounds: 1, spreadMs: 20_000, burstRounds: 1, soloLoops: 30 },
        load: { sessions: 1_000 },
      }
    : {
        lookup: {
          fcc: { queries: 20_000, bruteQueries: 2_000 },
          "synthetic-100k": { queries: 5_000, bruteQueries: 300 },
          "synthetic-1m": { queries: 2_000, bruteQueries: 60 },
        },
        e2e: { sessions: 100, rounds: 3, spreadMs: 20_000, burstRounds: 2, soloLoops: 100 },
        load: { sessions: 1_000 },
      };
}
