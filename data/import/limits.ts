// The bounds every import input is read within, in one place: their defaults, the CLI flags that override
// them, and the words an error uses to name them. They keep a hostile or broken input (a gzip or ZIP
// bomb, a file far larger than any real one) from taking the importer's memory: an input is refused
// while it is read, as soon as it passes a bound, before more of it is inflated.
import { constants } from "node:buffer";

export interface ReadLimits {
  /** Most bytes one input file may hold once inflated (a plain file: its size; a `.gz`: what it inflates to). */
  maxFileBytes: number;
  /** Most bytes one archive entry (a ZIP's `.shp`, `.dbf`, ...) may inflate to, as its header declares it and as read. */
  maxEntryBytes: number;
  /** Most bytes the entries read from one archive may inflate to together. */
  maxArchiveBytes: number;
  /** Most rows one CSV input may hold (its header aside). */
  maxCsvRows: number;
}

const MiB = 1024 * 1024;

/**
 * The defaults: several times the largest real input (the Census places GeoJSON, 76.6 MB unpacked; a
 * state's Census shapefile ZIP, tens of MB), and small enough that a JSON input at the bound still
 * parses within the importer's memory target (1.5 GB peak; README "PSAP data").
 */
export const DEFAULT_READ_LIMITS: Readonly<ReadLimits> = {
  maxFileBytes: 256 * MiB,
  maxEntryBytes: 256 * MiB,
  maxArchiveBytes: 512 * MiB,
  // The registry lists 8,915 rows (about 6,500 current PSAPs); an operator file of contacts or extra
  // centres has fewer. Every row of a project CSV can add a PSAP, and the index built from a
  // million PSAPs does not fit the importer's memory target: a file that long is refused at its
  // 100,001st row, as it streams in, rather than after minutes of work.
  maxCsvRows: 100_000,
};

/**
 * The longest text V8 can hold: a JSON input is parsed from one string, so no bound may let one grow
 * past it (a larger one ended in a native crash, not an error).
 */
export const MAX_TEXT_BYTES = constants.MAX_STRING_LENGTH;

/** Each bound's CLI flag and its name in an error message. */
export const READ_LIMIT_FLAGS: Record<keyof ReadLimits, { flag: string; name: string }> = {
  maxFileBytes: { flag: "max-file-size", name: "the per-file bound" },
  maxEntryBytes: { flag: "max-entry-size", name: "the per-entry bound" },
  maxArchiveBytes: { flag: "max-archive-size", name: "the per-archive bound" },
  maxCsvRows: { flag: "max-csv-rows", name: "the row bound" },
};

/** "what the bound is" for an error: `the per-file bound of 256 MiB (--max-file-size)`. */
export function describeBound(limits: ReadLimits, which: keyof ReadLimits): string {
  const { flag, name } = READ_LIMIT_FLAGS[which];
  const value =
    which === "maxCsvRows" ? `${limits[which].toLocaleString("en-US")} rows` : formatSize(limits[which]);
  return `${name} of ${value} (--${flag})`;
}

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  kib: 1024,
  mib: MiB,
  gib: 1024 * MiB,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
};

/** "256MiB", "1.5 GiB", "64KiB", "100MB" or a count of bytes; null when it is none of these. */
export function parseSize(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = match ? UNITS[(match[2] ?? "").toLowerCase()] : undefined;
  if (!match || unit === undefined) return null;
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : null;
}

export function formatSize(bytes: number): string {
  if (bytes >= 1024 * MiB && bytes % (1024 * MiB) === 0) return `${bytes / (1024 * MiB)} GiB`;
  if (bytes >= MiB) return `${Number((bytes / MiB).toFixed(1))} MiB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}

/**
 * The limits with the CLI's overrides applied; a message naming the flag when one is not a size, or a
 * per-file bound past what a JSON text can hold.
 */
export function readLimitsFrom(
  flags: Partial<Record<keyof ReadLimits, string | undefined>>,
): { ok: true; limits: ReadLimits } | { ok: false; message: string } {
  const limits: ReadLimits = { ...DEFAULT_READ_LIMITS };
  for (const key of Object.keys(READ_LIMIT_FLAGS) as (keyof ReadLimits)[]) {
    const text = flags[key];
    if (text === undefined) continue;
    const bytes = parseSize(text);
    const { flag } = READ_LIMIT_FLAGS[key];
    if (bytes === null)
      return { ok: false, message: `--${flag}: not a size (say 256MiB, 1GiB or a count of bytes)` };
    if (key === "maxFileBytes" && bytes > MAX_TEXT_BYTES) {
      return {
        ok: false,
        message: `--${flag}: at most ${formatSize(MAX_TEXT_BYTES)} (the longest text a JSON input can be parsed from)`,
      };
    }
    limits[key] = bytes;
  }
  return { ok: true, limits };
}
