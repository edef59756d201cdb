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
    const drop = (reason: string) => report.dropped.push({ line, reason: `bad row: ${reason}` });
    const id = get("id");
    if (!id || id.length > 64) {
      drop("id missing or longer than 64 characters");
      continue;
    }
    const row: ProjectRow = { line, id };
    if (get("name")) row.name = get("name");
    const type = get("type").toLowerCase();
    if (type) {
      if (type !== "primary" && type !== "secondary") {
        drop('type must be "primary" or "secondary"');
        continue;
      }
      row.type = type;
    }
    const state = get("state").toUpperCase();
    if (state) {
      if (!KNOWN_STATES.has(state)) {
        drop("state is not a US state or territory code");
        continue;
      }
      row.state = state;
    }
    if (get("county")) row.county = get("county");
    if (get("city")) row.city = get("city");
    if (get("phone")) {
      const phone = normalizePhone(get("phone"));
      if (!phone) {
        drop("phone is not a valid E.164 or 10-digit North American number");
        continue;
      }
      row.phone = phone;
    }
    const latText = get("latitude");
    const lonText = get("longitude");
    if (latText || lonText) {
      const lat = Number(latText);
      const lon = Number(lonText);
      if (
        !latText ||
        !lonText ||
        !Number.isFinite(lat) ||
        !Number.isFinite(lon) ||
        Math.abs(lat) > 90 ||
        Math.abs(lon) > 180
      ) {
        drop("latitude and longitude must both be given, within -90..90 and -180..180");
        continue;
      }
      row.latitude = lat;
      row.longitude = lon;
    }
    const precision = get("location_precision").toLowerCase();
    if (precision) {
      if (!(PRECISIONS as readonly string[]).includes(precision)) {
        drop('location_precision must be "building", "city" or "county"');
        continue;
      }
      row.location_precision = precision as LocationPrecision;
    } else if (row.latitude !== undefined) {
      row.location_precision = "building";
    }
    const first = firstLine.get(id);
    if (first !== undefined) {
      report.dropped.push({ line, reason: `duplicate id ${id} (kept line ${first})` });
      continue;
    }
    firstLine.set(id, line);
    rows.push(row);
  }
  report.kept = rows.length;
  return { rows, report };
}
