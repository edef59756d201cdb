// Reads one import input within the bounds of limits.ts, whatever it is: a plain file, any gzip (`.gz`,
// recognised by its magic number), any ZIP archive, or an SQLite database (a GeoPackage: only its size is
// checked here, as it is read in place from disk). Nothing is inflated whole before it is bounded:
// a gzip is inflated as a stream and refused the moment it passes the per-file bound; a ZIP's entries
// are inspected in its central directory (their declared sizes against the per-entry and per-archive
// bounds) before any is inflated, and each is counted again as it inflates (a header may lie). CSV is
// parsed as it streams in; JSON is collected (bounded) and parsed once, as JSON.parse needs the whole
// text; shapefile parts are handed over whole, as shpjs needs them.
import { createReadStream } from "node:fs";
import { open as openFile, stat } from "node:fs/promises";
import { pipeline, Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import yauzl from "yauzl";
import { type CsvTable, readCsvStream } from "./csv.ts";
import { ImportError } from "./errors.ts";
import { describeBound, formatSize, type ReadLimits } from "./limits.ts";
import { printable } from "./printable.ts";

export type InputContent =
  /** JSON text, parsed. */
  | { kind: "json"; json: unknown }
  /** CSV, parsed as it streamed in: the header and every row with its line number. */
  | { kind: "csv"; table: CsvTable }
  /** A ZIP archive: the entries `wanted` picked, inflated, by their name in the archive. */
  | { kind: "zip"; entries: Map<string, Buffer> }
  /** An SQLite database within the per-file bound (read-geopackage.ts reads it from disk). */
  | { kind: "sqlite" };

const GZIP_MAGIC = [0x1f, 0x8b];
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
/** `SQLite format 3\0`: the first 16 bytes of every SQLite database, a GeoPackage among them. */
const SQLITE_MAGIC = [...Buffer.from("SQLite format 3\0", "latin1")];

/** Reads `path` within `limits`; `wantedEntry` picks which entries of a ZIP to inflate (by name). */
export async function readInput(
  path: string,
  limits: ReadLimits,
  wantedEntry: (name: string) => boolean,
): Promise<InputContent> {
  const head = await readHead(path);
  if (startsWith(head, ZIP_MAGIC))
    return { kind: "zip", entries: await readZipEntries(path, limits, wantedEntry) };
  const gzipped = startsWith(head, GZIP_MAGIC);
  const sqlite = startsWith(head, SQLITE_MAGIC);
  if (!gzipped && head.size > limits.maxFileBytes) {
    throw new ImportError(
      `${where(path)}: the file is ${formatSize(head.size)}, over ${describeBound(limits, "maxFileBytes")}`,
    );
  }
  if (sqlite) return { kind: "sqlite" };
  // pipeline() passes a read error on to the gunzip stream (pipe() would leave it waiting forever).
  const source: Readable = gzipped
    ? pipeline(createReadStream(path), createGunzip(), () => undefined)
    : createReadStream(path);
  const chunks = bounded(source, limits.maxFileBytes, () =>
    gzipped
      ? `${where(path)}: inflates to more than ${describeBound(limits, "maxFileBytes")}`
      : `${where(path)}: the file grew past ${describeBound(limits, "maxFileBytes")} while it was read`,
  );
  try {
    return await readText(path, chunks, limits);
  } catch (err) {
    if (err instanceof ImportError) throw err;
    if (gzipped && isZlibError(err)) {
      throw new ImportError(`${where(path)}: not a readable gzip file (${(err as Error).message})`, {
        cause: err,
      });
    }
    throw new ImportError(`${where(path)}: cannot read the file (${errorCode(err)})`, { cause: err });
  } finally {
    source.destroy();
  }
}

/** The file's size and first bytes; an ImportError when it cannot be read or is empty. */
async function readHead(path: string): Promise<Uint8Array & { size: number }> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw Object.assign(new Error("not a file"), { code: "EISDIR" });
    if (info.size === 0) throw new ImportError(`${where(path)}: the file is empty`);
    const file = await openFile(path, "r");
    try {
      const head = new Uint8Array(SQLITE_MAGIC.length);
      const { bytesRead } = await file.read(head, 0, head.length, 0);
      return Object.assign(head.subarray(0, bytesRead), { size: info.size });
    } finally {
      await file.close();
    }
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw new ImportError(`${where(path)}: cannot read the file (${errorCode(err)})`, { cause: err });
  }
}

/**
 * The (inflated) text: JSON when its first character says so, else CSV. The first chunks are looked at
 * and then handed on with the rest, so nothing is read twice.
 */
async function readText(
  path: string,
  chunks: AsyncIterator<Buffer>,
  limits: ReadLimits,
): Promise<InputContent> {
  const peeked: Buffer[] = [];
  let first = -1;
  while (first < 0) {
    const next = await chunks.next();
    if (next.done) throw new ImportError(`${where(path)}: the file is empty`);
    peeked.push(next.value);
    first = firstSignificantByte(next.value, peeked.length === 1);
  }
  if (startsWith(peeked[0] as Buffer, SQLITE_MAGIC)) {
    throw new ImportError(
      `${where(path)}: a compressed SQLite database (a GeoPackage?): a GeoPackage is read in place from disk, not inflated: decompress it first`,
    );
  }
  const all = (async function* () {
    yield* peeked;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  })();
  if (first === 0x5b || first === 0x7b) return { kind: "json", json: await parseJson(path, all) };
  try {
    const tooMany = () =>
      new ImportError(`${where(path)}: more rows than ${describeBound(limits, "maxCsvRows")}`);
    return { kind: "csv", table: await readCsvStream(Readable.from(all), limits.maxCsvRows, tooMany) };
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw new ImportError(`${where(path)}: not a readable CSV file (${(err as Error).message})`, {
      cause: err,
    });
  }
}

/** The first byte that is not white space (nor, at the very start, a UTF-8 byte order mark); -1 if none. */
function firstSignificantByte(chunk: Buffer, atStart: boolean): number {
  let i = atStart && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? 3 : 0;
  for (; i < chunk.length; i++) {
    const byte = chunk[i] ?? 0;
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return byte;
  }
  return -1;
}

async function parseJson(path: string, chunks: AsyncIterable<Buffer>): Promise<unknown> {
  // Decoded chunk by chunk: the bytes are let go as the text grows, so the text is never held twice.
  const decoder = new TextDecoder("utf-8");
  const parts: string[] = [];
  for await (const chunk of chunks) parts.push(decoder.decode(chunk, { stream: true }));
  parts.push(decoder.decode());
  const text = parts.join("");
  parts.length = 0;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ImportError(`${where(path)}: not valid JSON (${(err as Error).message})`, { cause: err });
  }
}

/**
 * The entries of a ZIP that `wanted` picks, inflated. Every declared size is checked against the bounds
 * before the first entry is inflated; each entry is counted again as it inflates (yauzl also refuses
 * an entry that inflates to more than its header says).
 */
export async function readZipEntries(
  path: string,
  limits: ReadLimits,
  wanted: (name: string) => boolean,
): Promise<Map<string, Buffer>> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true });
  } catch (err) {
    throw new ImportError(`${where(path)}: not a readable ZIP archive (${(err as Error).message})`, {
      cause: err,
    });
  }
  try {
    const picked: yauzl.Entry[] = [];
    let declared = 0;
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith("/") || !wanted(entry.fileName)) continue;
      const name = `${where(path)}: entry "${printable(entry.fileName)}"`;
      if (entry.uncompressedSize > limits.maxEntryBytes) {
        throw new ImportError(
          `${name} inflates to ${formatSize(entry.uncompressedSize)}, over ${describeBound(limits, "maxEntryBytes")}`,
        );
      }
      declared += entry.uncompressedSize;
      if (declared > limits.maxArchiveBytes) {
        throw new ImportError(
          `${where(path)}: its entries inflate to ${formatSize(declared)} together, over ${describeBound(limits, "maxArchiveBytes")}`,
        );
      }
      picked.push(entry);
    }
    const entries = new Map<string, Buffer>();
    let inflated = 0;
    for (const entry of picked) {
      const name = `${where(path)}: entry "${printable(entry.fileName)}"`;
      const stream = await zip.openReadStreamPromise(entry);
      const parts: Buffer[] = [];
      try {
        const tooBig = () => `${name} inflates to more than ${describeBound(limits, "maxEntryBytes")}`;
        for await (const chunk of bounded(stream, limits.maxEntryBytes, tooBig)) {
          inflated += chunk.length;
          if (inflated > limits.maxArchiveBytes) {
            throw new ImportError(
              `${where(path)}: its entries inflate to more than ${describeBound(limits, "maxArchiveBytes")} together`,
            );
          }
          parts.push(chunk);
        }
      } finally {
        stream.destroy();
      }
      entries.set(entry.fileName, Buffer.concat(parts));
    }
    return entries;
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw new ImportError(`${where(path)}: not a readable ZIP archive (${(err as Error).message})`, {
      cause: err,
    });
  } finally {
    zip.close();
  }
}

/**
 * The chunks of `source`, refused (an ImportError with `message()`) as soon as they add up to
 * more than `limit` bytes: the source is destroyed then, so nothing past the bound is inflated.
 */
function bounded(
  source: AsyncIterable<Buffer>,
  limit: number,
  message: () => string,
): AsyncGenerator<Buffer> {
  return (async function* () {
    let total = 0;
    for await (const chunk of source) {
      total += chunk.length;
      if (total > limit) throw new ImportError(message());
      yield chunk;
    }
  })();
}

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((byte, i) => bytes[i] === byte);
}

function isZlibError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("Z_");
}

function errorCode(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === "string" ? code : err instanceof Error ? err.message : "error";
}

/** The file as an error names it: printable, whatever its name holds. */
function where(path: string): string {
  return printable(path);
}
