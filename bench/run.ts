// `npm run bench [-- --quick] [--only accuracy,sdk,lookup,postgis,e2e,load] [--datasets ...] [--data DIR]
// [--seed N] [--state-dir DIR] [--readme-only]`: every benchmark of issue 11 in one run; writes bench/results/latest.json
// (the shape), latest-detail.json (everything else measured), a copy in results/history,
// bench/README.md's Performance section, generated from those figures; `accuracy` writes its own section there and results/accuracy.json.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, constants as osConstants } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { getHeapStatistics } from "node:v8";
import { accuracyMarkdown, benchAccuracy, replaceAccuracySection } from "./accuracy-run.ts";
import { benchE2e } from "./e2e.ts";
import { fccFiles, loadFccDataset, psapDataDir, REPO_ROOT } from "./fcc.ts";
import { checkGoals } from "./goals.ts";
import { loadHistory, type RunMode, saveHistory } from "./history.ts";
import { sampleEntries, timeKvReads } from "./kv-read.ts";
import { benchLoad, memoryOf } from "./load.ts";
import { benchLookup, type KvSample } from "./lookup.ts";
import { buildOurIndex, type PsapDataset } from "./lookup-contenders.ts";
import { plans } from "./plans.ts";
import { benchPostgis } from "./postgis/bench.ts";
import { type PgServer, startPostgres } from "./postgis/server.ts";
import { performanceMarkdown, type RunInfo, replacePerformanceSection } from "./readme.ts";
import {
  type BenchResults,
  DATASETS,
  type DatasetName,
  type LookupRow,
  type PostgisRow,
  resultsShapeProblems,
} from "./results.ts";
import { benchSdkSize } from "./sdk-size.ts";
import { startServer } from "./server.ts";
import { diskStateRoot, type StateRoot, stateRoot } from "./state-dir.ts";
import { queryPoints, syntheticDataset } from "./synthetic.ts";

const PARTS = ["accuracy", "sdk", "lookup", "postgis", "e2e", "load"] as const;
type Part = (typeof PARTS)[number];
const RESULTS_DIR = join(REPO_ROOT, "bench", "results");
const LATEST = join(RESULTS_DIR, "latest.json");
const DETAIL = join(RESULTS_DIR, "latest-detail.json");
const HISTORY = join(RESULTS_DIR, "history");
/** Where the bench writes its generated figures (the front page links there). */
const README = join(REPO_ROOT, "bench", "README.md");

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    data: { type: "string" },
    only: { type: "string" },
    seed: { type: "string", default: "20261122" },
    datasets: { type: "string", default: DATASETS.join(",") },
    "readme-only": { type: "boolean", default: false },
    "state-dir": { type: "string" },
  },
});

function readJson<T>(path: string): T | undefined {
  try {
    return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as T) : undefined;
  } catch {
    return undefined;
  }
}

interface RunDetail {
  info?: RunInfo;
  lookup?: { dataset: DatasetName; mismatches: string[] }[];
  postgis?: { dataset: string; mismatches: string[] }[];
}

/** The README's run info from a detail file, mismatch counts taken from the parts' own details. */
function infoOf(detail: RunDetail | undefined): RunInfo {
  const info: RunInfo = { ...detail?.info };
  if (detail?.lookup)
    info.lookupMismatches = Object.fromEntries(detail.lookup.map((l) => [l.dataset, l.mismatches.length]));
  if (info.postgis && detail?.postgis) {
    const byDataset = new Map(detail.postgis.map((p) => [p.dataset, p.mismatches.length]));
    info.postgis = info.postgis.map((p) => ({ ...p, mismatches: byDataset.get(p.dataset) ?? p.mismatches }));
  }
  return info;
}

/** Rewrites bench/README.md's Performance section from latest.json, the kept runs and the detail file. */
function writeReadme(results: BenchResults, info: RunInfo): void {
  const readme = readFileSync(README, "utf8");
  writeFileSync(
    README,
    replacePerformanceSection(readme, performanceMarkdown(results, loadHistory(HISTORY), info)),
  );
}

if (values["readme-only"]) {
  const latest = readJson<unknown>(LATEST);
  const problems = latest === undefined ? ["no bench/results/latest.json"] : resultsShapeProblems(latest);
  if (problems.length > 0) {
    console.error(`bench: cannot regenerate bench/README.md:\n${problems.join("\n")}`);
    process.exit(1);
  }
  writeReadme(latest as BenchResults, infoOf(readJson<RunDetail>(DETAIL)));
  console.log("bench: bench/README.md Performance section regenerated from bench/results/latest.json");
  process.exit(0);
}

const only = new Set<Part>(
  (values.only ?? PARTS.join(","))
    .split(",")
    .filter((p): p is Part => (PARTS as readonly string[]).includes(p)),
);
const wanted = new Set((values.datasets ?? "").split(","));
const seed = Number(values.seed);
const mode: RunMode = values.quick ? "quick" : "full";
const plan = plans(mode);
const started = Date.now();
const log = (line: string) =>
  console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);

async function main(): Promise<number> {
  const prev =
    readJson<Partial<BenchResults> & { postgis?: PostgisRow[]; postgis_skipped?: string }>(LATEST) ?? {};
  const detail: Record<string, unknown> = { mode, seed, plan };
  // What the README says beyond latest.json: this run's, over the last run's for the parts not rerun.
  const prevInfo = readJson<{ info?: RunInfo }>(DETAIL)?.info ?? {};
  const info: RunInfo = {
    ...prevInfo,
    mode,
    e2eSessions: plan.e2e.sessions,
    loadSessions: plan.load.sessions,
    points: { ...prevInfo.points },
    ...(only.has("postgis") ? { postgis: [] } : {}),
    ...(only.has("lookup") ? { lookupMismatches: {}, afterLoad: {} } : {}),
  };
  let failures = 0;
  const machine = { cpus: availableParallelism(), node: process.version, date: new Date().toISOString() };
  let state: StateRoot;
  try {
    state = stateRoot(values["state-dir"]);
  } catch (error) {
    console.error(`bench: ${(error as Error).message}`);
    return 2;
  }
  if (only.has("lookup") || only.has("e2e") || only.has("load")) {
    info.state = { medium: state.medium, dir: state.dir };
    log(
      `servers keep their local state in ${state.dir} (${state.medium === "memory" ? "tmpfs, in memory" : "on disk"})`,
    );
  }

  if (only.has("accuracy")) {
    log("accuracy against real places (bench/truth/)");
    const dir = psapDataDir(values.data);
    if ("missing" in fccFiles(dir)) {
      log(`  accuracy: ${dir} has no full-resolution data: skipped (set PSAP_DATA_DIR or --data)`);
    } else {
      const bench = await benchAccuracy(REPO_ROOT, dir, log);
      mkdirSync(RESULTS_DIR, { recursive: true });
      writeFileSync(join(RESULTS_DIR, "accuracy.json"), `${JSON.stringify(bench, null, 2)}\n`);
      const markdown = accuracyMarkdown(bench, machine.date.slice(0, 16).replace("T", " "));
      replaceAccuracySection(README, markdown);
      console.log(`\n${markdown}`);
    }
    // Accuracy alone is a complete run of its own: nothing else to write.
    if (only.size === 1) return 0;
  }

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
  const sets: [DatasetName, () => PsapDataset | Promise<PsapDataset>][] = [];
  if (haveFcc) sets.push(["fcc", () => loadFccDataset(dataDir)]);
  else log(`FCC data not found in ${dataDir}: skipped (set PSAP_DATA_DIR or --data)`);
  sets.push(["synthetic-100k", () => syntheticDataset({ n: 100_000, seed })]);
  sets.push(["synthetic-1m", () => syntheticDataset({ n: 1_000_000, seed: seed + 1 })]);

  let lookup: LookupRow[] = prev.lookup ?? [];
  let postgis: { rows: PostgisRow[] } | { skipped: string } | undefined = prev.postgis
    ? { rows: prev.postgis }
    : prev.postgis_skipped
      ? { skipped: prev.postgis_skipped }
      : undefined;
  const kvSamples: KvSample[] = [];
  if (only.has("lookup") || only.has("postgis")) {
    const lookupDetails: unknown[] = [];
    const postgisDetails: unknown[] = [];
    const newLookup: LookupRow[] = [];
    const newPostgis: PostgisRow[] = [];
    let pg: PgServer | undefined;
    let pgSkipped: string | undefined;
    if (only.has("postgis")) {
      log("postgis: starting PostgreSQL");
      const s = await startPostgres(log);
      if ("skipped" in s) pgSkipped = s.skipped;
      else pg = s.server;
    }
    try {
      for (const [name, load] of sets.filter(([n]) => wanted.has(n))) {
        log(`data set ${name}`);
        const dataset = await load();
        const p = plan.lookup[name];
        info.points = { ...info.points, [name]: p };
        let points = queryPoints(p.queries, seed);
        if (only.has("lookup")) {
          const r = await benchLookup(dataset, { dataset: name, ...p, seed }, log);
          points = r.points;
          newLookup.push(r.row);
          lookupDetails.push(r.detail);
          info.lookupMismatches = { ...info.lookupMismatches, [name]: r.detail.mismatches.length };
          info.afterLoad = {
            ...info.afterLoad,
            [name]: {
              ours_us_p50: r.detail.ours_after_load_us_p50,
              geokdbush_us_p50: r.detail.geokdbush_after_load_us_p50,
            },
          };
          kvSamples.push(r.kv);
          log(
            `  lookup ${name}: hot ${r.row.ours_us_p50} µs, geokdbush ${r.row.geokdbush_us_p50} µs, brute ${r.row.brute_us_p50} µs, ` +
              `cold CPU p99 ${r.row.cold_cpu_us_p99} µs, ${r.detail.mismatches.length} mismatches`,
          );
          if (r.detail.mismatches.length > 0) {
            failures++;
            for (const m of r.detail.mismatches) log(`  MISMATCH ${m}`);
          }
        }
        if (pg) {
          const r = await benchPostgis(
            pg,
            dataset,
            points,
            { dataset: name, checkQueries: p.bruteQueries, connections: plan.postgis.connections, seed },
            log,
          );
          newPostgis.push(r.row);
          postgisDetails.push(r.detail);
          info.postgis = [
            ...(info.postgis ?? []),
            {
              dataset: name,
              checked: r.detail.checked,
              ties: r.detail.ranked_ties,
              mismatches: r.detail.mismatches.length,
              connect_ms_p50: r.detail.connect_first_query_ms_p50,
            },
          ];
          log(`  postgis ${name}: ${JSON.stringify(r.row)}, ${r.detail.mismatches.length} mismatches`);
          if (r.detail.mismatches.length > 0) {
            failures++;
            for (const m of r.detail.mismatches) log(`  MISMATCH ${m}`);
          }
        }
        (globalThis as { gc?: () => void }).gc?.();
      }
    } finally {
      await pg?.stop();
      if (pg) log("postgis: PostgreSQL stopped and deleted");
    }
    if (only.has("lookup")) {
      lookup = newLookup;
      detail.lookup = lookupDetails;
    }
    if (only.has("postgis")) {
      postgis = pgSkipped ? { skipped: pgSkipped } : { rows: newPostgis };
      detail.postgis = postgisDetails;
    }
  }

  let e2e = prev.e2e;
  let load = prev.load;
  const needServer = only.has("lookup") || only.has("e2e") || only.has("load");
  const serving = needServer
    ? haveFcc
      ? await loadFccDataset(dataDir)
      : syntheticDataset({ n: 6_500, seed })
    : undefined;
  const index = serving ? buildOurIndex(serving, haveFcc ? "bench-fcc" : "bench-small") : undefined;
  detail.server_index = haveFcc ? "fcc" : "synthetic 6,500";
  if (index && (only.has("lookup") || only.has("e2e"))) {
    log("server: starting wrangler dev (the real worker and the floor, bench/floor)");
    const server = await startServer({
      kv: [...index.entries, ...sampleEntries(kvSamples)],
      log,
      stateDir: state.dir,
    });
    try {
      if (only.has("lookup")) {
        const kvDetails: unknown[] = [];
        for (const sample of kvSamples) {
          const r = await timeKvReads(server.baseUrl, sample);
          const row = lookup.find((l) => l.dataset === sample.dataset);
          if (row) row.cold_kv_ms_p50 = r.p50;
          kvDetails.push(r.detail);
          log(`  kv ${sample.dataset}: cold reads p50 ${r.p50} ms on local KV`);
        }
        detail.kv_reads = kvDetails;
      }
      if (only.has("e2e")) {
        log("e2e: SOS loop and its floor");
        const r = await benchE2e(server, { ...plan.e2e, seed }, log);
        e2e = r.result;
        detail.e2e = r.detail;
        info.solo = {
          sos_ms_p50: r.detail.solo_ms_p50,
          sos_again_ms_p50: r.detail.solo_again_ms_p50,
          floor_ms_p50: r.detail.solo_floor_ms_p50,
          trivial_ms_p50: r.detail.idle_trivial_rtt_ms_p50,
        };
        info.durableFloor = {
          loops: r.detail.durable_floor_loops,
          ms_p50: r.detail.durable_floor_ms_p50,
          ms_p99: r.detail.durable_floor_ms_p99,
        };
        info.fixes = {
          first_loops: r.detail.first_fix_loops,
          first_ms_p50: r.detail.first_fix_ms_p50,
          later_loops: r.detail.later_fix_loops,
          later_ms_p50: r.detail.later_fix_ms_p50,
        };
        log(`  e2e: ${JSON.stringify(r.result)}`);
      }
    } finally {
      await server.stop();
      log("server: wrangler dev stopped");
    }
    const disk = only.has("e2e") && state.medium === "memory" ? diskStateRoot() : null;
    if (only.has("e2e")) info.e2eOnDisk = undefined;
    if (disk) {
      // The same loops again, on a server whose state is on disk: what the local commits' syncs cost.
      log(`e2e again with the server's state on disk (${disk.dir})`);
      mkdirSync(disk.dir, { recursive: true });
      const onDisk = await startServer({ kv: index.entries, log, stateDir: disk.dir });
      try {
        const r = await benchE2e(onDisk, { ...plan.e2e, seed }, log);
        detail.e2e_on_disk = { result: r.result, detail: r.detail };
        info.e2eOnDisk = {
          sos_ms_p50: r.result.sos_loop_ms_p50,
          sos_ms_p99: r.result.sos_loop_ms_p99,
          floor_ms_p50: r.result.floor_ms_p50,
          floor_ms_p99: r.result.floor_ms_p99,
          durable_floor_ms_p50: r.detail.durable_floor_ms_p50,
          trivial_ms_p50: r.result.trivial_rtt_ms_p50,
          lost_messages:
            r.result.lost_messages + r.detail.floor_lost_messages + r.detail.durable_floor_lost_messages,
        };
        log(`  e2e on disk: ${JSON.stringify(r.result)}`);
      } finally {
        await onDisk.stop();
        log("server: wrangler dev (state on disk) stopped");
      }
    } else if (only.has("e2e") && state.medium === "memory") {
      log("e2e: no folder on disk for the comparison run (neither the temporary folder nor the repository)");
    }
  }
  if (index && only.has("load")) {
    // A server of its own: its idle memory is a fresh runtime's, and no earlier session is counted.
    log("server: starting a fresh wrangler dev for the load");
    const server = await startServer({ kv: index.entries, log, stateDir: state.dir });
    try {
      const pids = await server.workerds();
      const idle = await memoryOf(pids);
      log(
        `load: SOS storm (workerd runtime ${pids.runtime}, proxy ${pids.proxy}; idle ${idle.runtime_mb} MB)`,
      );
      const r = await benchLoad(server, pids, idle, { ...plan.load, seed }, log);
      load = r.result;
      detail.load = r.detail;
      info.memory = {
        idle_mb: idle.runtime_mb,
        per_session_mb: r.detail.runtime_mb_per_session,
        peak_mb: r.detail.storm_peak.runtime_mb,
        proxy_mb: r.detail.with_sessions.proxy_mb,
      };
      info.storm = {
        seconds: r.detail.storm_s,
        loops_ok: r.detail.loops_ok,
        loops_late: r.detail.loops_late,
        loop_ms_p50: r.detail.loop_ms_p50,
        loop_ms_p99: r.detail.loop_ms_p99,
      };
      log(`  load: ${JSON.stringify(r.result)}, ${r.detail.runtime_mb_per_session} MB a session`);
    } finally {
      await server.stop();
      log("server: wrangler dev stopped");
    }
  }

  mkdirSync(RESULTS_DIR, { recursive: true });
  detail.info = info;
  detail.seconds = Math.round((Date.now() - started) / 1000);
  if (!sdk || !e2e || !load || !postgis) {
    writeFileSync(
      join(RESULTS_DIR, "partial-detail.json"),
      `${JSON.stringify({ ...detail, lookup_rows: lookup }, null, 2)}\n`,
    );
    console.error(
      "bench: some parts have no figures yet (run without --only once); wrote partial-detail.json",
    );
    return 1;
  }
  const results: BenchResults =
    "rows" in postgis
      ? { lookup, postgis: postgis.rows, e2e, load, sdk, machine }
      : { lookup, postgis_skipped: postgis.skipped, e2e, load, sdk, machine };
  const problems = resultsShapeProblems(results);
  writeFileSync(LATEST, `${JSON.stringify(results, null, 2)}\n`);
  const goals = checkGoals(results);
  detail.goals = goals;
  writeFileSync(DETAIL, `${JSON.stringify(detail, null, 2)}\n`);
  if (problems.length > 0) {
    console.error(
      `bench: results do not have the issue's shape (bench/README.md left as it was):\n${problems.join("\n")}`,
    );
    return 1;
  }
  // Only a complete run joins the history: a partial one mixes its figures with older ones.
  const complete = values.only === undefined && DATASETS.every((d) => wanted.has(d)) && haveFcc;
  if (complete) saveHistory(HISTORY, results, mode, info.state?.medium);
  writeReadme(results, info);
  console.log(`\n${performanceMarkdown(results, loadHistory(HISTORY), info)}`);
  for (const g of goals)
    console.log(`${g.met === null ? "n/a    " : g.met ? "met    " : "NOT met"}  ${g.goal}: ${g.figure}`);
  console.log(
    `\nwrote bench/results/latest.json, latest-detail.json${complete ? ", a history entry" : ""} and bench/README.md's Performance section in ${detail.seconds} s`,
  );
  return failures > 0 ? 1 : 0;
}

// The 1,000,000-PSAP data set and index need more heap than Node's default, and passes collect
// garbage between them (--expose-gc): run again with both.
if (getHeapStatistics().heap_size_limit < 8_000 * 1024 * 1024 || typeof globalThis.gc !== "function") {
  const child = spawn(
    process.execPath,
    ["--max-old-space-size=12000", "--expose-gc", fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: "inherit" },
  );
  // A signal for this process is one for the run: pass it on, so the child stops what it started.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) =>
    process.exit(code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1)),
  );
} else {
  process.exitCode = await main();
}
