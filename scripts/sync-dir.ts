// Writes a folder's files only where their bytes change, and removes the ones no longer made: a running
// `wrangler dev` serving the folder reloads (dropping its sockets) only for a real change, never because
// a build or a test ran beside it.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";

/** Every file under `dir`, as paths relative to it with `/` separators. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => statSync(join(dir, name)).isFile())
    .map((name) => name.split(sep).join("/"));
}

export interface SyncReport {
  written: number;
  removed: number;
  bytes: number;
}

/**
 * Makes `dir` hold exactly `files` (relative path → content): unchanged files are not touched, changed
 * and new ones are written, others removed, except those under a `keep` prefix (another build's output).
 */
export function syncDir(
  dir: string,
  files: ReadonlyMap<string, string | Uint8Array>,
  keep: string[] = [],
): SyncReport {
  const report: SyncReport = { written: 0, removed: 0, bytes: 0 };
  for (const [name, content] of files) {
    const path = join(dir, name);
    const bytes = typeof content === "string" ? Buffer.from(content) : Buffer.from(content);
    report.bytes += bytes.length;
    if (existsSync(path) && readFileSync(path).equals(bytes)) continue;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
    report.written++;
  }
  for (const name of filesUnder(dir)) {
    if (files.has(name) || keep.some((prefix) => name.startsWith(prefix))) continue;
    rmSync(join(dir, name));
    report.removed++;
  }
  return report;
}

/** The files of `dir` (all of them, or those outside the `skip` prefixes), read for `syncDir`. */
export function readTree(dir: string, skip: string[] = []): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (const name of filesUnder(dir)) {
    if (!skip.some((prefix) => name.startsWith(prefix))) files.set(name, readFileSync(join(dir, name)));
  }
  return files;
}

/** `path` relative to `root`, for messages. */
export function shown(root: string, path: string): string {
  return relative(root, path) || ".";
}
