// CSV reading with the starting line number of every record (quoted fields may span lines): from a
// stream as it arrives (the import's inputs, never held whole as text), or from text already in memory.
import type { Readable } from "node:stream";
import { type Options, parse as parseStream } from "csv-parse";
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

const OPTIONS: Options = {
  bom: true,
  info: true,
  raw: true,
  relax_column_count: true,
  skip_empty_lines: true,
  trim: true,
};

/** The record's fields and the line it starts on (its raw text is let go). */
function rowOf(r: ParsedRecord): CsvRow {
  const body = r.raw.replace(/^[\r\n]+/, "").replace(/\r?\n$/, "");
  let spanned = 0;
  for (let i = body.indexOf("\n"); i >= 0; i = body.indexOf("\n", i + 1)) spanned++;
  return { line: r.info.lines - spanned, fields: r.record };
}

function tableOf(rows: CsvRow[]): CsvTable {
  const head = rows.shift();
  return { header: head ? head.fields : [], rows };
}

/** Parses CSV text (header first). Throws on text that is not CSV (an unclosed quote, say). */
export function parseCsv(text: string): CsvTable {
  const records = parse(text, OPTIONS) as unknown as ParsedRecord[];
  return tableOf(records.map(rowOf));
}

/**
 * Parses CSV as it streams in (header first), one record at a time; throws as parseCsv does, and
 * `tooMany()`'s error as soon as more than `maxRows` rows (the header aside) have come.
 */
export async function readCsvStream(
  input: Readable,
  maxRows: number,
  tooMany: () => Error,
): Promise<CsvTable> {
  const rows: CsvRow[] = [];
  const parser = input.pipe(parseStream(OPTIONS));
  // An error of the input (a bound passed, a broken gzip) ends the parse with that error.
  input.once("error", (err) => parser.destroy(err));
  try {
    for await (const record of parser) {
      if (rows.length > maxRows) throw tooMany();
      rows.push(rowOf(record as ParsedRecord));
    }
  } finally {
    input.destroy();
  }
  return tableOf(rows);
}
