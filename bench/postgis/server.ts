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
  const cluster = new Cluster(binDir);
  const unregister = onTerminate(() => cluster.removeNow());
  try {
    await cluster.init();
    const port = await freePort();
    await cluster.start(port);
    log(`  postgis: PostgreSQL running on 127.0.0.1:${port} (${cluster.data})`);
    return {
      server: {
        host: "127.0.0.1",
        port,
        user: ROLE,
        database: "postgres",
        dir: cluster.dir,
        async stop() {
          await cluster.stop();
          unregister();
        },
      },
    };
  } catch (err) {
    const serverLog = existsSync(cluster.logFile) ? readFileSync(cluster.logFile, "utf8").slice(-2000) : "";
    cluster.removeNow();
    unregister();
    throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n${serverLog}`);
  }
}

/** Server options: a disposable bench database on the loopback, its socket in its own folder. */
function serverOptions(port: number, dir: string): string {
  return [
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
}

/** One database cluster in a temporary folder: made, started, stopped, and removed with its folder. */
class Cluster {
  readonly dir: string;
  readonly data: string;
  readonly logFile: string;
  readonly #binDir: string;
  /** As root, every tool runs as `postgres` (initdb refuses root, and the folder is that user's). */
  readonly #ids: { uid: number; gid: number } | null;
  #started = false;
  /** The tool running now (initdb, pg_ctl): an early end stops it before the folder goes. */
  #current: ChildProcess | undefined;

  constructor(binDir: string) {
    this.#binDir = binDir;
    this.#ids = process.getuid?.() === 0 ? postgresIds() : null;
    this.dir = mkdtempSync(join(tmpdir(), "sos-bench-pg-"));
    if (this.#ids) chownSync(this.dir, this.#ids.uid, this.#ids.gid);
    this.data = join(this.dir, "data");
    this.logFile = join(this.dir, "server.log");
  }

  async init(): Promise<void> {
    const args = ["-D", this.data, "-U", ROLE, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"];
    await this.#tool(...this.#command("initdb", args), 120_000);
  }

  async start(port: number): Promise<void> {
    const options = serverOptions(port, this.dir);
    this.#started = true;
    await this.#tool(
      ...this.#pgCtl(["start", "-w", "-t", "120", "-l", this.logFile, "-o", options]),
      150_000,
    );
  }

  /** A fast shutdown, then the folder goes. */
  async stop(): Promise<void> {
    if (this.#started) {
      const [cmd, args] = this.#pgCtl(["stop", "-m", "fast", "-w", "-t", "60"]);
      await run(cmd, args, { timeout: 90_000 }).catch(() => undefined);
      this.#started = false;
    }
    this.removeNow();
  }

  /** At once (a signal, a failed start): the tool running is stopped, the server shut down immediately, the folder removed. */
  removeNow(): void {
    // SIGTERM: runuser passes it on to the tool it runs.
    this.#current?.kill("SIGTERM");
    if (this.#started) {
      const [cmd, args] = this.#pgCtl(["stop", "-m", "immediate", "-w", "-t", "20"]);
      spawnSync(cmd, args, { stdio: "ignore", timeout: 30_000 });
      this.#started = false;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  #command(tool: string, args: string[]): [string, string[]] {
    const path = join(this.#binDir, tool);
    return this.#ids ? ["runuser", ["-u", "postgres", "--", path, ...args]] : [path, args];
  }

  #pgCtl(args: string[]): [string, string[]] {
    return this.#command("pg_ctl", ["-D", this.data, ...args]);
  }

  async #tool(cmd: string, args: string[], timeout: number) {
    const p = run(cmd, args, { timeout });
    this.#current = p.child;
    try {
      return await p;
    } finally {
      this.#current = undefined;
    }
  }
}
