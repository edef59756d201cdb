// The shape of bench/results/latest.json (issue 5), a checker for it, and the printed table.

export type DatasetName = "fcc" | "synthetic-100k" | "synthetic-1m";

export interface LookupRow {
  dataset: DatasetName;
  n: number;
  ours_us_p50: number;
  ours_us_p99: number;
  geokdbush_us_p50: number;
  brute_us_p50: number;
  kv_reads_p50: number;
  kv_reads_p99: number;
  index_build_s: number;
  index_bytes: number;
}

export interface E2eResult {
  sessions: number;
  sos_loop_ms_p50: number;
  sos_loop_ms_p95: number;
  sos_loop_ms_p99: number;
  trivial_rtt_ms_p50: number;
  lost_messages: number;
}

export interface LoadResult {
  sessions: number;
  sockets: number;
  sos_delivered: number;
  lost_messages: number;
  workerd_rss_mb: number;
}

export interface SdkResult {
  patient_min_gz_bytes: number;
  counselor_min_gz_bytes: number;
}

export interface MachineInfo {
  cpus: number;
  node: string;
  date: string;
}

export interface BenchResults {
  lookup: LookupRow[];
  e2e: E2eResult;
  load: LoadResult;
  sdk: SdkResult;
  machine: MachineInfo;
}

const KEYS = {
  lookup: [
    "dataset",
    "n",
    "ours_us_p50",
    "ours_us_p99",
    "geokdbush_us_p50",
    "brute_us_p50",
    "kv_reads_p50",
    "kv_reads_p99",
    "index_build_s",
    "index_bytes",
  ],
  e2e: [
    "sessions",
    "sos_loop_ms_p50",
    "sos_loop_ms_p95",
    "sos_loop_ms_p99",
    "trivial_rtt_ms_p50",
    "lost_messages",
  ],
  load: ["sessions", "sockets", "sos_delivered", "lost_messages", "workerd_rss_mb"],
  sdk: ["patient_min_gz_bytes", "counselor_min_gz_bytes"],
  machine: ["cpus", "node", "date"],
} as const;

const DATASETS: readonly string[] = ["fcc", "synthetic-100k", "synthetic-1m"];

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
    const text = k === "dataset" || k === "node" || k === "date";
    if (text ? typeof v !== "string" : typeof v !== "number") problems.push(`${where}.${k}: wrong type`);
  }
}

/** Problems with a results object (empty when it has exactly the shape). Nulls are not allowed. */
export function resultsShapeProblems(value: unknown): string[] {
  const problems: string[] = [];
  if (typeof value !== "object" || value === null) return ["not an object"];
  const r = value as Record<string, unknown>;
  sameKeys(r, ["lookup", "e2e", "load", "sdk", "machine"], "results", problems, false);
  if (!Array.isArray(r.lookup)) problems.push("lookup: not an array");
  else
    r.lookup.forEach((row: unknown, i) => {
      sameKeys(row, KEYS.lookup, `lookup[${i}]`, problems);
      const ds = (row as { dataset?: unknown } | null)?.dataset;
      if (typeof ds === "string" && !DATASETS.includes(ds))
        problems.push(`lookup[${i}].dataset: unknown ${ds}`);
    });
  sameKeys(r.e2e, KEYS.e2e, "e2e", problems);
  sameKeys(r.load, KEYS.load, "load", problems);
  sameKeys(r.sdk, KEYS.sdk, "sdk", problems);
  sameKeys(r.machine, KEYS.machine, "machine", problems);
  return problems;
}

function cell(v: number | string): string {
  if (typeof v === "string") return v;
  if (Number.isNaN(v)) return "n/a";
  return Number.isInteger(v) ? v.toLocaleString("en-US") : String(v);
}

function table(head: string[], rows: (number | string)[][]): string {
  const text = [head, ...rows.map((r) => r.map(cell))];
  const widths = head.map((_, i) => Math.max(...text.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...text.slice(1).map(line)].join("\n");
}

function ratio(a: number, b: number): string {
  return Number.isFinite(a) && Number.isFinite(b) && a > 0
    ? `${Math.round(b / a).toLocaleString("en-US")}×`
    : "n/a";
}

/** The figures as Markdown tables (printed by `npm run bench`, pasted into the README). */
export function formatResults(r: BenchResults): string {
  const lookup = table(
    [
      "data set",
      "PSAPs",
      "ours p50 µs",
      "ours p99 µs",
      "geokdbush p50 µs",
      "brute p50 µs",
      "vs brute",
      "KV reads p50/p99",
      "build s",
      "index MB",
    ],
    r.lookup.map((l) => [
      l.dataset,
      l.n,
      l.ours_us_p50,
      l.ours_us_p99,
      l.geokdbush_us_p50,
      l.brute_us_p50,
      ratio(l.ours_us_p50, l.brute_us_p50),
      `${cell(l.kv_reads_p50)}/${cell(l.kv_reads_p99)}`,
      l.index_build_s,
      Math.round(l.index_bytes / 1e5) / 10,
    ]),
  );
  const e = r.e2e;
  const e2e = table(
    ["sessions", "SOS loop p50 ms", "p95 ms", "p99 ms", "trivial request p50 ms", "lost messages"],
    [
      [
        e.sessions,
        e.sos_loop_ms_p50,
        e.sos_loop_ms_p95,
        e.sos_loop_ms_p99,
        e.trivial_rtt_ms_p50,
        e.lost_messages,
      ],
    ],
  );
  const l = r.load;
  const load = table(
    ["sessions", "sockets", "psap_results delivered", "lost messages", "workerd RSS MB"],
    [[l.sessions, l.sockets, l.sos_delivered, l.lost_messages, l.workerd_rss_mb]],
  );
  const sdk = table(
    ["SDK module", "min+gzip bytes"],
    [
      ["patient.js", r.sdk.patient_min_gz_bytes],
      ["counselor.js", r.sdk.counselor_min_gz_bytes],
    ],
  );
  const m = r.machine;
  return [
    `Lookup (hot: bucket in the isolate cache; KV reads: cold lookup, every cache empty)\n${lookup}`,
    `SOS loop against wrangler dev\n${e2e}`,
    `Load: every session with a patient and a counselor socket, SOS on all\n${load}`,
    `SDK size\n${sdk}`,
    `Machine: ${m.cpus} CPUs, Node ${m.node}, ${m.date}`,
  ].join("\n\n");
}
