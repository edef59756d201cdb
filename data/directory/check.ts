// `npm run directory:check`: checks every row of the PSAP directory (data/directory/) and prints its coverage
// by state. `npm test` runs it; any error fails it. Errors: a row the importer would refuse (a number that is
// not valid for the centre's state or territory or disagrees with its E.164, an unknown kind, no source, no
// date or one in the future), a PSAP id that is not a current primary of the registry the bundle ships, a
// row whose state is not its PSAP's (a member row names the centre's state in `psap_state` when it answers
// across a state line), a row whose fields do not match its file's header, and a duplicate row. Flags
// (printed, not failing): a number listed for two centres, and rows not read at their source for
// CONTACT_LIMITS.staleAfterDays.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { isStale } from "../../lib/lines.ts";
import type { PsapLine } from "../../sdk/src/protocol.ts";
import { BUNDLE_DIR } from "../bundle/build.ts";
import { type CsvTable, parseCsv } from "../import/csv.ts";
import { readAreaLinks } from "../import/read-area-links.ts";
import { readDirectoryLines } from "../import/read-directory-lines.ts";
import { readFccCsv } from "../import/read-fcc-csv.ts";
import { readMemberTowns } from "../import/read-member-towns.ts";
import { DIRECTORY_DIR } from "../import/shipped.ts";
import { coverageByState, coverageTable } from "./coverage.ts";

export interface CheckResult {
  errors: string[];
  flags: string[];
  report: string[];
  /** The current primary PSAPs with the directory's lines: what the coverage counts. */
  primaries: { id: string; state: string; lines: PsapLine[] }[];
}

interface RegistryPsap {
  state: string;
  secondary: boolean;
}

/** The current registry the bundle ships (orphaned rows are left out by the reader). */
export function currentRegistry(): Map<string, RegistryPsap> {
  const name = readdirSync(BUNDLE_DIR).find((f) => /^fcc_master_psap_registry.*\.csv\.gz$/.test(f));
  if (!name) throw new Error(`no FCC registry in ${BUNDLE_DIR}`);
  const text = gunzipSync(readFileSync(join(BUNDLE_DIR, name))).toString("utf8");
  const { rows } = readFccCsv(name, parseCsv(text));
  return new Map(rows.map((r) => [r.id, { state: r.state, secondary: r.secondary }]));
}

function csvFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".csv"))
    .sort()
    .map((f) => join(dir, f));
}

/** Why a PSAP id cannot carry a row, or null when it can. */
function psapProblem(registry: Map<string, RegistryPsap>, id: string, state: string): string | null {
  const psap = registry.get(id);
  if (!psap) return `PSAP ${id} is not in the current registry (unknown or orphaned)`;
  if (psap.secondary) return `PSAP ${id} is a secondary: name its primary`;
  if (psap.state !== state) return `PSAP ${id} is in ${psap.state}, not ${state}`;
  return null;
}

/**
 * A directory file's table; `onRow` hears of each row whose fields do not match the header (a column added
 * to a file, a member file's psap_state, needs a field on every row, as CSV wants).
 */
function readTable(path: string, onRow: (line: number, problem: string) => void): CsvTable {
  const table = parseCsv(readFileSync(path, "utf8"));
  for (const { line, fields } of table.rows) {
    if (fields.length !== table.header.length)
      onRow(line, `${fields.length} fields, the header has ${table.header.length}`);
  }
  return table;
}

export function checkDirectory(dir: string = DIRECTORY_DIR, now: Date = new Date()): CheckResult {
  const registry = currentRegistry();
  const errors: string[] = [];
  const flags: string[] = [];
  const where = (path: string, line: number) => `${relative(dir, path)}:${line}`;
  const linesByPsap = new Map<
    string,
    { state: string; lines: ReturnType<typeof readDirectoryLines>["rows"] }
  >();
  const centresByNumber = new Map<string, Set<string>>();
  const seen = new Set<string>();
  let lineRows = 0;
  const tableOf = (path: string) =>
    readTable(path, (line, problem) => errors.push(`${where(path, line)}: ${problem}`));
  for (const path of csvFiles(join(dir, "lines"))) {
    const { rows, report } = readDirectoryLines(path, tableOf(path), {
      origin: "directory",
      today: now,
    });
    for (const d of report.dropped) errors.push(`${where(path, d.line)}: ${d.reason}`);
    for (const row of rows) {
      lineRows++;
      const at = where(path, row.line);
      const problem = psapProblem(registry, row.psapId, row.state);
      if (problem) errors.push(`${at}: ${problem}`);
      const key = `${row.psapId} ${row.value.phone}`;
      if (seen.has(key))
        errors.push(`${at}: duplicate: ${row.value.phone} is already listed for PSAP ${row.psapId}`);
      seen.add(key);
      if (isStale(row.value, now)) flags.push(`${at}: stale: read on ${row.value.checked_on}`);
      const centres = centresByNumber.get(row.value.phone) ?? new Set();
      centres.add(row.psapId);
      centresByNumber.set(row.value.phone, centres);
      const entry = linesByPsap.get(row.psapId) ?? { state: row.state, lines: [] };
      entry.lines.push(row);
      linesByPsap.set(row.psapId, entry);
    }
  }
  for (const [phone, centres] of centresByNumber)
    if (centres.size > 1)
      flags.push(`shared number: ${phone} is listed for PSAPs ${[...centres].join(", ")}`);

  let memberRows = 0;
  const members = new Set<string>();
  for (const path of csvFiles(join(dir, "members"))) {
    // Read and parsed once: the reader takes the table, and the rows' days are read from it by line.
    const table = tableOf(path);
    const { rows, report } = readMemberTowns(path, table);
    for (const d of report.dropped) errors.push(`${where(path, d.line)}: ${d.reason}`);
    const dateAt = table.header.indexOf("checked_on");
    const fieldsAt = new Map(table.rows.map((r) => [r.line, r.fields]));
    for (const row of rows) {
      memberRows++;
      const at = where(path, row.line);
      const problem = psapProblem(registry, row.psapId, row.psapState);
      if (problem) errors.push(`${at}: ${problem}`);
      const key =
        `${row.psapId} ${row.state} ${row.county} ${row.municipality} ${row.geoid ?? ""}`.toLowerCase();
      if (members.has(key)) errors.push(`${at}: duplicate member row`);
      members.add(key);
      const day = fieldsAt.get(row.line)?.[dateAt]?.trim() ?? "";
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) errors.push(`${at}: checked_on must be a day (YYYY-MM-DD)`);
      else if (isStale({ checked_on: day }, now)) flags.push(`${at}: stale: read on ${day}`);
    }
  }

  const areasPath = join(dir, "areas.csv");
  const areas = readAreaLinks(areasPath, tableOf(areasPath), now);
  for (const d of areas.report.dropped) errors.push(`${where(areasPath, d.line)}: ${d.reason}`);
  for (const link of areas.links) {
    const problem = psapProblem(registry, link.psapId, link.state);
    if (problem) errors.push(`${where(areasPath, link.line)}: ${problem}`);
    if (isStale({ checked_on: link.checkedOn }, now))
      flags.push(`${where(areasPath, link.line)}: stale: read on ${link.checkedOn}`);
  }

  const primaries = [...registry]
    .filter(([, p]) => !p.secondary)
    .map(([id, p]) => ({
      id,
      state: p.state,
      lines: (linesByPsap.get(id)?.lines ?? []).map((r) => r.value),
    }));
  const coverage = coverageByState(primaries, now);
  const report = [
    `PSAP directory: ${lineRows} lines, ${memberRows} member rows, ${areas.links.length} land areas linked`,
    `Coverage of the ${primaries.length} current primary PSAPs (a line; a 24/7 line, emergency or dispatch; stale):`,
    ...coverageTable(coverage),
  ];
  return { errors, flags, report, primaries };
}

function main(): void {
  const { values } = parseArgs({ options: { quiet: { type: "boolean" } } });
  const result = checkDirectory();
  if (!values.quiet) for (const line of result.report) console.log(line);
  for (const flag of result.flags) console.log(`flag: ${flag}`);
  for (const error of result.errors) console.error(`error: ${error}`);
  console.log(
    result.errors.length === 0
      ? `directory check passed (${result.flags.length} flags)`
      : `directory check FAILED: ${result.errors.length} errors`,
  );
  process.exitCode = result.errors.length === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) main();
