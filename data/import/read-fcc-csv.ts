// Reads the FCC Master PSAP Registry CSV: current PSAPs only, secondaries marked, duplicates resolved.
import { type CsvTable, parseCsv } from "./csv.ts";
import { ImportError } from "./errors.ts";
import type { FccRow, FileReport } from "./model.ts";
import { KNOWN_STATES } from "./states.ts";

const COLUMNS = ["PSAP ID", "PSAP Name", "State", "County", "City", "Type of Change"] as const;

export function isFccCsvHeader(header: readonly string[]): boolean {
  return COLUMNS.every((c) => header.includes(c));
}

/** The flags of `Type of Change` ("M, S", "S,M", "M-S", "A, S", "NC", ...). */
export function parseFlags(text: string): string[] {
  return text
    .toUpperCase()
    .split(/[\s,;/-]+/)
    .filter((t) => t.length > 0);
}

/** Column positions of the registry's header (-1 for an optional column it lacks). */
interface Columns {
  id: number;
  name: number;
  state: number;
  county: number;
  city: number;
  flags: number;
  date: number;
  comments: number;
}

/** One registry row, or why it is dropped; `unknownFlags` counts flags the legend does not have. */
function readRow(
  fields: readonly string[],
  line: number,
  c: Columns,
  unknownFlags: Map<string, number>,
): FccRow | { reason: string; modified: string } {
  const get = (i: number) => (i < 0 ? "" : (fields[i] ?? "").replace(/\s+/g, " ").trim());
  const id = get(c.id);
  const name = get(c.name);
  const state = get(c.state).toUpperCase();
  const flags = parseFlags(get(c.flags));
  const modified = get(c.date);
  if (!/^\d{1,9}$/.test(id)) return { reason: "bad row: PSAP ID missing or not a number", modified };
  if (flags.includes("O")) return { reason: "orphaned (O): no longer a PSAP", modified };
  if (!name) return { reason: "bad row: PSAP Name missing", modified };
  if (!KNOWN_STATES.has(state))
    return { reason: "bad row: State is not a US state or territory code", modified };
  for (const f of flags)
    if (!["NC", "A", "M", "S", "O"].includes(f)) unknownFlags.set(f, (unknownFlags.get(f) ?? 0) + 1);
  return {
    line,
    id,
    name,
    state,
    county: get(c.county),
    city: get(c.city),
    secondary: flags.includes("S"),
    modified,
    comments: get(c.comments),
  };
}

export function readFccCsv(
  path: string,
  input: string | CsvTable,
): { rows: FccRow[]; report: FileReport; maxDate: string } {
  const table = typeof input === "string" ? parseCsv(input) : input;
  if (!isFccCsvHeader(table.header)) {
    throw new ImportError(`${path}: not an FCC registry CSV (needs columns ${COLUMNS.join(", ")})`);
  }
  const col = (name: string) => table.header.indexOf(name);
  const columns: Columns = {
    id: col("PSAP ID"),
    name: col("PSAP Name"),
    state: col("State"),
    county: col("County"),
    city: col("City"),
    flags: col("Type of Change"),
    date: col("Date Last Modified"),
    comments: col("Comments"),
  };
  const report: FileReport = {
    path,
    kind: "fcc-csv",
    rowsRead: table.rows.length,
    kept: 0,
    dropped: [],
    notes: [],
  };
  const byId = new Map<string, FccRow>();
  const unknownFlags = new Map<string, number>();
  let maxDate = "";
  for (const { line, fields } of table.rows) {
    const row = readRow(fields, line, columns, unknownFlags);
    if (/^\d{4}-\d{2}-\d{2}$/.test(row.modified) && row.modified > maxDate) maxDate = row.modified;
    if ("reason" in row) {
      report.dropped.push({ line, reason: row.reason });
      continue;
    }
    const prev = byId.get(row.id);
    if (prev) {
      // The registry lists a few PSAPs twice: the later modification date is the current entry.
      const keepNew = row.modified > prev.modified;
      const loser = keepNew ? prev : row;
      const winner = keepNew ? row : prev;
      report.dropped.push({
        line: loser.line,
        reason: `duplicate PSAP ID ${row.id} (kept line ${winner.line})`,
      });
      if (keepNew) byId.set(row.id, row);
      continue;
    }
    byId.set(row.id, row);
  }
  for (const [f, n] of unknownFlags)
    report.notes.push(`${n} row(s) with unknown flag "${f}" kept as primary`);
  const rows = [...byId.values()];
  report.kept = rows.length;
  return { rows, report, maxDate };
}
