// Starts `wrangler dev` for the benchmarks: a free loopback port, its own state directory and secrets
// (the repository's .dev.vars is never touched), D1 migrations and a PSAP index loaded, and the whole
// process group stopped at the end.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { randomBase62 } from "../src/auth/random.ts";
import { generateSigningJwk } from "../src/auth/signing-key-generation.ts";
import type { BuiltIndex } from "../src/psap/index.ts";
import { freePort, killGroup } from "../test/support/processes.ts";
import { REPO_ROOT } from "./fcc.ts";

const run = promisify(execFile);
const WRANGLER = join(REPO_ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

export interface BenchServer {
  baseUrl: string;
  wsUrl: string;
  adminToken: string;
  /** Process id of wrangler (the group leader). */
  pid: number;
  /** The workerd process serving the worker, if found. */
  workerdPid(): Promise<number | null>;
  stop(): Promise<void>;
}

/** Runs wrangler with Node 22 (this process's node) in the repository, non-interactively. */
async function wrangler(args: string[], timeoutMs = 180_000): Promise<string> {
  const { stdout } = await run(process.execPath, [WRANGLER, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** Writes an index into the local KV of `persistTo` (buckets first, the pointer last, like the import). */
export async function loadIndex(index: BuiltIndex, persistTo: string, dir: string): Promise<void> {
  const buckets = [...index.buckets].map(([key, value]) => ({ key, value }));
  const chunk = 5_000;
  for (let i = 0; i < buckets.length; i += chunk) {
    const file = join(dir, `kv-${i}.json`);
    await writeFile(file, JSON.stringify(buckets.slice(i, i + chunk)));
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
    ]);
    await rm(file);
  }
  const pointer = join(dir, "kv-pointer.json");
  await writeFile(pointer, JSON.stringify([{ key: index.pointerKey, value: index.pointerValue }]));
  await wrangler([
    "kv",
    "bulk",
    "put",
    pointer,
    "--binding",
    "PSAP_INDEX",
    "--local",
    "--persist-to",
    persistTo,
  ]);
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

/** The first process named `name` that descends from `root`. */
export async function findDescendant(root: number, name: string): Promise<number | null> {
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
      if (p === root) return pid;
    }
  }
  return null;
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

/** Starts a seeded `wrangler dev`; always call `stop()` (in a finally). */
export async function startServer(
  index: BuiltIndex,
  log: (line: string) => void = () => {},
): Promise<BenchServer> {
  const dir = await mkdtemp(join(tmpdir(), "sos-bench-"));
  const persistTo = join(dir, "state");
  const adminToken = randomBase62(32);
  const signingKey = await generateSigningJwk("bench-key");
  const envFile = join(dir, "bench.env");
  // Single quotes: dotenv keeps the JSON literally. --env-file makes wrangler skip .dev.vars.
  await writeFile(envFile, `ADMIN_TOKEN=${adminToken}\nJWT_SIGNING_KEY='${JSON.stringify(signingKey)}'\n`);
  let child: ChildProcess | undefined;
  // wrangler runs in its own process group (so the whole group can be stopped): a Ctrl-C or a crash
  // of this process must stop it too, or workerd would outlive the benchmark.
  const onExit = () => {
    if (child) killGroup(child, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    onExit();
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("exit", onExit);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const cleanup = async () => {
    process.off("exit", onExit);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    if (child) {
      const c = child;
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
  };
  try {
    log("  server: applying D1 migrations");
    await wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo]);
    log(`  server: loading the PSAP index (${index.buckets.size} buckets) into local KV`);
    await loadIndex(index, persistTo, dir);
    log("  server: index loaded, starting wrangler dev");
    const port = await freePort();
    const inspectorPort = await freePort();
    const output: string[] = [];
    child = spawn(
      process.execPath,
      [
        WRANGLER,
        "dev",
        "--ip",
        "127.0.0.1",
        "--port",
        String(port),
        "--inspector-port",
        String(inspectorPort),
        "--persist-to",
        persistTo,
        "--env-file",
        envFile,
        "--show-interactive-dev-session=false",
        "--live-reload=false",
        "--log-level",
        "warn",
      ],
      {
        cwd: REPO_ROOT,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
      },
    );
    const keep = (b: Buffer) => {
      output.push(b.toString());
      if (output.length > 200) output.shift();
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitReady(baseUrl, child, () => output.join(""), 90_000);
    log(`  server: wrangler dev ready on ${baseUrl}`);
    const pid = child.pid ?? 0;
    return {
      baseUrl,
      wsUrl: `ws://127.0.0.1:${port}`,
      adminToken,
      pid,
      workerdPid: () => findDescendant(pid, "workerd"),
      stop: cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
