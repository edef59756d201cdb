// `npm run bench [-- --quick] [--data DIR] [--only lookup,e2e,load,sdk] [--seed N]`: every benchmark
// of issue 5 in one run; prints the tables and writes bench/results/latest.json (and a detail file).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { getHeapStatistics } from "node:v8";
import { type BuiltIndex, buildIndex } from "../src/psap/index.ts";
import { benchE2e } from "./e2e.ts";
import { fccFiles, loadFccDataset, psapDataDir, REPO_ROOT } from "./fcc.ts";
import { checkGoals } from "./goals.ts";
import { benchLoad } from "./load.ts";
import { benchLookup, type LookupDetail } from "./lookup.ts";
import { plans } from "./plans.ts";
import { type BenchResults, formatResults, type LookupRow, resultsShapeProblems } from "./results.ts";
import { benchSdkSize } from "./sdk-size.ts";
import { startServer } from "./server.ts";
import { syntheticDataset } from "./synthetic.ts";

const HEAP_MB = 12_000;
const PARTS = ["sdk", "lookup", "e2e", "load"] as const;
type Part = (typeof PARTS)[number];

// The 1,000,000-PSAP index needs more heap than Node's default: run again with a larger one.
if (getHeapStatistics().heap_size_limit < 8_000 * 1024 * 1024 && !process.env.SOS_BENCH_CHILD) {
  const child = spawnSync(
    process.execPath,
    [`--max-old-space-size=${HEAP_MB}`, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: "inherit", env: { ...process.env, SOS_BENCH_CHILD: "1" } },
  );
  process.exit(child.status ?? 1);
}

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    data: { type: "string" },
    only: { type: "string" },
    seed: { type: "string", default: "20261122" },
    datasets: { type: "string", default: "fcc,synthetic-100k,synthetic-1m" },
  },
});
const only = new Set<Part>(
  (values.only ?? PARTS.join(","))
    .split(",")
    .filter((p): p is Part => (PARTS as readonly string[]).includes(p)),
);
const seed = Number(values.seed);
const plan = plans(values.quick === true, seed);
const started = Date.now();
const log = (line: string) =>
  console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);
const resultsDir = join(REPO_ROOT, "bench", "results");
const latestPath = join(resultsDir, "latest.json");

function previous(): Partial<BenchResults> {
  try {
    return existsSync(latestPath)
      ? (JSON.parse(readFileSync(latestPath, "utf8")) as Partial<BenchResults>)
      : {};
  } catch {
    return {};
  }
}

async function main(): Promise<number> {
  const prev = previous();
  const detail: Record<string, unknown> = { mode: values.quick ? "quick" : "full", seed, plan };
  let failures = 0;
  const machine = { cpus: availableParallelism(), node: process.version, date: new Date().toISOString() };

  let sdk = prev.sdk;
  if (only.has("sdk")) {
    log("SDK size");
    const s = await benchSdkSize(log);
    sdk = s.result;
    detail.sdk_source = s.source;
    log(`  sdk: ${JSON.stringify(s.result)} from ${s.source}`);
  }

  const dataDir = psapDataDir(values.data);
  const haveFcc = !("missing" in fccFiles(dataDir));
  let serverIndex: BuiltIndex | undefined;
  let lookup = prev.lookup ?? [];
  if (only.has("lookup")) {
    lookup = [];
    const details: LookupDetail[] = [];
    const sets: [LookupRow["dataset"], () => ReturnType<typeof loadFccDataset>][] = [];
    if (haveFcc) sets.push(["fcc", () => loadFccDataset(dataDir)]);
    else log(`FCC data not found in ${dataDir}: skipped (set PSAP_DATA_DIR or --data)`);
    sets.push(["synthetic-100k", () => syntheticDataset({ n: 100_000, seed })]);
    sets.push(["synthetic-1m", () => syntheticDataset({ n: 1_000_000, seed: seed + 1 })]);
    const wanted = new Set((values.datasets ?? "").split(","));
    for (const [name, load] of sets.filter(([n]) => wanted.has(n))) {
      log(`lookup: ${name}`);
      const dataset = load();
      const p = plan.lookup[name];
      const { row, detail: d } = await benchLookup(dataset, { dataset: name, ...p, seed }, log);
      lookup.push(row);
      details.push(d);
      log(
        `  ${name}: ours ${row.ours_us_p50} µs, geokdbush ${row.geokdbush_us_p50} µs, brute ${row.brute_us_p50} µs, ` +
          `${d.mismatches.length} mismatches`,
      );
      if (d.mismatches.length > 0) {
        failures++;
        for (const m of d.mismatches) log(`  MISMATCH ${m}`);
      }
    }
    detail.lookup = details;
  }

  let e2e = prev.e2e;
  let load = prev.load;
  if (only.has("e2e") || only.has("load")) {
    if (haveFcc) serverIndex = buildIndex(loadFccDataset(dataDir), { version: "bench-fcc" });
    else serverIndex = buildIndex(syntheticDataset({ n: 6_500, seed }), { version: "bench-small" });
    detail.server_index = serverIndex.manifest.data_version;
    // One server for both: the load phase's memory figure then includes the e2e sessions (small).
    log("server: starting wrangler dev");
    const server = await startServer(serverIndex, log);
    try {
      if (only.has("e2e")) {
        log("e2e: SOS loop");
        const r = await benchE2e(server, { ...plan.e2e, seed }, log);
        e2e = r.result;
        detail.e2e = r.detail;
        log(`  e2e: ${JSON.stringify(r.result)}`);
        log(`  e2e detail: ${JSON.stringify(r.detail)}`);
      }
      if (only.has("load")) {
        log("load: SOS storm");
        const r = await benchLoad(server, () => server.workerdPid(), { ...plan.load, seed }, log);
        load = r.result;
        detail.load = r.detail;
        log(`  load: ${JSON.stringify(r.result)}`);
        log(`  load detail: ${JSON.stringify(r.detail)}`);
      }
    } finally {
      await server.stop();
      log("server: wrangler dev stopped");
    }
  }

  mkdirSync(resultsDir, { recursive: true });
  if (!sdk || !e2e || !load) {
    writeFileSync(
      join(resultsDir, "partial-detail.json"),
      `${JSON.stringify({ ...detail, lookup_rows: lookup }, null, 2)}\n`,
    );
    console.error(
      "bench: some parts have no figures yet (run without --only once); wrote partial-detail.json",
    );
    return 1;
  }
  const results: BenchResults = { lookup, e2e, load, sdk, machine };
  const problems = resultsShapeProblems(results);
  if (problems.length > 0) {
    console.error(`bench: results do not have the issue's shape:\n${problems.join("\n")}`);
    failures++;
  }
  writeFileSync(latestPath, `${JSON.stringify(results, null, 2)}\n`);
  const goals = checkGoals(results);
  detail.goals = goals;
  detail.seconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(join(resultsDir, "latest-detail.json"), `${JSON.stringify(detail, null, 2)}\n`);
  console.log(`\n${formatResults(results)}\n`);
  for (const g of goals) console.log(`${g.met ? "met    " : "NOT met"}  ${g.goal}: ${g.figure}`);
  console.log(`\nwrote bench/results/latest.json and latest-detail.json in ${detail.seconds} s`);
  return failures > 0 ? 1 : 0;
}

process.exitCode = await main();
