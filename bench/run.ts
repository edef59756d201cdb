// `npm run bench [-- --quick] [--only accuracy,sdk,lookup,postgis,e2e,lost,held,check,load] [--datasets ...] [--data DIR]
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
import { benchCheck } from "./check.ts";
import { benchE2e } from "./e2e.ts";
import { fccFiles, loadFccDataset, psapDataDir, REPO_ROOT } from "./fcc.ts";
import { checkGoals } from "./goals.ts";
import { benchHeld } from "./held.ts";
import { loadHistory, type RunMode, saveHistory } from "./history.ts";
import { sampleEntries, timeKvReads } from "./kv-read.ts";
import { benchLoad, memoryOf } from "./load.ts";
import { benchLookup, type KvSample } from "./lookup.ts";
import { buildOurIndex, type OurIndex, type PsapDataset } from "./lookup-contenders.ts";
import { benchLost } from "./lost.ts";
import { plans } from "./plans.ts";
import { benchPostgis } from "./postgis/bench.ts";
import { type PgServer, startPostgres } from "./postgis/server.ts";
import { performanceMarkdown, type RunInfo, replacePerformanceSection } from "./readme.ts";
import {
  type BenchResults,
  type CheckResult,
  DATASETS,
  type DatasetName,
  type E2eResult,
  type HeldResult,
  type LoadResult,
  type LookupRow,
  type LostResult,
  type MachineInfo,
  type PostgisRow,
  resultsShapeProblems,
  type SdkResult,
} from "./results.ts";
import { benchSdkSize } from "./sdk-size.ts";
import { type BenchServer, startServer } from "./server.ts";
import { diskStateRoot, type StateRoot, stateRoot } from "./state-dir.ts";
import { queryPoints, syntheticDataset } from "./synthetic.ts";

const PARTS = ["accuracy", "sdk", "lookup", "postgis", "e2e", "lost", "held", "check", "load"] as const;
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

/** latest.json as the last run wrote it: its figures stand for the parts this run does not redo. */
type PreviousResults = Partial<BenchResults> & { postgis?: PostgisRow[]; postgis_skipped?: string };

/** PostGIS's figures, or why there are none. */
type PostgisOutcome = { rows: PostgisRow[] } | { skipped: string };

/** One run: what it found so far, and where it writes it. */
interface Run {
  prev: PreviousResults;
  /** Everything measured beyond latest.json: written to latest-detail.json. */
  detail: Record<string, unknown>;
  /** What the README says beyond latest.json: this run's, over the last run's for the parts not rerun. */
  info: RunInfo;
  machine: MachineInfo;
  state: StateRoot;
  dataDir: string;
  haveFcc: boolean;
  /** Parts whose contenders gave different answers: each fails the run. */
  failures: number;
}

/** The figures of a whole run (each part's, or the last run's where this one did not redo it). */
interface Figures {
  sdk: SdkResult | undefined;
  lookup: LookupRow[];
  postgis: PostgisOutcome | undefined;
  e2e: E2eResult | undefined;
  load: LoadResult | undefined;
  /** Optional in latest.json: runs from before the LoST part have none. */
  lost: LostResult | undefined;
  /** Optional in latest.json: runs from before the location check part have none. */
  check: CheckResult | undefined;
  /** Optional in latest.json: runs from before the location URI part have none. */
  held: HeldResult | undefined;
}

async function main(): Promise<number> {
  const run = openRun();
  if (typeof run === "number") return run;
  if (only.has("accuracy")) {
    // Accuracy alone is a complete run of its own: nothing else to write.
    if (only.size === 1) {
      await benchAccuracyPart(run);
      return 0;
    }
    if ((await accuracyInItsOwnProcess(run)) !== 0) run.failures++;
  }
  const sdk = only.has("sdk") ? await benchSdkPart(run) : run.prev.sdk;
  const { lookup, postgis, kvSamples } = await benchLookupParts(run);
  const { e2e, load, lost, check, held } = run.prev;
  const figures: Figures = { sdk, lookup, postgis, e2e, load, lost, check, held };
  const serving = serverParts().length > 0 ? await servedDataset(run) : undefined;
  const index = serving ? buildOurIndex(serving, run.haveFcc ? "bench-fcc" : "bench-small") : undefined;
  run.detail.server_index = run.haveFcc ? "fcc" : "synthetic 6,500";
  if (index && (["lookup", "e2e", "lost", "held", "check"] as const).some((p) => only.has(p))) {
    const measured = await benchOnServer(run, index, figures.lookup, kvSamples);
    figures.e2e = measured.e2e ?? figures.e2e;
    figures.lost = measured.lost ?? figures.lost;
    figures.held = measured.held ?? figures.held;
    figures.check = measured.check ?? figures.check;
    if (only.has("e2e")) await benchE2eOnDisk(run, index);
  }
  if (index && only.has("load")) figures.load = await benchLoadPart(run, index);
  return writeResults(run, figures);
}

/** The parts of this run that time a wrangler dev. */
function serverParts(): Part[] {
  return (["lookup", "e2e", "lost", "held", "check", "load"] as const).filter((p) => only.has(p));
}

/** The run's context, or the exit code when its state folder cannot be used. */
function openRun(): Run | number {
  const prev = readJson<PreviousResults>(LATEST) ?? {};
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
  const machine = { cpus: availableParallelism(), node: process.version, date: new Date().toISOString() };
  let state: StateRoot;
  try {
    state = stateRoot(values["state-dir"]);
  } catch (error) {
    console.error(`bench: ${(error as Error).message}`);
    return 2;
  }
  if (serverParts().length > 0) {
    info.state = { medium: state.medium, dir: state.dir };
    log(
      `servers keep their local state in ${state.dir} (${state.medium === "memory" ? "tmpfs, in memory" : "on disk"})`,
    );
  }
  const dataDir = psapDataDir(values.data);
  const haveFcc = !("missing" in fccFiles(dataDir));
  return { prev, detail: { mode, seed, plan }, info, machine, state, dataDir, haveFcc, failures: 0 };
}

/**
 * Runs this script again in a child process with `nodeArgs` and `args`, its output inherited; a signal for
 * this process is passed on to it, so that it stops what it started. Resolves with its exit code, or the
 * shell's 128 + n for a child stopped by signal n.
 */
function runAgain(nodeArgs: readonly string[], args: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, [...nodeArgs, fileURLToPath(import.meta.url), ...args], {
    stdio: "inherit",
  });
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const passOn = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of signals) process.on(signal, passOn);
  return new Promise((resolve) => {
    const done = (code: number) => {
      for (const signal of signals) process.off(signal, passOn);
      resolve(code);
    };
    child.on("error", (error) => {
      console.error(`bench: could not start a child process: ${error.message}`);
      done(1);
    });
    child.on("exit", (code, signal) => done(code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1)));
  });
}

/**
 * The accuracy part in a process of its own, as `--only accuracy` runs it: it imports the full data
 * several times over, and a process that did so timed the lookups that follow far more slowly, ours much
 * more than geokdbush (bench/README.md, the notes): a figure of the bench's own heap, not of either lookup.
 * A child stopped by a signal stops the run too.
 */
async function accuracyInItsOwnProcess(run: Run): Promise<number> {
  const code = await runAgain(process.execArgv, [
    "--only",
    "accuracy",
    "--data",
    run.dataDir,
    ...(values.quick ? ["--quick"] : []),
  ]);
  if (code > 128) process.exit(code);
  return code;
}

/** Accuracy against real places: writes results/accuracy.json and its own README section. */
async function benchAccuracyPart(run: Run): Promise<void> {
  log("accuracy against real places (bench/truth/)");
  if (!run.haveFcc) {
    log(`  accuracy: ${run.dataDir} has no full-resolution data: skipped (set PSAP_DATA_DIR or --data)`);
    return;
  }
  const bench = await benchAccuracy(REPO_ROOT, run.dataDir, log);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, "accuracy.json"), `${JSON.stringify(bench, null, 2)}\n`);
  const markdown = accuracyMarkdown(bench, run.machine.date.slice(0, 16).replace("T", " "));
  replaceAccuracySection(README, markdown);
  console.log(`\n${markdown}`);
}

async function benchSdkPart(run: Run): Promise<SdkResult> {
  log("SDK size");
  const s = await benchSdkSize();
  run.detail.sdk_source = s.source;
  log(`  sdk: ${JSON.stringify(s.result)} from ${s.source}`);
  return s.result;
}

/** The data sets of the lookup benches, loaded when their turn comes (the FCC one only where its files are). */
function datasetLoaders(run: Run): [DatasetName, () => PsapDataset | Promise<PsapDataset>][] {
  const sets: [DatasetName, () => PsapDataset | Promise<PsapDataset>][] = [];
  if (run.haveFcc) sets.push(["fcc", () => loadFccDataset(run.dataDir)]);
  else log(`FCC data not found in ${run.dataDir}: skipped (set PSAP_DATA_DIR or --data)`);
  sets.push(["synthetic-100k", () => syntheticDataset({ n: 100_000, seed })]);
  sets.push(["synthetic-1m", () => syntheticDataset({ n: 1_000_000, seed: seed + 1 })]);
  return sets.filter(([name]) => wanted.has(name));
}

/**
 * Lookups (ours, geokdbush, brute force) and PostGIS over each data set in turn, on the same points;
 * the last run's figures for a part not redone.
 */
async function benchLookupParts(
  run: Run,
): Promise<{ lookup: LookupRow[]; postgis: PostgisOutcome | undefined; kvSamples: KvSample[] }> {
  const prev = run.prev;
  const kept = prev.postgis
    ? { rows: prev.postgis }
    : prev.postgis_skipped
      ? { skipped: prev.postgis_skipped }
      : undefined;
  const kvSamples: KvSample[] = [];
  if (!only.has("lookup") && !only.has("postgis"))
    return { lookup: prev.lookup ?? [], postgis: kept, kvSamples };
  const lookups: { row: LookupRow; detail: unknown }[] = [];
  const postgisRuns: { row: PostgisRow; detail: unknown }[] = [];
  const pg = only.has("postgis") ? await startPostgis() : undefined;
  try {
    for (const [name, load] of datasetLoaders(run)) {
      log(`data set ${name}`);
      const dataset = await load();
      const p = plan.lookup[name];
      run.info.points = { ...run.info.points, [name]: p };
      let points = queryPoints(p.queries, seed);
      if (only.has("lookup")) {
        const r = await benchLookupOn(run, name, dataset);
        points = r.points;
        lookups.push(r);
        kvSamples.push(r.kv);
      }
      if (pg && "server" in pg) postgisRuns.push(await benchPostgisOn(run, pg.server, name, dataset, points));
      (globalThis as { gc?: () => void }).gc?.();
    }
  } finally {
    if (pg && "server" in pg) {
      await pg.server.stop();
      log("postgis: PostgreSQL stopped and deleted");
    }
  }
  if (only.has("lookup")) run.detail.lookup = lookups.map((l) => l.detail);
  if (pg) run.detail.postgis = postgisRuns.map((r) => r.detail);
  return {
    lookup: only.has("lookup") ? lookups.map((l) => l.row) : (prev.lookup ?? []),
    postgis: !pg ? kept : "skipped" in pg ? { skipped: pg.skipped } : { rows: postgisRuns.map((r) => r.row) },
    kvSamples,
  };
}

async function startPostgis(): Promise<{ server: PgServer } | { skipped: string }> {
  log("postgis: starting PostgreSQL");
  return startPostgres(log);
}

/** Our lookup and its contenders over one data set: the row, its detail and the cold reads to replay on KV. */
async function benchLookupOn(run: Run, name: DatasetName, dataset: PsapDataset) {
  const r = await benchLookup(dataset, { dataset: name, ...plan.lookup[name], seed }, log);
  run.info.lookupMismatches = { ...run.info.lookupMismatches, [name]: r.detail.mismatches.length };
  run.info.afterLoad = {
    ...run.info.afterLoad,
    [name]: {
      ours_us_p50: r.detail.ours_after_load_us_p50,
      geokdbush_us_p50: r.detail.geokdbush_after_load_us_p50,
    },
  };
  log(
    `  lookup ${name}: hot ${r.row.ours_us_p50} µs, geokdbush ${r.row.geokdbush_us_p50} µs, brute ${r.row.brute_us_p50} µs, ` +
      `cold CPU p99 ${r.row.cold_cpu_us_p99} µs, ${r.detail.mismatches.length} mismatches`,
  );
  countMismatches(run, r.detail.mismatches);
  return r;
}

/** PostGIS over one data set, on the points our lookup was timed on. */
async function benchPostgisOn(
  run: Run,
  pg: PgServer,
  name: DatasetName,
  dataset: PsapDataset,
  points: ReturnType<typeof queryPoints>,
): Promise<{ row: PostgisRow; detail: unknown }> {
  const p = plan.lookup[name];
  const options = {
    dataset: name,
    checkQueries: p.bruteQueries,
    connections: plan.postgis.connections,
    seed,
  };
  const r = await benchPostgis(pg, dataset, points, options, log);
  run.info.postgis = [
    ...(run.info.postgis ?? []),
    {
      dataset: name,
      checked: r.detail.checked,
      ties: r.detail.ranked_ties,
      mismatches: r.detail.mismatches.length,
      connect_ms_p50: r.detail.connect_first_query_ms_p50,
    },
  ];
  log(`  postgis ${name}: ${JSON.stringify(r.row)}, ${r.detail.mismatches.length} mismatches`);
  countMismatches(run, r.detail.mismatches);
  return r;
}

/** Answers that differ between contenders are logged, and fail the run. */
function countMismatches(run: Run, mismatches: readonly string[]): void {
  if (mismatches.length === 0) return;
  run.failures++;
  for (const m of mismatches) log(`  MISMATCH ${m}`);
}

/** What the servers serve: the FCC data set where its files are, else a small synthetic one. */
async function servedDataset(run: Run): Promise<PsapDataset> {
  return run.haveFcc ? await loadFccDataset(run.dataDir) : syntheticDataset({ n: 6_500, seed });
}

/**
 * On one wrangler dev (the real worker and the floor, bench/floor): the cold KV reads of the lookup
 * samples, the SOS loop, LoST beside the session API, then the location check beside the SOS loop;
 * the figures of the parts measured.
 */
async function benchOnServer(
  run: Run,
  index: OurIndex,
  lookup: LookupRow[],
  kvSamples: KvSample[],
): Promise<{ e2e?: E2eResult; lost?: LostResult; held?: HeldResult; check?: CheckResult }> {
  log("server: starting wrangler dev (the real worker and the floor, bench/floor)");
  const kv = [...index.entries, ...sampleEntries(kvSamples)];
  // LoST and location URIs are served only where a deployment turns them on; the other parts' requests
  // never reach them (the location URI part asks LoST too).
  const vars: Record<string, string> = {
    ...(only.has("lost") || only.has("held") ? { LOST_ENABLED: "true" } : {}),
    ...(only.has("held") ? { HELD_ENABLED: "true" } : {}),
  };
  const server = await startServer({ kv, log, stateDir: run.state.dir, vars });
  try {
    if (only.has("lookup")) await timeColdKvReads(run, server, lookup, kvSamples);
    const e2e = only.has("e2e") ? await benchE2ePart(run, server) : undefined;
    const lost = only.has("lost") ? await benchLostPart(run, server) : undefined;
    const held = only.has("held") ? await benchHeldPart(run, server) : undefined;
    const check = only.has("check") ? await benchCheckPart(run, server) : undefined;
    return { e2e, lost, held, check };
  } finally {
    await server.stop();
    log("server: wrangler dev stopped");
  }
}

/** Each lookup sample's cold read replayed on wrangler dev's local KV: its row's `cold_kv_ms_p50`. */
async function timeColdKvReads(run: Run, server: BenchServer, lookup: LookupRow[], kvSamples: KvSample[]) {
  const kvDetails: unknown[] = [];
  for (const sample of kvSamples) {
    const r = await timeKvReads(server.baseUrl, sample);
    const row = lookup.find((l) => l.dataset === sample.dataset);
    if (row) row.cold_kv_ms_p50 = r.p50;
    kvDetails.push(r.detail);
    log(`  kv ${sample.dataset}: cold reads p50 ${r.p50} ms on local KV`);
  }
  run.detail.kv_reads = kvDetails;
}

async function benchE2ePart(run: Run, server: BenchServer): Promise<E2eResult> {
  log("e2e: SOS loop and its floor");
  const r = await benchE2e(server, { ...plan.e2e, seed }, log);
  run.detail.e2e = r.detail;
  run.info.solo = {
    sos_ms_p50: r.detail.solo_ms_p50,
    sos_again_ms_p50: r.detail.solo_again_ms_p50,
    floor_ms_p50: r.detail.solo_floor_ms_p50,
    trivial_ms_p50: r.detail.idle_trivial_rtt_ms_p50,
  };
  run.info.durableFloor = {
    loops: r.detail.durable_floor_loops,
    ms_p50: r.detail.durable_floor_ms_p50,
    ms_p99: r.detail.durable_floor_ms_p99,
  };
  run.info.fixes = {
    first_loops: r.detail.first_fix_loops,
    first_ms_p50: r.detail.first_fix_ms_p50,
    later_loops: r.detail.later_fix_loops,
    later_ms_p50: r.detail.later_fix_ms_p50,
  };
  log(`  e2e: ${JSON.stringify(r.result)}`);
  return r.result;
}

/** LoST beside the session location POST on the same server; a point whose answers differ fails the run. */
async function benchLostPart(run: Run, server: BenchServer): Promise<LostResult> {
  log("lost: LoST findService beside the session location POST, same fixes");
  const r = await benchLost(server, { ...plan.lost, seed }, log);
  run.detail.lost = r.detail;
  run.info.lost = { keys: r.detail.keys, sessions: r.detail.sessions, agreed_none: r.detail.agreed_none };
  log(`  lost: ${JSON.stringify(r.result)}`);
  // A point left unanswered is a finding too, not a sample to drop quietly.
  for (const e of r.detail.errors) log(`  lost: FAILED ${e}`);
  if (r.result.failed > 0) run.failures++;
  countMismatches(run, r.detail.disagreements);
  return r.result;
}

/** Location URIs beside a session read and LoST on the same server; a fix not given back fails the run. */
async function benchHeldPart(run: Run, server: BenchServer): Promise<HeldResult> {
  log("held: location URI dereference beside a session read and LoST, same fixes");
  const r = await benchHeld(server, { ...plan.held, seed }, log);
  run.detail.held = r.detail;
  run.info.held = { keys: r.detail.keys };
  log(`  held: ${JSON.stringify(r.result)}`);
  for (const e of r.detail.errors) log(`  held: FAILED ${e}`);
  if (r.result.failed > 0) run.failures++;
  return r.result;
}

/**
 * The location check beside the SOS loop on the same server; a check lost, a fix failed or a first PSAP
 * that differs fails the run.
 */
async function benchCheckPart(run: Run, server: BenchServer): Promise<CheckResult> {
  log("check: the location check beside the SOS loop, same fixes");
  const r = await benchCheck(server, { ...plan.check, seed }, log);
  run.detail.check = r.detail;
  run.info.check = {
    platforms: r.detail.platforms,
    planned: r.detail.planned_fixes,
    concurrency: r.detail.concurrency,
    seconds: r.detail.seconds,
    agreed_none: r.detail.agreed_none,
    request_ms_p50: r.detail.request_ms_p50,
  };
  log(`  check: ${JSON.stringify(r.result)}`);
  for (const e of r.detail.errors) log(`  check: FAILED ${e}`);
  for (const l of r.detail.lost) log(`  check: LOST ${l}`);
  if (r.result.failed > 0 || r.result.checks_lost > 0) run.failures++;
  countMismatches(run, r.detail.disagreements);
  return r.result;
}

/** The same loops again, on a server whose state is on disk: what the local commits' syncs cost. */
async function benchE2eOnDisk(run: Run, index: OurIndex): Promise<void> {
  run.info.e2eOnDisk = undefined;
  if (run.state.medium !== "memory") return;
  const disk = diskStateRoot();
  if (!disk) {
    log("e2e: no folder on disk for the comparison run (neither the temporary folder nor the repository)");
    return;
  }
  log(`e2e again with the server's state on disk (${disk.dir})`);
  mkdirSync(disk.dir, { recursive: true });
  const onDisk = await startServer({ kv: index.entries, log, stateDir: disk.dir });
  try {
    const r = await benchE2e(onDisk, { ...plan.e2e, seed }, log);
    run.detail.e2e_on_disk = { result: r.result, detail: r.detail };
    run.info.e2eOnDisk = {
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
}

/** The SOS storm, on a server of its own: its idle memory is a fresh runtime's, and no earlier session is counted. */
async function benchLoadPart(run: Run, index: OurIndex): Promise<LoadResult> {
  log("server: starting a fresh wrangler dev for the load");
  const server = await startServer({ kv: index.entries, log, stateDir: run.state.dir });
  try {
    const pids = await server.workerds();
    const idle = await memoryOf(pids);
    log(`load: SOS storm (workerd runtime ${pids.runtime}, proxy ${pids.proxy}; idle ${idle.runtime_mb} MB)`);
    const r = await benchLoad(server, pids, idle, { ...plan.load, seed }, log);
    run.detail.load = r.detail;
    run.info.memory = {
      idle_mb: idle.runtime_mb,
      per_session_mb: r.detail.runtime_mb_per_session,
      peak_mb: r.detail.storm_peak.runtime_mb,
      proxy_mb: r.detail.with_sessions.proxy_mb,
    };
    run.info.storm = {
      seconds: r.detail.storm_s,
      loops_ok: r.detail.loops_ok,
      loops_late: r.detail.loops_late,
      loop_ms_p50: r.detail.loop_ms_p50,
      loop_ms_p99: r.detail.loop_ms_p99,
    };
    log(`  load: ${JSON.stringify(r.result)}, ${r.detail.runtime_mb_per_session} MB a session`);
    return r.result;
  } finally {
    await server.stop();
    log("server: wrangler dev stopped");
  }
}

/**
 * latest.json, latest-detail.json, a history entry for a complete run, and the README's Performance
 * section; or partial-detail.json while some part has never been measured. The exit code.
 */
function writeResults(run: Run, figures: Figures): number {
  const { sdk, lookup, postgis, e2e, load, lost, check, held } = figures;
  const detail = run.detail;
  mkdirSync(RESULTS_DIR, { recursive: true });
  detail.info = run.info;
  detail.seconds = Math.round((Date.now() - started) / 1000);
  if (!sdk || !e2e || !load || !postgis) {
    const partial = JSON.stringify({ ...detail, lookup_rows: lookup }, null, 2);
    writeFileSync(join(RESULTS_DIR, "partial-detail.json"), `${partial}\n`);
    console.error(
      "bench: some parts have no figures yet (run without --only once); wrote partial-detail.json",
    );
    return 1;
  }
  const machine = run.machine;
  const pg = "rows" in postgis ? { postgis: postgis.rows } : { postgis_skipped: postgis.skipped };
  const results: BenchResults = {
    lookup,
    ...pg,
    e2e,
    load,
    sdk,
    machine,
    ...(lost ? { lost } : {}),
    ...(check ? { check } : {}),
    ...(held ? { held } : {}),
  };
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
  const complete = values.only === undefined && DATASETS.every((d) => wanted.has(d)) && run.haveFcc;
  if (complete) saveHistory(HISTORY, results, mode, run.info.state?.medium);
  writeReadme(results, run.info);
  console.log(`\n${performanceMarkdown(results, loadHistory(HISTORY), run.info)}`);
  for (const g of goals)
    console.log(`${g.met === null ? "n/a    " : g.met ? "met    " : "NOT met"}  ${g.goal}: ${g.figure}`);
  console.log(
    `\nwrote bench/results/latest.json, latest-detail.json${complete ? ", a history entry" : ""} and bench/README.md's Performance section in ${detail.seconds} s`,
  );
  return run.failures > 0 ? 1 : 0;
}

/** `--readme-only`: the Performance section again from the figures on file; the exit code. */
function regenerateReadme(): number {
  const latest = readJson<unknown>(LATEST);
  const problems = latest === undefined ? ["no bench/results/latest.json"] : resultsShapeProblems(latest);
  if (problems.length > 0) {
    console.error(`bench: cannot regenerate bench/README.md:\n${problems.join("\n")}`);
    return 1;
  }
  writeReadme(latest as BenchResults, infoOf(readJson<RunDetail>(DETAIL)));
  console.log("bench: bench/README.md Performance section regenerated from bench/results/latest.json");
  return 0;
}

// The 1,000,000-PSAP data set and index need more heap than Node's default, and passes collect
// garbage between them (--expose-gc): run again with both (regenerating the README needs neither).
if (values["readme-only"]) {
  process.exitCode = regenerateReadme();
} else if (getHeapStatistics().heap_size_limit < 8_000 * 1024 * 1024 || typeof globalThis.gc !== "function") {
  process.exit(await runAgain(["--max-old-space-size=12000", "--expose-gc"], process.argv.slice(2)));
} else {
  process.exitCode = await main();
}
