// Where a bench `wrangler dev` keeps its local state (KV, D1, Durable Object storage), and on what
// medium. Locally every Durable Object commit is a SQLite commit synced to that folder's file system
// (and wrangler's wrapper around each object writes one on every construction, so on every wake):
// with the state on a disk, the SOS loop and both its floors measured slower in the concurrent rounds
// than with the same code's state in memory, the trivial GET much less so. So the loops are timed with
// the state in memory (tmpfs) where the machine has one, and again on disk beside it, both reported.
import { accessSync, constants, readFileSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { REPO_ROOT } from "./fcc.ts";

export type StateMedium = "memory" | "disk";

export interface StateRoot {
  /** A folder each server makes its own temporary folder in. */
  dir: string;
  medium: StateMedium;
}

/** File systems held in memory: a sync there writes nothing to a device. */
const MEMORY_FILE_SYSTEMS = new Set(["tmpfs", "ramfs"]);

/** Linux's shared-memory tmpfs, present on most distributions. */
const SHARED_MEMORY = "/dev/shm";

interface Mount {
  point: string;
  type: string;
}

/** `/proc/mounts` lines: device, mount point (spaces and the like escaped as octal), type, options. */
export function parseMounts(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split("\n")) {
    const [, point, type] = line.split(" ");
    if (point === undefined || type === undefined) continue;
    mounts.push({
      point: point.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8))),
      type,
    });
  }
  return mounts;
}

/** The medium of the file system holding `path`: that of its longest mount point (the last one mounted wins a tie). */
export function mediumOf(path: string, mounts: readonly Mount[]): StateMedium {
  let best: Mount | undefined;
  for (const mount of mounts) {
    const prefix = mount.point === "/" ? "/" : `${mount.point}${sep}`;
    const holds = path === mount.point || path.startsWith(prefix);
    if (holds && (best === undefined || mount.point.length >= best.point.length)) best = mount;
  }
  return best && MEMORY_FILE_SYSTEMS.has(best.type) ? "memory" : "disk";
}

function systemMounts(): Mount[] {
  try {
    return parseMounts(readFileSync("/proc/mounts", "utf8"));
  } catch {
    // Not Linux: nothing is known to be in memory.
    return [];
  }
}

function writableDir(path: string): boolean {
  try {
    if (!statSync(path).isDirectory()) return false;
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function rootAt(dir: string, mounts: readonly Mount[]): StateRoot {
  return { dir, medium: mediumOf(realpathSync(dir), mounts) };
}

/**
 * The folder asked for (`--state-dir`), else `/dev/shm` when it is a writable tmpfs, else the
 * system's temporary folder (whatever its medium).
 */
export function stateRoot(asked?: string, mounts: readonly Mount[] = systemMounts()): StateRoot {
  if (asked !== undefined) {
    if (!writableDir(asked)) throw new Error(`--state-dir ${asked}: not a writable folder`);
    return rootAt(asked, mounts);
  }
  if (writableDir(SHARED_MEMORY) && mediumOf(realpathSync(SHARED_MEMORY), mounts) === "memory")
    return rootAt(SHARED_MEMORY, mounts);
  return rootAt(tmpdir(), mounts);
}

/**
 * A folder on disk for the comparison run: the system's temporary folder when it is on disk, else the
 * repository's `.bench-state` (git-ignored; the caller makes it) when that is; null when neither is.
 */
export function diskStateRoot(
  mounts: readonly Mount[] = systemMounts(),
  repoRoot: string = REPO_ROOT,
): StateRoot | null {
  const temp = rootAt(tmpdir(), mounts);
  if (temp.medium === "disk") return temp;
  if (mediumOf(realpathSync(repoRoot), mounts) !== "disk") return null;
  return { dir: join(repoRoot, ".bench-state"), medium: "disk" };
}
