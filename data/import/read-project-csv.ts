// Reads the project's own CSV (README "PSAP data"): adds PSAPs, or fills fields of existing ones.

import { parsePhoneNumberFromString } from "libphonenumber-js";
import type { LocationPrecision } from "../../sdk/src/protocol.ts";
import { type CsvTable, parseCsv } from "./csv.ts";
import { ImportError } from "./errors.ts";
import type { FileReport, ProjectRow } from "./model.ts";
import { KNOWN_STATES } from "./states.ts";

export const PROJECT_COLUMNS = [
  "id",
  "name",
  "type",
  "state",
  "county",
  "city",
  "phone",
  "latitude",
  "longitude",
  "location_precision",
] as const;

export function isProjectCsvHeader(header: readonly string[]): boolean {
  return header[0] === "id" && header.every((h) => (PROJECT_COLUMNS as readonly string[]).includes(h));
}

/** E.164 from "+17085551234", "708-555-1234", "(708) 555 1234", "1 708 555 1234"; null when it is not a valid number. */
export function normalizePhone(text: string): string | null {
  // libphonenumber-js (Google's libphonenumber metadata): a bare national number is read as North American.
  const parsed = parsePhoneNumberFromString(text, "US");
  return parsed?.isValid() ? parsed.number : null;
}

const PRECISIONS: readonly LocationPrecision[] = ["building", "city", "county"];

/** One row of the project CSV, or why it is refused (the report says "bad row: ..."). */
function readRow(get: (name: (typeof PROJECT_COLUMNS)[number]) => string, line: number): ProjectRow | string {
  const id = get("id");
  if (!id || id.length > 64) return "id missing or longer than 64 characters";
  const row: ProjectRow = { line, id };
  if (get("name")) row.name = get("name");
  const type = get("type").toLowerCase();
  if (type) {
    if (type !== "primary" && type !== "secondary") return 'type must be "primary" or "secondary"';
    row.type = type;
  }
  const state = get("state").toUpperCase();
  if (state) {
    if (!KNOWN_STATES.has(state)) return "state is not a US state or territory code";
    row.state = state;
  }
  if (get("county")) row.county = get("county");
  if (get("city")) row.city = get("city");
  if (get("phone")) {
    const phone = normalizePhone(get("phone"));
    if (!phone) return "phone is not a valid E.164 or 10-digit North American number";
    row.phone = phone;
  }
  const position = readPosition(get("latitude"), get("longitude"));
  if (typeof position === "string") return position;
  if (position) {
    row.latitude = position.latitude;
    row.longitude = position.longitude;
  }
  const precision = get("location_precision").toLowerCase();
  if (precision) {
    if (!(PRECISIONS as readonly string[]).includes(precision))
      return 'location_precision must be "building", "city" or "county"';
    row.location_precision = precision as LocationPrecision;
  } else if (row.latitude !== undefined) {
    row.location_precision = "building";
  }
  return row;
}

/** Building coordinates: both or neither, within range. */
function readPosition(
  latText: string,
  lonText: string,
): { latitude: number; longitude: number } | null | string {
  if (!latText && !lonText) return null;
  const latitude = Number(latText);
  const longitude = Number(lonText);
  const valid =
    latText &&
    lonText &&
    Number.isFinite(latitude) &&
    Number.isFinite(longitude) &&
    Math.abs(latitude) <= 90 &&
    Math.abs(longitude) <= 180;
  return valid
    ? { latitude, longitude }
    : "latitude and longitude must both be given, within -90..90 and -180..180";
}

export function readProjectCsv(
  path: string,
  input: string | CsvTable,
): { rows: ProjectRow[]; report: FileReport } {
  const table = typeof input === "string" ? parseCsv(input) : input;
  if (!isProjectCsvHeader(table.header)) {
    throw new ImportError(
      `${path}: not a project PSAP CSV (header must start with "id" and use only ${PROJECT_COLUMNS.join(",")})`,
    );
  }
  const report: FileReport = {
    path,
    kind: "project-csv",
    rowsRead: table.rows.length,
    kept: 0,
    dropped: [],
    notes: [],
  };
  const rows: ProjectRow[] = [];
  const firstLine = new Map<string, number>();
  for (const { line, fields } of table.rows) {
    const get = (name: (typeof PROJECT_COLUMNS)[number]) => {
      const i = table.header.indexOf(name);
      return i < 0 ? "" : (fields[i] ?? "").trim();
    };
    const row = readRow(get, line);
    if (typeof row === "string") {
      report.dropped.push({ line, reason: `bad row: ${row}` });
      continue;
    }
    const first = firstLine.get(row.id);
    if (first !== undefined) {
      report.dropped.push({ line, reason: `duplicate id ${row.id} (kept line ${first})` });
      continue;
    }
    firstLine.set(row.id, line);
    rows.push(row);
  }
  report.kept = rows.length;
  return { rows, report };
}
