// The Performance section's location URI part (issue 37): what is timed, and the figures of latest.json's
// `held` with their spread over the kept runs. Every number here comes from the results, none from the prose.
import { auto, num, table, withSpread } from "./markdown.ts";
import type { BenchResults, HeldResult } from "./results.ts";

/** What the detail file says about the part's run (bench/held.ts). */
export interface HeldInfo {
  keys: number;
}

const WHAT_IS_TIMED =
  "A `wrangler dev` started as for the SOS loop (the same bench entry and index in local KV, plus `--var HELD_ENABLED:true --var LOST_ENABLED:true`; the SOS loop's own server when both parts run), on the first of the lookup's seeded points, one request at a time. Each fix has a session of its own under SOS, with the fix posted as the patient's (accuracy 0: a Point) and one location URI made with the platform's key. For each fix: the URI's dereference (`POST /held/{token}` with the HELD locationRequest Kamailio's `lost_held_dereference` sends, answered with the PIDF-LO), a session read (`GET .../sessions/{id}` with the platform's key) and LoST's answer for the same fix (`POST /lost`, the fix as a GML Point). Each is timed from the client, from sending to the last byte of its answer; all three are sent once untimed and then once timed, each kind going first on every third fix, so they meet the same moments of this machine on a warm server. Every timed dereference must give the fix back.";

const ratio = (v: number): string => `${num(v, 2)}×`;

export function heldLines(latest: BenchResults, runs: readonly BenchResults[], info?: HeldInfo): string[] {
  const h = latest.held;
  const head = ["### Location URIs beside a session read and LoST", "", WHAT_IS_TIMED, ""];
  if (!h) return [...head, "Not measured yet: `npm run bench -- --only held`.", ""];
  const s = (pick: (x: HeldResult) => number, show: (v: number) => string = auto) =>
    withSpread(
      pick(h),
      runs.flatMap((r) => (r.held ? [pick(r.held)] : [])),
      show,
    );
  const row = [
    num(h.points, 0),
    s((x) => x.deref_ms_p50),
    s((x) => x.deref_ms_p99),
    s((x) => x.read_ms_p50),
    s((x) => x.read_ms_p99),
    s((x) => x.lost_ms_p50),
    s((x) => x.lost_ms_p99),
    s((x) => x.deref_ms_p50 / x.read_ms_p50, ratio),
    s((x) => x.deref_ms_p50 / x.lost_ms_p50, ratio),
    `${num(h.located, 0)} of ${num(h.points, 0)}`,
  ];
  const columns = [
    "points",
    "dereference p50 ms",
    "p99 ms",
    "session read p50 ms",
    "p99 ms",
    "LoST p50 ms",
    "p99 ms",
    "p50 vs read",
    "p50 vs LoST",
    "fix given back",
  ];
  const spread = info
    ? `The requests went over ${num(info.keys, 0)} API key${info.keys === 1 ? "" : "s"}. `
    : "";
  const problems =
    h.failed > 0
      ? `**${num(h.failed, 0)} points failed** (see latest-detail.json).`
      : "Every point was answered.";
  return [...head, table(columns, [row]), "", `${spread}${problems}`, ""];
}
