// Writes the Performance section of bench/README.md from bench/results/latest.json (and the kept runs of
// bench/results/history): every figure and every goal's verdict comes from the JSON, so no claim
// can outlive its figure. `npm run bench` ends with it; `npm run bench -- --readme-only` reruns it.
import { checkGoals, type GoalCheck } from "./goals.ts";
import type { HistoryRun, RunMode } from "./history.ts";
import { auto, num, table, withSpread } from "./markdown.ts";
import { type CheckInfo, checkLines } from "./readme-check.ts";
import { type HeldInfo, heldLines } from "./readme-held.ts";
import { type LostInfo, lostLines } from "./readme-lost.ts";
import {
  type BenchResults,
  DATASETS,
  type DatasetName,
  type LookupRow,
  type PostgisRow,
  postgisRows,
} from "./results.ts";

export const SECTION_MARKER = "<!-- section: performance (owner: bench) -->";

/** What the run's detail file says about how it was run (optional: the figures stand without it). */
export interface RunInfo {
  mode?: RunMode;
  points?: Partial<Record<DatasetName, { queries: number; bruteQueries: number; kvSamples: number }>>;
  e2eSessions?: number;
  loadSessions?: number;
  /** One loop at a time, nothing else running (e2e detail). */
  solo?: { sos_ms_p50: number; sos_again_ms_p50?: number; floor_ms_p50: number; trivial_ms_p50: number };
  /** The concurrent SOS loops (e2e detail): the first on the server with their fix, and the later ones. */
  fixes?: { first_loops: number; first_ms_p50: number; later_loops: number; later_ms_p50: number };
  /** Where the servers kept their local state (bench/state-dir.ts). */
  state?: { medium: "memory" | "disk"; dir: string };
  /** The e2e again on a server whose state is on disk, when the main one's was in memory. */
  e2eOnDisk?: {
    sos_ms_p50: number;
    sos_ms_p99: number;
    floor_ms_p50: number;
    /** Absent in detail files written before it was recorded. */
    floor_ms_p99?: number;
    durable_floor_ms_p50: number;
    trivial_ms_p50: number;
    lost_messages: number;
  };
  /** The floor with one storage write per request, in the same slices (e2e detail). */
  durableFloor?: { loops: number; ms_p50: number; ms_p99: number };
  /** The load server's workerd processes (load detail). */
  memory?: { idle_mb: number; per_session_mb: number; peak_mb: number; proxy_mb: number };
  /** The storm itself (load detail): how long, and how each loop was answered. */
  storm?: { seconds: number; loops_ok: number; loops_late: number; loop_ms_p50: number; loop_ms_p99: number };
  /** Per data set: answers checked, equal only up to distance ties, fresh connection + first query. */
  postgis?: { dataset: string; checked: number; ties: number; mismatches: number; connect_ms_p50: number }[];
  /** Per data set: lookup answers that differed between contenders (0 in a sound run). */
  lookupMismatches?: Partial<Record<DatasetName, number>>;
  /** Per data set: each point timed right after the loading pass of its slice (lookup detail). */
  afterLoad?: Partial<Record<DatasetName, { ours_us_p50: number; geokdbush_us_p50: number }>>;
  /** How the LoST part spread its requests, and where both answers found no PSAP (lost detail). */
  lost?: LostInfo;
  /** How the location check part spread its sessions, and where the check's time went (check detail). */
  check?: CheckInfo;
  /** How the location URI part spread its requests (held detail). */
  held?: HeldInfo;
}

/** "all equal to ours", or which data sets had answers that differ (the run then fails too). */
function verdict(
  counts: readonly (readonly [string, number | undefined])[],
  ok = "all equal to ours",
): string {
  const bad = counts.filter(([, n]) => (n ?? 0) > 0);
  return bad.length === 0
    ? ok
    : `**answers differ** (${bad.map(([d, n]) => `${num(n ?? 0, 0)} in ${d}`).join(", ")}: see latest-detail.json)`;
}

/** The runs to take spreads over: the kept runs, plus the latest if it is not among them. */
function runsOf(latest: BenchResults, history: readonly HistoryRun[]): BenchResults[] {
  const runs = history.map((h) => h.results);
  return runs.some((r) => r.machine.date === latest.machine.date) ? runs : [...runs, latest];
}

function lookupTable(latest: BenchResults, runs: BenchResults[]): string {
  const over = (d: DatasetName, pick: (l: LookupRow) => number) =>
    runs.flatMap((r) => r.lookup.filter((l) => l.dataset === d).map(pick));
  const rows = latest.lookup.map((l) => {
    const s = (pick: (x: LookupRow) => number, show?: (v: number) => string) =>
      withSpread(pick(l), over(l.dataset, pick), show);
    return [
      l.dataset,
      num(l.n, 0),
      s((x) => x.ours_us_p50),
      s((x) => x.ours_us_p99),
      s((x) => x.geokdbush_us_p50),
      s((x) => x.brute_us_p50),
      s(
        (x) => x.brute_us_p50 / x.ours_us_p50,
        (v) => `${num(v, 0)}×`,
      ),
      s((x) => x.cold_cpu_us_p50),
      s((x) => x.cold_cpu_us_p99),
      s((x) => x.cold_kv_ms_p50),
      `${num(l.kv_reads_p50, 0)} / ${num(l.kv_reads_p99, 0)}`,
      s((x) => x.index_build_s),
      num(l.index_bytes / 1e6, 1),
      num(l.largest_bucket_bytes / 1e6, 2),
    ];
  });
  return table(
    [
      "data set",
      "PSAPs",
      "ours hot p50 µs",
      "ours hot p99 µs",
      "geokdbush p50 µs",
      "brute p50 µs",
      "vs brute",
      "cold CPU p50 µs",
      "cold CPU p99 µs",
      "cold KV read p50 ms",
      "KV reads p50 / p99",
      "build s",
      "index MB",
      "largest entry MB",
    ],
    rows,
  );
}

function postgisTable(latest: BenchResults, runs: BenchResults[]): string {
  if ("postgis_skipped" in latest) return `Not measured in this run: ${latest.postgis_skipped}.`;
  const over = (d: DatasetName, pick: (p: PostgisRow) => number) =>
    runs.flatMap((r) =>
      postgisRows(r)
        .filter((p) => p.dataset === d)
        .map(pick),
    );
  const oursOf = (d: DatasetName) => latest.lookup.find((l) => l.dataset === d)?.ours_us_p50 ?? Number.NaN;
  const rows = postgisRows(latest).map((p) => {
    const s = (pick: (x: PostgisRow) => number) => withSpread(pick(p), over(p.dataset, pick));
    return [
      p.dataset,
      num(p.n, 0),
      s((x) => x.knn_us_p50),
      s((x) => x.ranked_us_p50),
      s((x) => x.client_us_p50),
      `${num(p.ranked_us_p50 / oursOf(p.dataset), 0)}×`,
      num(p.table_bytes / 1e6, 1),
    ];
  });
  return table(
    [
      "data set",
      "PSAPs",
      "KNN in-server p50 µs",
      "ranking in-server p50 µs",
      "ranking via `pg` p50 µs",
      "ranking vs ours hot",
      "table MB",
    ],
    rows,
  );
}

/** The first timed pass of each slice, right after its loading pass: the latest run's, beside the hot table. */
function afterLoadLines(info: RunInfo): string[] {
  const rows = DATASETS.flatMap((d) => {
    const a = info.afterLoad?.[d];
    return a
      ? [
          `${d} ${auto(a.ours_us_p50)} µs against geokdbush's ${auto(a.geokdbush_us_p50)} µs (${num(a.ours_us_p50 / a.geokdbush_us_p50, 1)}×)`,
        ]
      : [];
  });
  return rows.length === 0
    ? []
    : ["", `Timed right after the loading pass instead (latest run, p50): ${rows.join("; ")}.`];
}

function goalsTable(goals: GoalCheck[], runs: BenchResults[]): string {
  const verdicts = runs.map((r) => new Map(checkGoals(r).map((g) => [g.id, g.met])));
  const rows = goals.map((g) => {
    const seen = verdicts.map((v) => v.get(g.id)).filter((m): m is boolean => typeof m === "boolean");
    const result = g.met === null ? "not measured" : g.met ? "**met**" : "**not met**";
    const spread = seen.length < 2 ? "" : `${seen.filter(Boolean).length} of ${seen.length}`;
    return [g.goal, result, g.figure, spread];
  });
  return table(["goal", "result", "figure (latest run)", "met in kept runs"], rows);
}

/** Where the e2e server kept its state, and the same loops on disk when the main run's was in memory. */
function stateLines(info: RunInfo): string[] {
  if (!info.state) return [];
  const where =
    info.state.medium === "memory"
      ? `in memory (tmpfs, \`${info.state.dir}\`)`
      : `on disk (\`${info.state.dir}\`)`;
  const lines = [
    "",
    `The servers kept their local state (KV, D1, Durable Object storage) ${where}. Locally every Durable Object commit is a SQLite commit synced to that folder's file system, and wrangler wraps each object so that it also writes one whenever it is constructed (on every wake); a deployed worker has neither the wrapper nor a local file system under its objects.`,
  ];
  const d = info.e2eOnDisk;
  if (info.state.medium === "memory" && d) {
    lines.push(
      "",
      `The same loops on a second server whose state is on disk, right after (same plan, same seed): SOS loop p50 ${auto(d.sos_ms_p50)} ms (p99 ${auto(d.sos_ms_p99)} ms), floor p50 ${auto(d.floor_ms_p50)} ms${d.floor_ms_p99 === undefined ? "" : ` (p99 ${auto(d.floor_ms_p99)} ms)`}, durable floor p50 ${auto(d.durable_floor_ms_p50)} ms, trivial GET p50 ${auto(d.trivial_ms_p50)} ms: the loop ${num(d.sos_ms_p50 / d.trivial_ms_p50, 2)}× the GET there; ${num(d.lost_messages, 0)} messages lost.`,
    );
  }
  return lines;
}

/** What every part of the section reads: the latest run, the kept runs it is shown beside, the run's detail. */
interface View {
  latest: BenchResults;
  /** The kept runs counted together with the latest (runsOf). */
  runs: BenchResults[];
  info: RunInfo;
  /** A figure of the latest run with its spread over the kept runs. */
  spread: (pick: (r: BenchResults) => number) => string;
}

/** The section's Markdown, marker line included. */
export function performanceMarkdown(
  latest: BenchResults,
  history: readonly HistoryRun[],
  info: RunInfo = {},
): string {
  // Runs whose servers kept their state elsewhere are timed on another footing: not counted together.
  const medium = info.state?.medium;
  const kept = medium === undefined ? history : history.filter((h) => h.medium === medium);
  const runs = runsOf(latest, kept);
  const spread = (pick: (r: BenchResults) => number) => withSpread(pick(latest), runs.map(pick));
  const view: View = { latest, runs, info, spread };
  return [
    ...headerLines(view, kept),
    "### Goals",
    "",
    goalsTable(checkGoals(latest), runs),
    "",
    ...lookupLines(view),
    ...postgisLines(view),
    ...loopLines(view),
    ...lostLines(latest, runs, info.lost),
    ...heldLines(latest, runs, info.held),
    ...checkLines(latest, runs, info.check),
    ...loadLines(view),
    ...sdkLines(view),
  ].join("\n");
}

/** The marker, the title, how to run the bench, and what the latest run was. */
function headerLines({ latest, runs, info }: View, kept: readonly HistoryRun[]): string[] {
  const medium = info.state?.medium;
  // The latest run counts among the kept ones even when it is not in the history (yet).
  const latestKept = kept.some((h) => h.results.machine.date === latest.machine.date);
  const modes = [...kept.map((h) => h.mode), ...(!latestKept && info.mode ? [info.mode] : [])];
  const count = (m: RunMode) => modes.filter((x) => x === m).length;
  const m = latest.machine;
  const spreadNote =
    runs.length > 1
      ? `A figure with a range in brackets shows its min–max over the ${runs.length} kept runs (${count("quick")} quick, ${count("full")} full: \`bench/results/history\`${medium ? `, those whose servers kept their state ${medium === "memory" ? "in memory" : "on disk"}, as this one's` : ""}); the goals table counts how often each goal was met in them.`
      : "One run is kept so far: rerun `npm run bench` to see each figure's spread over runs.";
  return [
    SECTION_MARKER,
    "## Performance",
    "",
    "_Generated by `npm run bench` from `bench/results/latest.json`: do not edit by hand (`npm run bench -- --readme-only` rewrites this section from the last results)._",
    "",
    "```sh",
    "npm run bench                 # full",
    "npm run bench -- --quick      # every data set and scale (1,000,000 PSAPs, 1,000 sessions), fewer repetitions",
    "npm run bench -- --only postgis   # parts: sdk,lookup,postgis,e2e,lost,held,check,load (others keep the last figures)",
    "# --datasets fcc,synthetic-100k,synthetic-1m   --data DIR (FCC files)   --seed N   --state-dir DIR   --readme-only",
    "```",
    "",
    `Latest run: ${info.mode ?? "?"} mode, ${m.cpus} CPUs, Node ${m.node}, ${m.date}. Every figure is local (Node and \`wrangler dev\` on one machine), on a shared machine whose other work moves the tails. ${spreadNote}`,
    "",
  ];
}

/** Our lookup beside geokdbush and brute force. */
function lookupLines({ latest, runs, info }: View): string[] {
  const points = DATASETS.flatMap((d) => {
    const p = info.points?.[d];
    return p
      ? [
          `${d}: ${num(p.queries, 0)} points (brute force on ${num(p.bruteQueries, 0)} of them, local KV reads on ${num(p.kvSamples, 0)})`,
        ]
      : [];
  });
  return [
    "### PSAP lookup",
    "",
    "Every contender is timed by the same loop (`bench/lookup.ts`, `timeEach`) on the same seeded points (80 % around population, 20 % uniform over the contiguous US), each point timed once. _Hot_: its data already in memory: ours with every bucket the points need in the isolate cache; geokdbush (`around(index, lon, lat, 5)`) with its index built; brute force (`bruteForceLookup`: our exact ranking over everything) with the data set in memory. Ours and geokdbush, each in a worker thread holding only its own data, take turns on slices of at most 100 points (the first of each slice alternates, so both meet the same moments of the machine); each runs the slice once untimed (the loading pass: ours reads and decodes the buckets its points need), times each point once right after that pass, then times each point once more: that second pass is the _hot_ figure, both contenders' data in memory and last touched by lookups alone (a slice's buckets fit the cache together, so no point is timed right after its own load). The first pass is reported beside it: there ours finds its buckets pushed out of the CPU's caches by its own decoding, which geokdbush, whose index was built when its isolate opened, does not meet. _Cold_ (ours): a fresh isolate for each point, the pointer and the bucket read through the store and parsed; _cold CPU_ is the lookup's time less the store's own; _cold KV read_ is the same reads of the same values on `wrangler dev`'s local KV (a bench route reads them; timed from the client, less an identical call that reads nothing). Answers are checked while timed: ours equals brute force record for record (hot and cold), geokdbush's five distances equal a plain great-circle scan's.",
    ...(points.length > 0 ? ["", `Points: ${points.join("; ")}.`] : []),
    ...(info.lookupMismatches
      ? ["", `Checks in this run: ${verdict(Object.entries(info.lookupMismatches), "every answer agreed")}.`]
      : []),
    "",
    lookupTable(latest, runs),
    ...afterLoadLines(info),
    "",
  ];
}

function postgisLines({ latest, runs, info }: View): string[] {
  return [
    "### PostGIS beside us",
    "",
    "A private PostgreSQL 15 with PostGIS from Debian's packages (`initdb` in a temporary folder, a free loopback port, stopped and deleted at the end), loaded with the same PSAPs and areas (tables `psaps`, `areas`, `area_rings`, `area_members`; GiST indexes), queried on the same points. _KNN_: `ORDER BY geog <-> point LIMIT 5` on geography (its five distances checked equal to the plain scan's). _Ranking_: our ranking written in SQL (`bench/postgis/ranking.ts`; answers checked equal to ours). In-server: a PL/pgSQL loop times each query with `clock_timestamp()`; via `pg`: a prepared statement's round trip from Node. Table: `pg_total_relation_size('psaps')`.",
    "",
    postgisTable(latest, runs),
    ...(info.postgis && info.postgis.length > 0
      ? [
          "",
          `Answers checked on ${info.postgis.map((p) => `${num(p.checked, 0)} points (${p.dataset})`).join(", ")}: ${verdict(info.postgis.map((p) => [p.dataset, p.mismatches]))}, PSAPs at exactly the same distance swapping places aside (${info.postgis.map((p) => `${num(p.ties, 0)} ${p.dataset}`).join(", ")}). A fresh connection plus its first query: p50 ${info.postgis.map((p) => `${auto(p.connect_ms_p50)} ms (${p.dataset})`).join(", ")}.`,
        ]
      : []),
    "",
  ];
}

/** The SOS loop beside its floor, the durable floor and a trivial GET. */
function loopLines({ latest, info, spread: eS }: View): string[] {
  const e = latest.e2e;
  return [
    "### SOS loop near its floor",
    "",
    `\`wrangler dev\` on a free loopback port, its own state and secrets (where the state was kept: below), the FCC index in local KV, started with a bench-only entry (\`bench/floor/\`) that serves the real worker unchanged plus a trivial Durable Object under \`/__floor/\`. ${num(e.sessions, 0)} live sessions (a patient and a counselor socket each): a loop is the counselor's \`POST .../sos\`, the location \`POST\`ed when \`location_request\` reaches the patient socket (as the SDK does), until \`psap_results\` has reached both sockets. The _floor_ is the same loop, with the same client work, through the trivial object (2 HTTP round trips, 2 WebSocket pushes) on as many pairs of sockets of its own; every round goes over all sessions in slices that alternate floor, durable floor (below) and SOS at the same rate of loops, so all three meet the same moments of this machine. The trivial GET (\`/.well-known/jwks.json\`, through the real worker) is sent throughout the SOS slices. All three reach the worker with no asset lookup first (\`run_worker_first\`, as every API path in production), and wrangler's local trace collector is off (\`X_LOCAL_OBSERVABILITY=false\`): it records and stores every invocation's spans in the same thread, which a deployed worker does not.`,
    "",
    table(
      [
        "sessions",
        "SOS loop p50 ms",
        "p95 ms",
        "p99 ms",
        "floor p50 ms",
        "floor p99 ms",
        "trivial GET p50 ms",
        "lost messages",
      ],
      [
        [
          num(e.sessions, 0),
          eS((r) => r.e2e.sos_loop_ms_p50),
          eS((r) => r.e2e.sos_loop_ms_p95),
          eS((r) => r.e2e.sos_loop_ms_p99),
          eS((r) => r.e2e.floor_ms_p50),
          eS((r) => r.e2e.floor_ms_p99),
          eS((r) => r.e2e.trivial_rtt_ms_p50),
          num(e.lost_messages, 0),
        ],
      ],
    ),
    ...(info.fixes
      ? [
          "",
          `The first SOS loop with a fix on this server reads the fix's PSAP entry from KV (unless an earlier fix nearby brought the same entry in); the isolate keeps it, so a later loop with the same fix does not. ${
            info.fixes.first_loops > 0
              ? `Of the latest run's concurrent SOS loops, ${num(info.fixes.first_loops, 0)} were the first with their fix (all in the first round): p50 ${auto(info.fixes.first_ms_p50)} ms; the other ${num(info.fixes.later_loops, 0)}: p50 ${auto(info.fixes.later_ms_p50)} ms. The table takes every loop as it came.`
              : "In the latest run every concurrent SOS loop's fix had been used before (by the loops alone): each found its entry cached."
          }`,
        ]
      : []),
    ...(info.durableFloor && info.durableFloor.loops > 0
      ? [
          "",
          `The floor again with one storage write per request, made where the session object makes its own: right after the pushes (the trivial object calls \`storage.kv.put\`; the runtime's output gate then holds the HTTP answer until the write is confirmed, not the messages already sent). In the same slices, on ${num(info.durableFloor.loops, 0)} loops of its own: p50 ${auto(info.durableFloor.ms_p50)} ms, p99 ${auto(info.durableFloor.ms_p99)} ms in the latest run${
            e ? `, against the floor's ${auto(e.floor_ms_p50)} ms and ${auto(e.floor_ms_p99)} ms` : ""
          }.`,
        ]
      : []),
    ...stateLines(info),
    ...(info.solo
      ? [
          "",
          `One loop at a time, nothing else running: SOS loop p50 ${auto(info.solo.sos_ms_p50)} ms, each the first with its fix${info.solo.sos_again_ms_p50 === undefined ? "" : ` (the same sessions again right after, the entry cached: ${auto(info.solo.sos_again_ms_p50)} ms)`}; floor p50 ${auto(info.solo.floor_ms_p50)} ms; trivial GET p50 ${auto(info.solo.trivial_ms_p50)} ms.`,
        ]
      : []),
    "",
  ];
}

function loadLines({ latest, info, spread: eS }: View): string[] {
  const l = latest.load;
  return [
    "### Load",
    "",
    "A `wrangler dev` of its own (so no earlier session is counted): sessions with both sockets open, then an SOS on all of them at once; every expected message counted. Memory: resident set of the `workerd` that runs the worker and its Durable Objects (told from wrangler's proxy `workerd` by its command line), read from `/proc` with every socket open.",
    "",
    table(
      ["sessions", "sockets", "psap_results delivered", "lost messages", "workerd RSS MB"],
      [
        [
          num(l.sessions, 0),
          num(l.sockets, 0),
          num(l.sos_delivered, 0),
          num(l.lost_messages, 0),
          eS((r) => r.load.sessions_workerd_rss_mb),
        ],
      ],
    ),
    ...(info.storm
      ? [
          "",
          `The storm took ${auto(info.storm.seconds)} s. ${num(info.storm.loops_ok, 0)} of ${num(l.sessions, 0)} location posts were answered with their PSAPs (trigger to psap_results p50 ${auto(info.storm.loop_ms_p50)} ms, p99 ${auto(info.storm.loop_ms_p99)} ms: one local workerd serves them all)${
            info.storm.loops_late > 0
              ? `; ${num(info.storm.loops_late, 0)} were answered \`503 psap_lookup_failed\` when their lookup passed its 5 s bound, and their PSAPs reached both sockets later (counted as delivered above).`
              : ". No lookup passed its 5 s bound (one that does answers `503 psap_lookup_failed` at once and still delivers its PSAPs to both sockets if it answers later)."
          }`,
        ]
      : []),
    ...(info.memory
      ? [
          "",
          `That workerd: ${auto(info.memory.idle_mb)} MB idle, ${auto(l.sessions_workerd_rss_mb)} MB with the ${num(l.sessions, 0)} sessions' sockets open (${auto(info.memory.per_session_mb)} MB a session), ${auto(info.memory.peak_mb)} MB at the storm's peak; wrangler's proxy workerd ${auto(info.memory.proxy_mb)} MB beside it.`,
        ]
      : []),
    "",
  ];
}

function sdkLines({ latest }: View): string[] {
  return [
    "### SDK size",
    "",
    table(
      ["module", "minified + gzip bytes"],
      [
        ["`patient.js`", num(latest.sdk.patient_min_gz_bytes, 0)],
        ["`counselor.js`", num(latest.sdk.counselor_min_gz_bytes, 0)],
      ],
    ),
    "",
    "The harness checks itself in `npm test` on a tiny size (`test/node/bench-*.test.ts`).",
    "",
  ];
}

/** Replaces the Performance section (from its marker to the next section marker, or the end). */
export function replacePerformanceSection(readme: string, section: string): string {
  const start = readme.indexOf(SECTION_MARKER);
  if (start < 0) throw new Error(`README has no "${SECTION_MARKER}" marker`);
  const next = readme.indexOf("<!-- section:", start + SECTION_MARKER.length);
  const body = section.endsWith("\n") ? section : `${section}\n`;
  return next < 0 ? readme.slice(0, start) + body : `${readme.slice(0, start) + body}\n${readme.slice(next)}`;
}
