// The Performance section's location check part (issue 30): what is timed, and the figures of latest.json's
// `check` with their spread over the kept runs. Every number here comes from the results, none from the prose.
import { auto, num, table, withSpread } from "./markdown.ts";
import type { BenchResults, CheckResult } from "./results.ts";

/** What the detail file says about the check part's run (bench/check.ts). */
export interface CheckInfo {
  platforms: number;
  /** Fixes tried, fixes in flight at once, and how long they all took: the load of the run. */
  planned: number;
  concurrency: number;
  seconds: number;
  /** Fixes where the check and the SOS loop both found no PSAP (outside coverage): not timed. */
  agreed_none: number;
  /** From the patient socket's opening to its `location_request`: the check's first half. */
  request_ms_p50: number;
}

const WHAT_IS_TIMED =
  "On the SOS loop's `wrangler dev` (the same bench entry and index in local KV), for each of the lookup's first seeded points, two fresh sessions: one created with `location_check: \"at_start\"` and one without. With the check, the counselor socket is opened first; the clock starts just before the patient socket is opened and stops when the counselor socket receives `location_check` with outcome `located` and a PSAP (the patient side answers its `location_request` by posting the fix to `.../location-check`, as the patient SDK does). Without it, what a counselor has today: both sockets open, the clock runs from the counselor's `POST .../sos` to the counselor's `psap_results` (the patient side posts the same fix to `.../sos/location` when its `location_request` arrives). Both are timed from the client, the two kinds taking turns at going first for each fix (the first may read the fix's index entry from KV), many fixes in flight at once. Every check must reach the counselor, and its first PSAP must be the SOS loop's for the same fix.";

export function checkLines(latest: BenchResults, runs: readonly BenchResults[], info?: CheckInfo): string[] {
  const c = latest.check;
  const head = ["### Location check beside the SOS loop", "", WHAT_IS_TIMED, ""];
  if (!c) return [...head, "Not measured yet: `npm run bench -- --only check`.", ""];
  const s = (pick: (x: CheckResult) => number) =>
    withSpread(
      pick(c),
      runs.flatMap((r) => (r.check ? [pick(r.check)] : [])),
      auto,
    );
  const row = [
    num(c.fixes, 0),
    num(c.concurrency, 0),
    s((x) => x.check_ms_p50),
    s((x) => x.check_ms_p95),
    s((x) => x.check_ms_p99),
    s((x) => x.sos_ms_p50),
    s((x) => x.sos_ms_p95),
    s((x) => x.sos_ms_p99),
    `${num(c.checks_arrived, 0)} of ${num(c.checks_arrived + c.checks_lost, 0)}`,
    `${num(c.agreed, 0)} of ${num(c.fixes, 0)}`,
  ];
  const columns = [
    "fixes",
    "at once",
    "check p50 ms",
    "p95 ms",
    "p99 ms",
    "SOS loop p50 ms",
    "p95 ms",
    "p99 ms",
    "checks arrived",
    "first PSAP agreed",
  ];
  return [...head, table(columns, [row]), "", checksLine(c, info), ""];
}

/** The checks in words: how the sessions were spread, where the time went, and anything lost or wrong. */
function checksLine(c: CheckResult, info: CheckInfo | undefined): string {
  const spread = info
    ? `The ${num(info.planned, 0)} fixes took ${num(info.seconds, 1)} s with ${num(info.concurrency, 0)} in flight (${num(info.planned / info.seconds, 0)} a second; each opens four sockets and sends three browser requests); the sessions were created beforehand on ${num(info.platforms, 0)} API key${info.platforms === 1 ? "" : "s"}. The patient socket had its \`location_request\` ${auto(info.request_ms_p50)} ms after its opening (p50); at ${num(info.agreed_none, 0)} fixes both found no PSAP (not timed). `
    : "";
  const problems = [
    ...(c.checks_lost > 0 ? [`${num(c.checks_lost, 0)} checks never reached the counselor`] : []),
    ...(c.disagreements > 0 ? [`${num(c.disagreements, 0)} fixes answered differently`] : []),
    ...(c.failed > 0 ? [`${num(c.failed, 0)} fixes failed and are not timed`] : []),
  ];
  return problems.length === 0
    ? `${spread}Every check arrived and agreed with the SOS loop's answer.`
    : `${spread}**${problems.join("; ")}** (see latest-detail.json): the goal is not met.`;
}
