// The Performance section's LoST part (issue 31): what is timed, and the figures of latest.json's `lost`
// with their spread over the kept runs. Every number here comes from the results, none from the prose.
import { auto, num, table, withSpread } from "./markdown.ts";
import type { BenchResults, LostResult } from "./results.ts";

/** What the detail file says about the LoST part's run (bench/lost.ts). */
export interface LostInfo {
  keys: number;
  sessions: number;
  /** Points where both found no PSAP (LoST notFound, the session API outside_coverage). */
  agreed_none: number;
}

const WHAT_IS_TIMED =
  "A `wrangler dev` started as for the SOS loop (the same bench entry and index in local KV, plus `--var LOST_ENABLED:true`; the SOS loop's own server when both parts run), on the first of the lookup's seeded points, one request at a time: for each fix, `POST /lost` with a findService (`urn:service:sos`, the fix as a GML Point, the platform's key in `X-API-Key`) and the patient's `POST .../sos/location` with the same coordinates in a live session under SOS (both sockets open; the request whose answer carries the PSAPs, accuracy 0 since a Point has none). Each is timed from the client, from sending to the last byte of its answer. Both are sent once untimed for the fix and then once timed, LoST first on every other fix, so both meet the same moments of this machine and both find the fix's index entry in the isolate's cache: these are the answers of a warm server. The LoST requests are spread over enough API keys, and the location posts over enough sessions, that none passes its rate limit over the whole part. Every timed pair's answers are checked: LoST's `displayName` must be the session answer's first PSAP as `name (state)`, or LoST's `notFound` where the session API found none (`outside_coverage`).";

/** The ratio of two figures of one run. */
const ratio = (v: number): string => `${num(v, 2)}×`;

export function lostLines(latest: BenchResults, runs: readonly BenchResults[], info?: LostInfo): string[] {
  const l = latest.lost;
  const head = ["### LoST beside the session API", "", WHAT_IS_TIMED, ""];
  if (!l) return [...head, "Not measured yet: `npm run bench -- --only lost`.", ""];
  const s = (pick: (x: LostResult) => number, show: (v: number) => string = auto) =>
    withSpread(
      pick(l),
      runs.flatMap((r) => (r.lost ? [pick(r.lost)] : [])),
      show,
    );
  const row = [
    num(l.points, 0),
    s((x) => x.lost_ms_p50),
    s((x) => x.lost_ms_p95),
    s((x) => x.lost_ms_p99),
    s((x) => x.session_ms_p50),
    s((x) => x.session_ms_p95),
    s((x) => x.session_ms_p99),
    s((x) => x.lost_ms_p50 / x.session_ms_p50, ratio),
    s((x) => x.lost_ms_p99 / x.session_ms_p99, ratio),
    `${num(l.agreed, 0)} of ${num(l.points, 0)}`,
  ];
  const columns = [
    "points",
    "LoST p50 ms",
    "p95 ms",
    "p99 ms",
    "location POST p50 ms",
    "p95 ms",
    "p99 ms",
    "p50 ratio",
    "p99 ratio",
    "answers agreed",
  ];
  return [...head, table(columns, [row]), "", checksLine(l, info), ""];
}

/** The checks in words: how the requests were spread, and any point that disagreed or failed. */
function checksLine(l: LostResult, info: LostInfo | undefined): string {
  const spread = info
    ? `The LoST requests went over ${num(info.keys, 0)} API key${info.keys === 1 ? "" : "s"}, the location posts over ${num(info.sessions, 0)} sessions; at ${num(info.agreed_none, 0)} of the points both found no PSAP. `
    : "";
  const problems = [
    ...(l.disagreements > 0 ? [`${num(l.disagreements, 0)} points answered differently`] : []),
    ...(l.failed > 0 ? [`${num(l.failed, 0)} points were not answered 200 and are not timed`] : []),
  ];
  return problems.length === 0
    ? `${spread}Every timed answer agreed.`
    : `${spread}**${problems.join("; ")}** (see latest-detail.json): the goal is not met.`;
}
