// The shape of bench/results/latest.json (issue 11) and a checker for it.

export type DatasetName = "fcc" | "synthetic-100k" | "synthetic-1m";
export const DATASETS: readonly DatasetName[] = ["fcc", "synthetic-100k", "synthetic-1m"];

export interface LookupRow {
  dataset: DatasetName;
  n: number;
  /** Hot (every bucket the points need cached), each point once. */
  ours_us_p50: number;
  ours_us_p99: number;
  geokdbush_us_p50: number;
  brute_us_p50: number;
  /** Cold (a fresh isolate): CPU time, the store's own time taken out. */
  cold_cpu_us_p50: number;
  cold_cpu_us_p99: number;
  /** The same cold reads on wrangler dev's local KV. */
  cold_kv_ms_p50: number;
  kv_reads_p50: number;
  kv_reads_p99: number;
  index_build_s: number;
  index_bytes: number;
  largest_bucket_bytes: number;
}

export interface PostgisRow {
  dataset: DatasetName;
  n: number;
  /** Geography KNN, 5 nearest, timed inside the server. */
  knn_us_p50: number;
  /** Our ranking written in SQL, timed inside the server. */
  ranked_us_p50: number;
  /** The ranking in SQL through a Node client (`pg`, prepared statement): what a backend pays. */
  client_us_p50: number;
  table_bytes: number;
}

export interface E2eResult {
  sessions: number;
  sos_loop_ms_p50: number;
  sos_loop_ms_p95: number;
  sos_loop_ms_p99: number;
  floor_ms_p50: number;
  floor_ms_p99: number;
  trivial_rtt_ms_p50: number;
  lost_messages: number;
}

export interface LoadResult {
  sessions: number;
  sockets: number;
  sos_delivered: number;
  lost_messages: number;
  /** Resident memory of the workerd that runs the Durable Objects, with every session's sockets open. */
  sessions_workerd_rss_mb: number;
}

export interface SdkResult {
  patient_min_gz_bytes: number;
  counselor_min_gz_bytes: number;
}

/**
 * LoST (issue 31) beside the session API, on the same server and points (bench/lost.ts): each point's
 * `POST /lost` and the patient's `POST .../sos/location`, timed from the client with their answers read.
 */
export interface LostResult {
  /** Points whose two requests were both answered and timed. */
  points: number;
  lost_ms_p50: number;
  lost_ms_p95: number;
  lost_ms_p99: number;
  session_ms_p50: number;
  session_ms_p95: number;
  session_ms_p99: number;
  /** Points whose LoST displayName was the session answer's first PSAP (or both found none). */
  agreed: number;
  disagreements: number;
  /** Points where either request was not answered 200: neither is timed. */
  failed: number;
}

/**
 * Location URIs (issue 37) on the same server and fixes (bench/held.ts): each fix's dereference (`POST
 * /held/{token}`, a HELD locationRequest) beside a session read (`GET .../sessions/{id}`) and beside LoST's
 * answer (`POST /lost`), timed from the client with their answers read.
 */
export interface HeldResult {
  /** Points whose three requests were all answered and timed. */
  points: number;
  deref_ms_p50: number;
  deref_ms_p95: number;
  deref_ms_p99: number;
  read_ms_p50: number;
  read_ms_p95: number;
  read_ms_p99: number;
  lost_ms_p50: number;
  lost_ms_p95: number;
  lost_ms_p99: number;
  /** Timed dereferences that gave the fix back. */
  located: number;
  /** Points where a request was not answered 200 or the fix did not come back. */
  failed: number;
}

/**
 * The location check (issue 30) beside the SOS loop, on the same server and fixes (bench/check.ts): from
 * the patient socket's opening to the counselor's `location_check`, and from the counselor's trigger to
 * the counselor's `psap_results`, each timed from the client.
 */
export interface CheckResult {
  /** Fixes whose check and SOS loop both reached the counselor with a PSAP: the timed pairs. */
  fixes: number;
  /** Fixes in flight at once. */
  concurrency: number;
  check_ms_p50: number;
  check_ms_p95: number;
  check_ms_p99: number;
  sos_ms_p50: number;
  sos_ms_p95: number;
  sos_ms_p99: number;
  /** Checks that reached the counselor socket, and checks asked for that never did. */
  checks_arrived: number;
  checks_lost: number;
  /** Timed fixes whose check named the SOS loop's first PSAP. */
  agreed: number;
  disagreements: number;
  /** Fixes where something else failed (a refused socket or request, an SOS loop with no answer). */
  failed: number;
}

export interface MachineInfo {
  cpus: number;
  node: string;
  date: string;
}

interface CommonResults {
  lookup: LookupRow[];
  e2e: E2eResult;
  load: LoadResult;
  sdk: SdkResult;
  machine: MachineInfo;
  /** Absent from runs made before the LoST part existed, and until it has run once. */
  lost?: LostResult;
  /** Absent from runs made before the location check part existed, and until it has run once. */
  check?: CheckResult;
  /** Absent from runs made before the location URI part existed, and until it has run once. */
  held?: HeldResult;
}

export type BenchResults = CommonResults & ({ postgis: PostgisRow[] } | { postgis_skipped: string });

export function postgisRows(r: BenchResults): PostgisRow[] {
  return "postgis" in r ? r.postgis : [];
}

const KEYS = {
  lookup: [
    "dataset",
    "n",
    "ours_us_p50",
    "ours_us_p99",
    "geokdbush_us_p50",
    "brute_us_p50",
    "cold_cpu_us_p50",
    "cold_cpu_us_p99",
    "cold_kv_ms_p50",
    "kv_reads_p50",
    "kv_reads_p99",
    "index_build_s",
    "index_bytes",
    "largest_bucket_bytes",
  ],
  postgis: ["dataset", "n", "knn_us_p50", "ranked_us_p50", "client_us_p50", "table_bytes"],
  e2e: [
    "sessions",
    "sos_loop_ms_p50",
    "sos_loop_ms_p95",
    "sos_loop_ms_p99",
    "floor_ms_p50",
    "floor_ms_p99",
    "trivial_rtt_ms_p50",
    "lost_messages",
  ],
  load: ["sessions", "sockets", "sos_delivered", "lost_messages", "sessions_workerd_rss_mb"],
  sdk: ["patient_min_gz_bytes", "counselor_min_gz_bytes"],
  lost: [
    "points",
    "lost_ms_p50",
    "lost_ms_p95",
    "lost_ms_p99",
    "session_ms_p50",
    "session_ms_p95",
    "session_ms_p99",
    "agreed",
    "disagreements",
    "failed",
  ],
  check: [
    "fixes",
    "concurrency",
    "check_ms_p50",
    "check_ms_p95",
    "check_ms_p99",
    "sos_ms_p50",
    "sos_ms_p95",
    "sos_ms_p99",
    "checks_arrived",
    "checks_lost",
    "agreed",
    "disagreements",
    "failed",
  ],
  held: [
    "points",
    "deref_ms_p50",
    "deref_ms_p95",
    "deref_ms_p99",
    "read_ms_p50",
    "read_ms_p95",
    "read_ms_p99",
    "lost_ms_p50",
    "lost_ms_p95",
    "lost_ms_p99",
    "located",
    "failed",
  ],
  machine: ["cpus", "node", "date"],
} as const;

const TEXT_KEYS = new Set(["dataset", "node", "date"]);

function sameKeys(
  value: unknown,
  keys: readonly string[],
  where: string,
  problems: string[],
  typed = true,
): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problems.push(`${where}: not an object`);
    return;
  }
  const have = Object.keys(value);
  for (const k of keys) if (!have.includes(k)) problems.push(`${where}.${k}: missing`);
  for (const k of have) if (!keys.includes(k)) problems.push(`${where}.${k}: not in the issue's shape`);
  if (!typed) return;
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    // A number must be a measured one: JSON turns NaN into null, which fails here.
    if (TEXT_KEYS.has(k) ? typeof v !== "string" : typeof v !== "number" || !Number.isFinite(v))
      problems.push(`${where}.${k}: wrong type`);
  }
}

function rows(value: unknown, keys: readonly string[], name: string, problems: string[]): void {
  if (!Array.isArray(value)) {
    problems.push(`${name}: not an array`);
    return;
  }
  const seen = new Set<string>();
  value.forEach((row: unknown, i) => {
    sameKeys(row, keys, `${name}[${i}]`, problems);
    const ds = (row as { dataset?: unknown } | null)?.dataset;
    if (typeof ds !== "string") return;
    if (!(DATASETS as readonly string[]).includes(ds)) problems.push(`${name}[${i}].dataset: unknown ${ds}`);
    if (seen.has(ds)) problems.push(`${name}[${i}].dataset: ${ds} twice`);
    seen.add(ds);
  });
}

/** Problems with a results object (empty when it has exactly the shape). */
export function resultsShapeProblems(value: unknown): string[] {
  const problems: string[] = [];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return ["not an object"];
  const r = value as Record<string, unknown>;
  const hasPostgis = "postgis" in r;
  const hasSkipped = "postgis_skipped" in r;
  const top = [
    "lookup",
    "e2e",
    "load",
    "sdk",
    "machine",
    hasSkipped && !hasPostgis ? "postgis_skipped" : "postgis",
    ...("lost" in r ? ["lost"] : []),
    ...("check" in r ? ["check"] : []),
    ...("held" in r ? ["held"] : []),
  ];
  sameKeys(r, top, "results", problems, false);
  if (hasPostgis && hasSkipped) problems.push("results: postgis and postgis_skipped both present");
  rows(r.lookup, KEYS.lookup, "lookup", problems);
  if (hasPostgis) rows(r.postgis, KEYS.postgis, "postgis", problems);
  if (hasSkipped && !hasPostgis && (typeof r.postgis_skipped !== "string" || r.postgis_skipped === ""))
    problems.push("results.postgis_skipped: not a reason");
  sameKeys(r.e2e, KEYS.e2e, "e2e", problems);
  sameKeys(r.load, KEYS.load, "load", problems);
  sameKeys(r.sdk, KEYS.sdk, "sdk", problems);
  if ("lost" in r) sameKeys(r.lost, KEYS.lost, "lost", problems);
  if ("check" in r) sameKeys(r.check, KEYS.check, "check", problems);
  if ("held" in r) sameKeys(r.held, KEYS.held, "held", problems);
  sameKeys(r.machine, KEYS.machine, "machine", problems);
  return problems;
}
