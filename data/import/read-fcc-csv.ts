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

export function readFccCsv(
  path: string,
  input: string | CsvTable,
): { rows: FccRow[]; report: FileReport; maxDate: string } {
  const table = typeof input === "string" ? parseCsv(input) : input;
  if (!isFccCsvHeader(table.header)) {
    throw new ImportError(`${path}: not an FCC registry CSV (needs columns ${COLUMNS.join(", ")})`);
  }
  const col = (name: string) => table.header.indexOf(name);
  const [iId, iName, iState, iCounty, iCity, iFlags] = COLUMNS.map(col) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const iDate = col("Date Last Modified");
  const iComments = col("Comments");
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
    const get = (i: number) => (fields[i] ?? "").replace(/\s+/g, " ").trim();
    const id = get(iId);
    const name = get(iName);
    const state = get(iState).toUpperCase();
    const flags = parseFlags(get(iFlags));
    const modified = iDate >= 0 ? get(iDate) : "";
    if (/^\d{4}-\d{2}-\d{2}$/.test(modified) && modified > maxDate) maxDate = modified;
    if (!/^\d{1,9}$/.test(id)) {
      report.dropped.push({ line, reason: "bad row: PSAP ID missing or not a number" });
      continue;
    }
    if (flags.includes("O")) {
      report.dropped.push({ line, reason: "orphaned (O): no longer a PSAP" });
      continue;
    }
    if (!name) {
      report.dropped.push({ line, reason: "bad row: PSAP Name missing" });
      continue;
    }
    if (!KNOWN_STATES.has(state)) {
      report.dropped.push({ line, reason: "bad row: State is not a US state or territory code" });
      continue;
    }
    for (const f of flags)
      if (!["NC", "A", "M", "S", "O"].includes(f)) unknownFlags.set(f, (unknownFlags.get(f) ?? 0) + 1);
    const row: FccRow = {
      line,
      id,
      name,
      state,
      county: get(iCounty),
      city: get(iCity),
      secondary: flags.includes("S"),
      modified,
      comments: iComments >= 0 ? get(iComments) : "",
    };
    const prev = byId.get(id);
    if (prev) {
      // The registry lists a few PSAPs twice: the later modification date is the current entry.
      const keepNew = row.modified > prev.modified;
      const loser = keepNew ? prev : row;
      const winner = keepNew ? row : prev;
      report.dropped.push({ line: loser.line, reason: `duplicate PSAP ID ${id} (kept line ${winner.line})` });
      if (keepNew) byId.set(id, row);
      continue;
    }
    byId.set(id, row);
  }
  for (const [f, n] of unknownFlags)
    report.notes.push(`${n} row(s) with unknown flag "${f}" kept as primary`);
  const rows = [...byId.values()];
  report.kept = rows.length;
  return { rows, report, maxDate };
}
