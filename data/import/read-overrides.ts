// Reads an operator's jurisdiction override file: settles what the name-based classifier cannot.
//   psap_id,jurisdiction,served_places,served_counties,reason
//   5942,state,,,"Rhode Island's one 911 centre"
//   2160,municipal,1714000,,"the City of Chicago's OEMC"
// Empty cells leave what the import derived, "none" says it serves none; lists are separated by ";" or spaces. `reason` says why (the
// report lists it); the shipped file gives one on every row.
import { PSAP_JURISDICTIONS, type PsapJurisdiction } from "../../sdk/src/protocol.ts";
import { type CsvTable, parseCsv } from "./csv.ts";
import { ImportError } from "./errors.ts";
import type { FileReport, OverrideRow } from "./model.ts";

export const OVERRIDE_COLUMNS = [
  "psap_id",
  "jurisdiction",
  "served_places",
  "served_counties",
  "reason",
] as const;

export function isOverrideCsvHeader(header: readonly string[]): boolean {
  return header[0] === "psap_id" && header.every((h) => (OVERRIDE_COLUMNS as readonly string[]).includes(h));
}

function list(text: string, pattern: RegExp): string[] | null {
  const items = text.split(/[;\s]+/).filter((x) => x.length > 0);
  return items.every((x) => pattern.test(x)) ? items : null;
}

export function readOverrides(
  path: string,
  input: string | CsvTable,
): { rows: OverrideRow[]; report: FileReport } {
  const table = typeof input === "string" ? parseCsv(input) : input;
  if (!isOverrideCsvHeader(table.header)) {
    throw new ImportError(`${path}: not an override CSV (header must be ${OVERRIDE_COLUMNS.join(",")})`);
  }
  const report: FileReport = {
    path,
    kind: "overrides",
    rowsRead: table.rows.length,
    kept: 0,
    dropped: [],
    notes: [],
  };
  const rows: OverrideRow[] = [];
  const col = (fields: string[], name: (typeof OVERRIDE_COLUMNS)[number]) => {
    const i = table.header.indexOf(name);
    return i < 0 ? "" : (fields[i] ?? "").trim();
  };
  for (const { line, fields } of table.rows) {
    const drop = (reason: string) => report.dropped.push({ line, reason: `bad row: ${reason}` });
    const psapId = col(fields, "psap_id");
    if (!psapId || psapId.length > 64) {
      drop("psap_id missing or longer than 64 characters");
      continue;
    }
    const row: OverrideRow = { line, psapId };
    const j = col(fields, "jurisdiction").toLowerCase();
    if (j) {
      if (!(PSAP_JURISDICTIONS as readonly string[]).includes(j)) {
        drop(`jurisdiction must be one of ${PSAP_JURISDICTIONS.join(", ")}`);
        continue;
      }
      row.jurisdiction = j as PsapJurisdiction;
    }
    const places = col(fields, "served_places");
    if (places.toLowerCase() === "none") row.servedPlaces = [];
    else if (places) {
      const parsed = list(places, /^(\d{7}|\d{10})$/);
      if (!parsed) {
        drop("served_places must be Census GEOIDs (7 digits for a place, 10 for a town)");
        continue;
      }
      row.servedPlaces = parsed;
    }
    const counties = col(fields, "served_counties");
    if (counties.toLowerCase() === "none") row.servedCounties = [];
    else if (counties) {
      const parsed = list(counties, /^\d{5}$/);
      if (!parsed) {
        drop("served_counties must be 5-digit county FIPS codes");
        continue;
      }
      row.servedCounties = parsed;
    }
    const reason = col(fields, "reason");
    if (reason) row.reason = reason;
    rows.push(row);
  }
  report.kept = rows.length;
  return { rows, report };
}
