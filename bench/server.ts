// Starts `wrangler dev` for the benchmarks with the bench entry (floor/: the real worker plus the
// floor object and the KV read timer): a free loopback port, its own state directory and secrets
// (the repository's .dev.vars is never touched), D1 migrations applied and KV loaded before it
// starts (two local runtimes on one state directory are flaky), and the whole process group
// stopped at the end, also on Ctrl-C or a crash.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBase62 } from "../src/auth/random.ts";
import { generateSigningJwk } from "../src/auth/signing-key-generation.ts";
import { freePort, killGroup } from "../test/support/processes.ts";
import { onTerminate } from "./cleanup.ts";
import { REPO_ROOT } from "./fcc.ts";
import { writeFloorConfig } from "./floor/config.ts";
import type { KvValue } from "./lookup-contenders.ts";

const WRANGLER = join(REPO_ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

export interface BenchServer {
  baseUrl: string;
  wsUrl: string;
  adminToken: string;
  /** Process id of wrangler (the group leader). */
  pid: number;
  /** Its temporary folder (config, secrets, local state), removed by stop(). */
  dir: string;
  /** The workerd processes: the one that runs the worker and its Durable Objects, and wrangler's proxy. */
  workerds(): Promise<Workerds>;
  stop(): Promise<void>;
}

export interface Workerds {
  /** Runs the worker and the Durable Objects (what the memory figure is about). */
  runtime: number | null;
  /** wrangler's proxy, listening on the public port and forwarding to the runtime. */
  proxy: number | null;
}

/** wrangler commands running now (migrations, KV loads): a run that ends early stops them too. */
const running = new Set<ChildProcess>();

/**
 * Runs wrangler with Node 22 (this process's node) in the repository, non-interactively, in a
 * process group of its own (local D1 and KV commands start a workerd: the group takes it along).
 */
function wrangler(args: string[], timeoutMs = 300_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRANGLER, ...args], {
      cwd: REPO_ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    });
    running.add(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    const timer = setTimeout(() => killGroup(child, "SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      if (code === 0) resolve(Buffer.concat(out).toString());
      else
        reject(
          new Error(
            `wrangler ${args.slice(0, 3).join(" ")} failed (${code ?? signal}):\n${Buffer.concat(err).toString().slice(-2000)}`,
          ),
        );
    });
  });
}

/** `wrangler kv bulk put` entries: text as is, bytes in base64. */
function bulkEntry(key: string, value: KvValue): { key: string; value: string; base64?: true } {
  return typeof value === "string"
    ? { key, value }
    : {
        key,
        value: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64"),
        base64: true,
      };
}

/**
 * Writes entries into the local KV of `persistTo`, in the given order (an index's buckets first and
 * its pointer last, like the import), in files of at most ~64 MB.
 */
export async function loadKv(
  entries: Iterable<readonly [string, KvValue]>,
  config: string,
  persistTo: string,
  dir: string,
): Promise<number> {
  let batch: ReturnType<typeof bulkEntry>[] = [];
  let size = 0;
  let files = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const file = join(dir, `kv-${files++}.json`);
    await writeFile(file, JSON.stringify(batch));
    await wrangler([
      "kv",
      "bulk",
      "put",
      file,
      "--binding",
      "PSAP_INDEX",
      "--local",
      "--persist-to",
      persistTo,
      "--config",
      config,
    ]);
    await rm(file);
    batch = [];
    size = 0;
  };
  let count = 0;
  for (const [key, value] of entries) {
    const e = bulkEntry(key, value);
    batch.push(e);
    size += e.value.length;
    count++;
    if (batch.length >= 5_000 || size >= 64e6) await flush();
  }
  await flush();
  return count;
}

/** Parent pid of a process (from /proc), or null. */
async function parentOf(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[1]);
  } catch {
    return null;
  }
}

/** Every process named `name` that descends from `root`. */
export async function findDescendants(root: number, name: string): Promise<number[]> {
  const out: number[] = [];
  for (const entry of await readdir("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === root) continue;
    let comm: string;
    try {
      comm = (await readFile(`/proc/${pid}/comm`, "utf8")).trim();
    } catch {
      continue;
    }
    if (comm !== name) continue;
    let p: number | null = pid;
    for (let depth = 0; p !== null && p > 1 && depth < 10; depth++) {
      p = await parentOf(p);
      if (p === root) {
        out.push(pid);
        break;
      }
    }
  }
  return out.sort((a, b) => a - b);
}

/** A process's command line (NUL-separated in /proc), or "". */
export async function commandLine(pid: number): Promise<string> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").join(" ");
  } catch {
    return "";
  }
}

/**
 * Tells wrangler's two workerd processes apart by their command lines: the proxy serves the public
 * port (`--socket-addr=entry=127.0.0.1:<port>`); the runtime, which runs the worker and its
 * Durable Objects, listens on a port of its own.
 */
export function classifyWorkerds(
  processes: readonly { pid: number; cmdline: string }[],
  port: number,
): Workerds {
  const publicSocket = `entry=127.0.0.1:${port}`;
  const proxy = processes.find((p) => p.cmdline.includes(publicSocket))?.pid ?? null;
  const others = processes.filter((p) => p.pid !== proxy);
  // If several remain, the one with an inspector is the user worker's runtime.
  const runtime = (others.find((p) => p.cmdline.includes("--inspector-addr")) ?? others[0])?.pid ?? null;
  return { runtime, proxy };
}

/** Resident memory of a process in MB (VmRSS), or NaN when it cannot be read. */
export async function rssMb(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

async function waitReady(baseUrl: string, child: ChildProcess, log: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${log()}`);
    try {
      const res = await fetch(`${baseUrl}/.well-known/jwks.json`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev did not answer within ${timeoutMs / 1000} s:\n${log()}`);
}

export interface ServerOptions {
  /** KV entries to load before the server starts (the index it serves, and any timed samples). */
  kv: Iterable<readonly [string, KvValue]>;
  log?: (line: string) => void;
  /** The folder to make the server's temporary folder in (bench/state-dir.ts); the system's by default. */
  stateDir?: string;
  /** Variables over wrangler.toml's (`--var`), e.g. LOST_ENABLED: routes a deployment turns on. */
  vars?: Readonly<Record<string, string>>;
}

/** Starts a seeded `wrangler dev`; always call `stop()` (in a finally). */
export async function startServer(options: ServerOptions): Promise<BenchServer> {
  const log = options.log ?? (() => {});
  const dir = mkdtempSync(join(options.stateDir ?? tmpdir(), "sos-bench-"));
  const persistTo = join(dir, "state");
  const { adminToken, envFile } = await writeSecrets(dir);
  const group = stoppable(dir);
  try {
    const config = writeFloorConfig(dir);
    await seedState(options.kv, config, persistTo, dir, log);
    const port = await freePort();
    const { child, output } = spawnWranglerDev({
      config,
      port,
      inspectorPort: await freePort(),
      persistTo,
      envFile,
      vars: options.vars ?? {},
    });
    group.child = child;
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitReady(baseUrl, child, () => output.join(""), 120_000);
    log(`  server: wrangler dev ready on ${baseUrl}`);
    const pid = child.pid ?? 0;
    return {
      baseUrl,
      wsUrl: `ws://127.0.0.1:${port}`,
      adminToken,
      pid,
      dir,
      async workerds() {
        const pids = await findDescendants(pid, "workerd");
        const processes = await Promise.all(
          pids.map(async (p) => ({ pid: p, cmdline: await commandLine(p) })),
        );
        return classifyWorkerds(processes, port);
      },
      stop: () => group.stop(),
    };
  } catch (err) {
    await group.stop();
    throw err;
  }
}

/** The server's own secrets, in an env file (the repository's .dev.vars is never touched). */
async function writeSecrets(dir: string): Promise<{ adminToken: string; envFile: string }> {
  const adminToken = randomBase62(32);
  const signingKey = await generateSigningJwk("bench-key");
  const envFile = join(dir, "bench.env");
  // Single quotes: dotenv keeps the JSON literally. --env-file makes wrangler skip .dev.vars.
  await writeFile(envFile, `ADMIN_TOKEN=${adminToken}\nJWT_SIGNING_KEY='${JSON.stringify(signingKey)}'\n`);
  return { adminToken, envFile };
}

/**
 * wrangler runs in its own process group (so the whole group can be stopped): the end of this process,
 * however it comes, must stop it too, or workerd would outlive the benchmark. `stop` ends the group
 * (SIGTERM, SIGKILL after 5 s) and removes the folder.
 */
function stoppable(dir: string): { child: ChildProcess | undefined; stop: () => Promise<void> } {
  const handle: { child: ChildProcess | undefined; stop: () => Promise<void> } = {
    child: undefined,
    stop: async () => {
      const c = handle.child;
      if (c) {
        killGroup(c, "SIGTERM");
        const exited = new Promise<void>((r) => {
          if (c.exitCode !== null || c.signalCode !== null) r();
          else c.once("exit", () => r());
        });
        const timer = new Promise<void>((r) => setTimeout(r, 5_000).unref());
        await Promise.race([exited, timer]);
        killGroup(c, "SIGKILL");
      }
      await rm(dir, { recursive: true, force: true });
      unregister();
    },
  };
  const unregister = onTerminate(() => {
    if (handle.child) killGroup(handle.child, "SIGKILL");
    for (const c of running) killGroup(c, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });
  return handle;
}

/** D1 migrations applied and KV loaded before the server starts (two local runtimes on one state directory are flaky). */
async function seedState(
  kv: ServerOptions["kv"],
  config: string,
  persistTo: string,
  dir: string,
  log: (line: string) => void,
): Promise<void> {
  log("  server: applying D1 migrations");
  await wrangler([
    "d1",
    "migrations",
    "apply",
    "DB",
    "--local",
    "--persist-to",
    persistTo,
    "--config",
    config,
  ]);
  const t = performance.now();
  const loaded = await loadKv(kv, config, persistTo, dir);
  log(
    `  server: ${loaded} KV entries loaded in ${((performance.now() - t) / 1000).toFixed(1)} s, starting wrangler dev`,
  );
}

/** `wrangler dev` in a process group of its own, its last output kept for an error message. */
function spawnWranglerDev(at: {
  config: string;
  port: number;
  inspectorPort: number;
  persistTo: string;
  envFile: string;
  vars: Readonly<Record<string, string>>;
}): { child: ChildProcess; output: string[] } {
  const args = [
    WRANGLER,
    "dev",
    "--config",
    at.config,
    "--ip",
    "127.0.0.1",
    "--port",
    String(at.port),
    "--inspector-port",
    String(at.inspectorPort),
    "--persist-to",
    at.persistTo,
    "--env-file",
    at.envFile,
    "--show-interactive-dev-session=false",
    "--live-reload=false",
    "--log-level",
    "warn",
    ...Object.entries(at.vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  ];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // X_LOCAL_OBSERVABILITY=false: wrangler's local trace collector (for its explorer UI) records and
    // stores every invocation's spans in the same workerd thread, about a sixth of that thread under
    // the storm; a deployed worker has nothing like it in its thread. The floor is timed without it too.
    env: {
      ...process.env,
      CI: "1",
      WRANGLER_SEND_METRICS: "false",
      NO_COLOR: "1",
      X_LOCAL_OBSERVABILITY: "false",
    },
  });
  const output: string[] = [];
  const keep = (b: Buffer) => {
    output.push(b.toString());
    if (output.length > 200) output.shift();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return { child, output };
}
