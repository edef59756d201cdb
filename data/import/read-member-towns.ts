// Reads the member-towns file: which regional or county-wide centre answers 911 in which municipality.
//   psap_id,state,county,municipality,geoid,source,checked_on,note   (read_on: the same, as older files name it)
//   8400,MA,Middlesex,Pepperell,2501753225,https://...,2026-11-27,
// `state` and `county` are the municipality's. A centre that answers across a state line (Fargo's for
// Moorhead, Minnesota) names its own state in the optional `psap_state` column, so that a PSAP id of
// another state is never taken by mistake for one of the municipality's.
// Every row names its source; the import matches each municipality to a town or place (report: every row).
import { type CsvTable, parseCsv } from "./csv.ts";
import { ImportError } from "./errors.ts";
import type { FileReport, MemberTownRow } from "./model.ts";
import { printable } from "./printable.ts";
import { KNOWN_STATES } from "./states.ts";

export const MEMBER_TOWN_COLUMNS = [
  "psap_id",
  "psap_state",
  "state",
  "county",
  "municipality",
  "geoid",
  "source",
  "checked_on",
  "read_on",
  "note",
] as const;
const REQUIRED = ["psap_id", "state", "county", "municipality", "source"] as const;

export function isMemberTownsHeader(header: readonly string[]): boolean {
  return (
    header[0] === "psap_id" &&
    REQUIRED.every((c) => header.includes(c)) &&
    header.every((h) => (MEMBER_TOWN_COLUMNS as readonly string[]).includes(h))
  );
}

export function readMemberTowns(
  path: string,
  input: string | CsvTable,
): { rows: MemberTownRow[]; report: FileReport } {
  const table = typeof input === "string" ? parseCsv(input) : input;
  if (!isMemberTownsHeader(table.header)) {
    throw new ImportError(
      `${printable(path)}: not a member-towns CSV (header must be ${MEMBER_TOWN_COLUMNS.join(",")})`,
    );
  }
  const report: FileReport = {
    path,
    kind: "member-towns",
    rowsRead: table.rows.length,
    kept: 0,
    dropped: [],
    notes: [],
  };
  const col = (fields: string[], name: (typeof MEMBER_TOWN_COLUMNS)[number]) => {
    const i = table.header.indexOf(name);
    return i < 0 ? "" : (fields[i] ?? "").trim();
  };
  const rows: MemberTownRow[] = [];
  for (const { line, fields } of table.rows) {
    const drop = (reason: string) => report.dropped.push({ line, reason: `bad row: ${reason}` });
    const psapId = col(fields, "psap_id");
    const state = col(fields, "state").toUpperCase();
    const county = col(fields, "county");
    const municipality = col(fields, "municipality");
    const geoid = col(fields, "geoid");
    const psapState = col(fields, "psap_state").toUpperCase();
    if (!psapId || psapId.length > 64) drop("psap_id missing or longer than 64 characters");
    else if (!KNOWN_STATES.has(state)) drop("state is not a US state or territory code");
    else if (psapState && !KNOWN_STATES.has(psapState))
      drop("psap_state is not a US state or territory code");
    else if (psapState === state) drop("psap_state is for a centre in another state: leave it empty");
    else if (!county || !municipality) drop("county and municipality are required");
    else if (geoid && !/^(\d{7}|\d{10})$/.test(geoid)) drop("geoid must be a 7- or 10-digit Census code");
    else if (!col(fields, "source")) drop("source is required (where the member list was read)");
    else
      rows.push({
        line,
        psapId,
        psapState: psapState || state,
        state,
        county,
        municipality,
        geoid: geoid || null,
      });
  }
  report.kept = rows.length;
  return { rows, report };
}
