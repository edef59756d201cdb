// Reads the directory's land areas (data/directory/areas.csv): which centre answers 911 on a reservation,
// an off-reservation trust land or a National Park, each row with its source and the day it was read.
//   psap_id,state,area_kind,area_id,area_name,source,checked_on,note
//   8130,WY,park,YELL,Yellowstone National Park,https://...,2026-11-28,"..."
// `tribal` areas are Census AIANNH GEOIDs of reservations (R) and trust lands (T): an Oklahoma or other
// statistical area says nothing of who answers 911 and is refused where the tribal file is at hand
// (land-areas.ts); `park` areas are the NPS unit codes of National Parks.
import { type CsvTable, parseCsv } from "./csv.ts";
import { ImportError } from "./errors.ts";
import type { FileReport } from "./model.ts";
import { printable } from "./printable.ts";
import { isCheckedOnDay } from "./read-directory-lines.ts";
import { KNOWN_STATES } from "./states.ts";

export const AREA_LINK_COLUMNS = [
  "psap_id",
  "state",
  "area_kind",
  "area_id",
  "area_name",
  "source",
  "checked_on",
  "note",
] as const;
type Column = (typeof AREA_LINK_COLUMNS)[number];

export const LAND_AREA_KINDS = ["tribal", "park"] as const;
export type LandAreaKind = (typeof LAND_AREA_KINDS)[number];

export interface AreaLink {
  line: number;
  psapId: string;
  state: string;
  kind: LandAreaKind;
  /** AIANNH GEOID ("2430R") or NPS unit code ("YELL"). */
  areaId: string;
  areaName: string;
  checkedOn: string;
}

export function isAreaLinksHeader(header: readonly string[]): boolean {
  return header.length === AREA_LINK_COLUMNS.length && AREA_LINK_COLUMNS.every((c, i) => header[i] === c);
}

const AREA_ID: Readonly<Record<LandAreaKind, RegExp>> = { tribal: /^\d{4}[RT]$/, park: /^[A-Z]{4}$/ };

export function readAreaLinks(
  path: string,
  input: string | CsvTable,
  today: Date = new Date(),
): { links: AreaLink[]; report: FileReport } {
  const table = typeof input === "string" ? parseCsv(input) : input;
  if (!isAreaLinksHeader(table.header))
    throw new ImportError(
      `${printable(path)}: not a land areas CSV (header must be ${AREA_LINK_COLUMNS.join(",")})`,
    );
  const report: FileReport = {
    path,
    kind: "area-links",
    rowsRead: table.rows.length,
    kept: 0,
    dropped: [],
    notes: [],
  };
  const links: AreaLink[] = [];
  for (const { line, fields } of table.rows) {
    const get = (c: Column) => (fields[AREA_LINK_COLUMNS.indexOf(c)] ?? "").trim();
    const drop = (reason: string) => report.dropped.push({ line, reason: `bad row: ${reason}` });
    const kind = get("area_kind") as LandAreaKind;
    const state = get("state").toUpperCase();
    if (!get("psap_id") || get("psap_id").length > 64) drop("psap_id missing or longer than 64 characters");
    else if (!KNOWN_STATES.has(state)) drop("state is not a US state or territory code");
    else if (!(LAND_AREA_KINDS as readonly string[]).includes(kind))
      drop(`area_kind must be one of ${LAND_AREA_KINDS.join(", ")}`);
    else if (!AREA_ID[kind].test(get("area_id")))
      drop(
        kind === "tribal"
          ? "area_id must be an AIANNH GEOID of a reservation or trust land (e.g. 2430R)"
          : "area_id must be a park's four-letter NPS unit code",
      );
    else if (!get("source")) drop("source is required (where the centre is said to answer there)");
    else if (!isCheckedOnDay(get("checked_on"), today))
      drop("checked_on must be a day (YYYY-MM-DD), not in the future");
    else
      links.push({
        line,
        psapId: get("psap_id"),
        state,
        kind,
        areaId: get("area_id"),
        areaName: get("area_name"),
        checkedOn: get("checked_on"),
      });
  }
  report.kept = links.length;
  return { links, report };
}
