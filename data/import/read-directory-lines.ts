// Reads a lines file of the PSAP directory (data/directory/lines/<state>.csv, or an operator's file of the
// same shape): one published line of a centre per row, with where it is published and the day it was read.
//   psap_id,state,psap_name,number,e164,kind,label,source,checked_on,note
// A row is kept only when the printed number and the E.164 agree for the state's numbering plan (as
// libphonenumber-js reads them), the kind is known, and it names its source and date: a number that cannot be
// checked is worse than none. Files under data/directory/ are the project's (`directory`); any other file is
// the operator's (`operator`), listed before the directory's lines of the same kind.

import { CONTACT_LIMITS } from "../../lib/config.ts";
import { checkContactPhone, phoneRegionOf } from "../../lib/phone.ts";
import { type LineOrigin, PHONE_KINDS, type PhoneKind } from "../../sdk/src/protocol.ts";
import { type CsvTable, parseCsv } from "./csv.ts";
import { ImportError } from "./errors.ts";
import type { DirectoryLineRow, FileReport } from "./model.ts";
import { printable } from "./printable.ts";
import { KNOWN_STATES } from "./states.ts";

export const DIRECTORY_LINE_COLUMNS = [
  "psap_id",
  "state",
  "psap_name",
  "number",
  "e164",
  "kind",
  "label",
  "source",
  "checked_on",
  "note",
] as const;
type Column = (typeof DIRECTORY_LINE_COLUMNS)[number];

export function isDirectoryLinesHeader(header: readonly string[]): boolean {
  return (
    header.length === DIRECTORY_LINE_COLUMNS.length && DIRECTORY_LINE_COLUMNS.every((c, i) => header[i] === c)
  );
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar day, not after `today`. */
export function isCheckedOnDay(text: string, today: Date): boolean {
  if (!DAY.test(text)) return false;
  const t = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === text && t <= today.getTime();
}

/** Keypad letters on a phone's keys (ITU E.161): 242-COPS is dialled 242-2677. */
const KEYPAD = "22233344455566677778889999";

/**
 * The printed number as digits and plain separators: typographic dashes, slashes and brackets as pages print
 * them ("[719] 444.7000", "815/748-8400", "435–627–4300"), and keypad letters ("505-242-COPS").
 */
export function asDialled(printed: string): string {
  // "624-COPS (2677)": the digits a vanity number is spelled with, printed beside it, are not dialled twice.
  const spelled = /[A-Za-z]/.test(printed) ? printed.replace(/\(\s*\d+\s*\)/g, " ") : printed;
  return spelled
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/[/[\]]/g, " ")
    .replace(/[A-Za-z]/g, (c) => KEYPAD[c.toUpperCase().charCodeAt(0) - 65] ?? c);
}

/** One row, or why it is refused. */
function readRow(get: (c: Column) => string, today: Date): Omit<DirectoryLineRow, "line"> | string {
  const psapId = get("psap_id");
  const state = get("state").toUpperCase();
  const kind = get("kind");
  if (!psapId || psapId.length > 64) return "psap_id missing or longer than 64 characters";
  if (!KNOWN_STATES.has(state)) return "state is not a US state or territory code";
  if (!(PHONE_KINDS as readonly string[]).includes(kind))
    return `kind must be one of ${PHONE_KINDS.join(", ")}`;
  const region = phoneRegionOf(state);
  const printed = checkContactPhone(asDialled(get("number")), kind as PhoneKind, region);
  if (!printed.ok) return `number ${printed.message}`;
  const e164 = checkContactPhone(get("e164"), kind as PhoneKind, region);
  if (!e164.ok || !get("e164").startsWith("+")) return "e164 must be the number in E.164 (+1 and 10 digits)";
  if (e164.e164 !== printed.e164) return `e164 ${get("e164")} is not the printed number (${printed.e164})`;
  const label = get("label");
  if (!label || label.length > CONTACT_LIMITS.maxLabelLength)
    return `label is required, at most ${CONTACT_LIMITS.maxLabelLength} characters`;
  const source = get("source");
  if (!source) return "source is required (where the line is published)";
  const checkedOn = get("checked_on");
  if (!isCheckedOnDay(checkedOn, today)) return "checked_on must be a day (YYYY-MM-DD), not in the future";
  return {
    psapId,
    state,
    value: {
      phone: e164.e164,
      kind: kind as PhoneKind,
      label,
      source,
      checked_on: checkedOn,
      origin: "directory",
    },
  };
}

export function readDirectoryLines(
  path: string,
  input: string | CsvTable,
  options: { origin: LineOrigin; today?: Date },
): { rows: DirectoryLineRow[]; report: FileReport } {
  const table = typeof input === "string" ? parseCsv(input) : input;
  if (!isDirectoryLinesHeader(table.header)) {
    throw new ImportError(
      `${printable(path)}: not a directory lines CSV (header must be ${DIRECTORY_LINE_COLUMNS.join(",")})`,
    );
  }
  const today = options.today ?? new Date();
  const report: FileReport = {
    path,
    kind: "directory-lines",
    rowsRead: table.rows.length,
    kept: 0,
    dropped: [],
    notes: [],
  };
  const rows: DirectoryLineRow[] = [];
  for (const { line, fields } of table.rows) {
    const get = (c: Column) => (fields[DIRECTORY_LINE_COLUMNS.indexOf(c)] ?? "").trim();
    const row = readRow(get, today);
    if (typeof row === "string") {
      report.dropped.push({ line, reason: `bad row: ${row}` });
      continue;
    }
    rows.push({ line, ...row, value: { ...row.value, origin: options.origin } });
  }
  report.kept = rows.length;
  return { rows, report };
}
