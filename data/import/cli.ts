// `npm run psap:import -- <files...> [--remote] [--dry-run] [--demo] [--if-empty]`: builds the PSAP
// index from the given files (or the demo set) and switches KV to it atomically.
import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildIndex } from "../index/build.ts";
import { ImportError } from "./errors.ts";
import { type KvTarget, RemoteKvTarget } from "./kv.ts";
import { LocalKvTarget } from "./kv-local.ts";
import { DEFAULT_READ_LIMITS, formatSize, type ReadLimits, readLimitsFrom } from "./limits.ts";
import { prepareImport } from "./pipeline.ts";
import { printable } from "./printable.ts";
import { planVersions, publishIndex, readCurrentManifest, readReplacedIndex } from "./publish.ts";
import { formatReport } from "./report.ts";
import { SHIPPED_OPERATOR_FILES, SHIPPED_OVERRIDE_FILES } from "./shipped.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Node flags the import runs with: a larger young generation (V8's semi-space) for a batch job that
 * allocates millions of short-lived vertices and strings; with the default, a third of the real import's
 * time went to the garbage collector. `npm run psap:import` and `npm run dev` both pass them.
 */
export const IMPORT_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=64"];
export const DEMO_FILE = resolve(ROOT, "data/demo/demo-psaps.csv");

const USAGE = `Usage: npm run psap:import -- <file>... [options]
  <file>            FCC registry CSV, its 2017 JSON export, Census places (.geojson.gz, .geojson or a
                    tl_YYYY_SS_place.zip shapefile), town boundaries (.geojson.gz, or a Census
                    tl_YYYY_SS_cousub.zip / cb_YYYY_SS_cousub_500k.zip), project CSV, override CSV,
                    member-towns CSV, directory lines CSV, GeoJSON boundaries, NENA PsapPolygon layers (GeoJSON,
                    shapefile ZIP or GeoPackage .gpkg) (any mix)
  --demo            import the demo data set (data/demo/demo-psaps.csv), data_version "demo"
  --no-shipped-overrides  leave out what the project ships (data/overrides/ and the PSAP
                    directory, data/directory/), which every import of real data includes otherwise
  --no-directory    leave out the PSAP directory alone (its lines and member communities); an
                    operator's own lines and member files, named as inputs, are still read
  --if-empty        do nothing when an index is already loaded
  --dry-run         build and report only; write nothing
  --remote          write to the deployed namespace (default: local, the store \`npm run dev\` uses)
  --env <name>      wrangler environment (e.g. production, with --remote)
  --persist-to <d>  local KV directory (wrangler's --persist-to)
  --data-version <text>  override the data_version label
  --report-json <file>   also write the full report (every dropped row) as JSON
  --max-file-size <size>     most bytes one input may hold once inflated (default ${formatSize(DEFAULT_READ_LIMITS.maxFileBytes)})
  --max-entry-size <size>    most bytes one ZIP entry may inflate to (default ${formatSize(DEFAULT_READ_LIMITS.maxEntryBytes)})
  --max-archive-size <size>  most bytes one ZIP's entries may inflate to together (default ${formatSize(DEFAULT_READ_LIMITS.maxArchiveBytes)})
  --max-csv-rows <n>         most rows one CSV input may hold (default ${DEFAULT_READ_LIMITS.maxCsvRows.toLocaleString("en-US")})
                    (sizes such as 256MiB, 1GiB or a count of bytes)`;

export interface CliResult {
  code: number;
  output: string;
}

const OPTIONS = {
  demo: { type: "boolean" },
  "if-empty": { type: "boolean" },
  "dry-run": { type: "boolean" },
  remote: { type: "boolean" },
  env: { type: "string" },
  "persist-to": { type: "string" },
  "data-version": { type: "string" },
  "report-json": { type: "string" },
  "no-shipped-overrides": { type: "boolean" },
  "no-directory": { type: "boolean" },
  "max-file-size": { type: "string" },
  "max-entry-size": { type: "string" },
  "max-archive-size": { type: "string" },
  "max-csv-rows": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type CliOptions = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

/** What the command line asks for. */
interface ReadArguments {
  ok: true;
  options: CliOptions;
  files: string[];
  limits: ReadLimits;
}

/** What the command line asks for, or the answer to give at once (usage, a bad flag). */
function readArguments(argv: string[]): ReadArguments | { ok: false; result: CliResult } {
  let args: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    args = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (err) {
    return { ok: false, result: { code: 2, output: `${printable((err as Error).message)}\n${USAGE}` } };
  }
  const o = args.values;
  if (o.help) return { ok: false, result: { code: 0, output: USAGE } };
  const read = readLimitsFrom({
    maxFileBytes: o["max-file-size"],
    maxEntryBytes: o["max-entry-size"],
    maxArchiveBytes: o["max-archive-size"],
    maxCsvRows: o["max-csv-rows"],
  });
  if (!read.ok) return { ok: false, result: { code: 2, output: `${printable(read.message)}\n${USAGE}` } };
  const files = [...args.positionals];
  if (files.length === 0 && !o.demo)
    return { ok: false, result: { code: 2, output: `No input files.\n${USAGE}` } };
  // The shipped operator files belong to the real data: not to the demo set alone, nor when asked to go.
  if (files.length > 0 && !o["no-shipped-overrides"]) {
    const shipped = o["no-directory"] ? SHIPPED_OVERRIDE_FILES : SHIPPED_OPERATOR_FILES;
    for (const f of shipped) if (!files.some((g) => resolve(g) === f)) files.push(f);
  }
  if (o.demo) files.unshift(DEMO_FILE);
  return { ok: true, options: o, files, limits: read.limits };
}

export async function runCli(argv: string[], makeTarget?: (remote: boolean) => KvTarget): Promise<CliResult> {
  const started = Date.now();
  const args = readArguments(argv);
  if (!args.ok) return args.result;
  const o = args.options;
  const target: KvTarget =
    makeTarget?.(o.remote === true) ??
    (o.remote
      ? new RemoteKvTarget({ cwd: ROOT, env: o.env })
      : new LocalKvTarget({ cwd: ROOT, env: o.env, persistTo: o["persist-to"] }));
  try {
    return await importInto(target, args, started);
  } finally {
    await target.close?.();
  }
}

async function importInto(target: KvTarget, args: ReadArguments, started: number): Promise<CliResult> {
  const { options: o, files } = args;
  try {
    if (o["if-empty"] && !o["dry-run"]) {
      const current = await readCurrentManifest(target);
      if (current) {
        return {
          code: 0,
          output: `PSAP index already loaded (${printable(current.data_version)}); nothing imported.`,
        };
      }
    }
    const prepared = await prepareImport(files, {
      dataVersion: o["data-version"] ?? (o.demo && files.length === 1 ? "demo" : undefined),
      limits: args.limits,
    });
    const now = new Date();
    const current = o["dry-run"] ? null : await readReplacedIndex(target);
    const plan = planVersions(current, now);
    const built = buildIndex(prepared.dataset, { previous: plan.previous, now });
    const publish = o["dry-run"] ? null : await publishIndex(target, built, plan.toDelete);
    if (o["report-json"]) {
      const report = { files: prepared.files, summary: prepared.summary, manifest: built.manifest, publish };
      writeFileSync(o["report-json"], JSON.stringify(report, null, 2));
    }
    if (o.demo && o["if-empty"] && publish) {
      return {
        code: 0,
        output: `Loaded demo PSAP data (${built.manifest.psaps} PSAPs, ${publish.keysWritten} keys) into ${target.description}.`,
      };
    }
    const elapsedMs = Date.now() - started;
    const output = formatReport({ ...prepared, built, target: target.description, publish, elapsedMs });
    return { code: 0, output };
  } catch (err) {
    if (err instanceof ImportError)
      return { code: 1, output: `Import failed, the loaded index is unchanged: ${printable(err.message)}` };
    throw err;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await runCli(process.argv.slice(2));
  (result.code === 0 ? console.log : console.error)(result.output);
  process.exitCode = result.code;
}
