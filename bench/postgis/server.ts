// A private PostgreSQL with PostGIS for the bench: Debian's binaries, `initdb` in a temporary folder,
// a free loopback port, stopped and deleted at the end (also on Ctrl-C or a crash). `initdb` refuses
// root, so as root it runs as the `postgres` user on a folder that user owns.
import { type ChildProcess, execFile, execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "../../test/support/processes.ts";
import { onTerminate } from "../cleanup.ts";

const run = promisify(execFile);

export const DEFAULT_PG_BIN = "/usr/lib/postgresql/15/bin";
export const INSTALL_HINT = "apt-get update && apt-get install -y postgresql postgis";
/** The role the bench connects as (trust authentication, loopback only). */
const ROLE = "bench";

export interface PgServer {
  host: string;
  port: number;
  user: string;
  database: string;
  /** Its temporary folder (data, log, socket). */
  dir: string;
  /** Stops the server and deletes its folder. */
  stop(): Promise<void>;
}

export type PgStart = { server: PgServer } | { skipped: string };

/** $PG_BIN, else Debian's PostgreSQL 15. */
export function pgBinDir(): string {
  return process.env.PG_BIN ?? DEFAULT_PG_BIN;
}

/** Why PostgreSQL with PostGIS cannot be started here, or null when it can. */
export function postgisMissing(binDir = pgBinDir()): string | null {
  for (const tool of ["initdb", "pg_ctl", "postgres", "pg_config"]) {
    if (!existsSync(join(binDir, tool))) return `PostgreSQL binaries not found in ${binDir} (no ${tool})`;
  }
  let share: string;
  try {
    share = execFileSync(join(binDir, "pg_config"), ["--sharedir"], { encoding: "utf8" }).trim();
  } catch {
    return `${join(binDir, "pg_config")} does not run`;
  }
  if (!existsSync(join(share, "extension", "postgis.control")))
    return `the PostGIS extension is not installed for this PostgreSQL (no ${join(share, "extension", "postgis.control")})`;
  if (process.getuid?.() === 0 && !postgresIds())
    return "running as root and there is no postgres user to run initdb as";
  return null;
}

function postgresIds(): { uid: number; gid: number } | null {
  try {
    const line = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((l) => l.startsWith("postgres:"));
    const [, , uid, gid] = line?.split(":") ?? [];
    return uid && gid ? { uid: Number(uid), gid: Number(gid) } : null;
  } catch {
    return null;
  }
}

/** Starts the server, or says why it cannot (with how to install what is missing). */
export async function startPostgres(log: (line: string) => void = () => {}): Promise<PgStart> {
  const binDir = pgBinDir();
  const missing = postgisMissing(binDir);
  if (missing) {
    log(`  postgis: ${missing}; to include it: ${INSTALL_HINT}`);
    return { skipped: `${missing} (install: ${INSTALL_HINT})` };
  }
  const asRoot = process.getuid?.() === 0;
  const ids = asRoot ? postgresIds() : null;
  const dir = mkdtempSync(join(tmpdir(), "sos-bench-pg-"));
  if (ids) chownSync(dir, ids.uid, ids.gid);
  const data = join(dir, "data");
  const logFile = join(dir, "server.log");
  // As root, every tool runs as `postgres` (initdb refuses root, and the folder is that user's).
  const command = (tool: string, args: string[]): [string, string[]] =>
    ids ? ["runuser", ["-u", "postgres", "--", join(binDir, tool), ...args]] : [join(binDir, tool), args];
  const pgCtl = (args: string[]) => command("pg_ctl", ["-D", data, ...args]);

  let started = false;
  // The tool running now (initdb, pg_ctl): an early end stops it before the folder goes.
  let current: ChildProcess | undefined;
  const tool = async (cmd: string, args: string[], timeout: number) => {
    const p = run(cmd, args, { timeout });
    current = p.child;
    try {
      return await p;
    } finally {
      current = undefined;
    }
  };
  const stopNow = () => {
    // SIGTERM: runuser passes it on to the tool it runs.
    current?.kill("SIGTERM");
    if (started) {
      const [cmd, args] = pgCtl(["stop", "-m", "immediate", "-w", "-t", "20"]);
      spawnSync(cmd, args, { stdio: "ignore", timeout: 30_000 });
      started = false;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const unregister = onTerminate(stopNow);
  try {
    const [initCmd, initArgs] = command("initdb", [
      "-D",
      data,
      "-U",
      ROLE,
      "-A",
      "trust",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]);
    await tool(initCmd, initArgs, 120_000);
    const port = await freePort();
    const options = [
      `-p ${port}`,
      "-c listen_addresses=127.0.0.1",
      `-k ${dir}`,
      // A disposable bench database: durability off (loading is not what is measured).
      "-c fsync=off",
      "-c synchronous_commit=off",
      "-c full_page_writes=off",
      // JIT compiles expensive plans at run time: off, as OLTP servers usually run.
      "-c jit=off",
      "-c shared_buffers=512MB",
      "-c maintenance_work_mem=512MB",
      "-c max_connections=30",
    ].join(" ");
    const [startCmd, startArgs] = pgCtl(["start", "-w", "-t", "120", "-l", logFile, "-o", options]);
    started = true;
    await tool(startCmd, startArgs, 150_000);
    log(`  postgis: PostgreSQL running on 127.0.0.1:${port} (${data})`);
    return {
      server: {
        host: "127.0.0.1",
        port,
        user: ROLE,
        database: "postgres",
        dir,
        async stop() {
          if (started) {
            const [cmd, args] = pgCtl(["stop", "-m", "fast", "-w", "-t", "60"]);
            await run(cmd, args, { timeout: 90_000 }).catch(() => undefined);
            started = false;
          }
          stopNow();
          unregister();
        },
      },
    };
  } catch (err) {
    const serverLog = existsSync(logFile) ? readFileSync(logFile, "utf8").slice(-2000) : "";
    stopNow();
    unregister();
    throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n${serverLog}`);
  }
}
