// CSV reading with the starting line number of every record (quoted fields may span lines).
import { parse } from "csv-parse/sync";

export interface CsvRow {
  line: number;
  fields: string[];
}

export interface CsvTable {
  header: string[];
  rows: CsvRow[];
}

interface ParsedRecord {
  record: string[];
  raw: string;
  info: { lines: number };
}

/** Parses CSV text (header first). Throws on text that is not CSV (an unclosed quote, say). */
export function parseCsv(text: string): CsvTable {
  const records = parse(text, {
    bom: true,
    info: true,
    raw: true,
    relax_column_count: true,
    skip_empty_lines: true,
    trim: true,
  }) as unknown as ParsedRecord[];
  const rows = records.map((r) => {
    const body = r.raw.replace(/^[\r\n]+/, "").replace(/\r?\n$/, "");
    const spanned = body.split("\n").length - 1;
    return { line: r.info.lines - spanned, fields: r.record };
  });
  const head = rows.shift();
  return { header: head ? head.fields : [], rows };
}
