// Where the bench servers keep their state: the medium is read from the mount table (the longest
// mount point holding the folder), and the folder asked for must exist and be writable.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { diskStateRoot, mediumOf, parseMounts, stateRoot } from "../../bench/state-dir.ts";

const MOUNTS = parseMounts(
  [
    "/dev/vda / ext4 rw,relatime 0 0",
    "tmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0",
    "tmpfs /run/user/1000 tmpfs rw 0 0",
    "/dev/vdb /mnt/my\\040data ext4 rw 0 0",
    "ramfs /mnt/ram ramfs rw 0 0",
    "",
  ].join("\n"),
);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("bench state folder", () => {
  it("reads mount points with their escapes", () => {
    expect(MOUNTS.map((m) => m.point)).toEqual([
      "/",
      "/dev/shm",
      "/run/user/1000",
      "/mnt/my data",
      "/mnt/ram",
    ]);
    expect(MOUNTS.map((m) => m.type)).toEqual(["ext4", "tmpfs", "tmpfs", "ext4", "ramfs"]);
  });

  it("takes the medium of the longest mount point holding the folder", () => {
    expect(mediumOf("/dev/shm", MOUNTS)).toBe("memory");
    expect(mediumOf("/dev/shm/sos-bench-1/state", MOUNTS)).toBe("memory");
    expect(mediumOf("/mnt/ram/x", MOUNTS)).toBe("memory");
    // A name that only starts like a mount point is not under it.
    expect(mediumOf("/dev/shmx/state", MOUNTS)).toBe("disk");
    expect(mediumOf("/tmp/sos-bench-1", MOUNTS)).toBe("disk");
    expect(mediumOf("/mnt/my data/state", MOUNTS)).toBe("disk");
    // The last of two mounts on one point is the one in use.
    const remounted = [...MOUNTS, ...parseMounts("/dev/vdc /dev/shm ext4 rw 0 0")];
    expect(mediumOf("/dev/shm/x", remounted)).toBe("disk");
    // Nothing known (no mount table): never called memory.
    expect(mediumOf("/dev/shm/x", [])).toBe("disk");
  });

  it("uses the folder asked for, and refuses one that is not a writable folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "bench-state-"));
    dirs.push(dir);
    const memory = parseMounts(`tmpfs ${resolve(dir)} tmpfs rw 0 0\n/dev/vda / ext4 rw 0 0`);
    expect(stateRoot(dir, memory)).toEqual({ dir, medium: "memory" });
    expect(stateRoot(dir, parseMounts("/dev/vda / ext4 rw 0 0"))).toEqual({ dir, medium: "disk" });
    expect(() => stateRoot(join(dir, "missing"), memory)).toThrow(/not a writable folder/);
  });

  it("finds a folder on disk for the comparison run, or says there is none", () => {
    const allDisk = parseMounts("/dev/vda / ext4 rw 0 0");
    expect(diskStateRoot(allDisk)).toEqual({ dir: tmpdir(), medium: "disk" });
    const allMemory = parseMounts("tmpfs / tmpfs rw 0 0");
    expect(diskStateRoot(allMemory)).toBeNull();
    // The temporary folder in memory, a repository on disk: a folder in the repository.
    const repo = mkdtempSync(join(tmpdir(), "bench-repo-"));
    dirs.push(repo);
    const split = parseMounts(`tmpfs / tmpfs rw 0 0\n/dev/vda ${realpathSync(repo)} ext4 rw 0 0\n`);
    expect(diskStateRoot(split, repo)).toEqual({ dir: join(repo, ".bench-state"), medium: "disk" });
  });
});
