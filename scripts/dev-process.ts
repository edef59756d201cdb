// Child processes and ports for `npm run dev`: wrangler subcommands run quietly, free-port search, readiness wait.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * The environment for every child: this Node (22) and the project's node_modules/.bin first on PATH,
 * so a child that runs `node`, `npx` or `wrangler` gets the same versions even when this script was
 * started as `node scripts/dev.ts` rather than through `npm run dev`.
 */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const path = [dirname(process.execPath), join(root, "node_modules", ".bin"), process.env.PATH ?? ""].join(
    delimiter,
  );
  return { ...process.env, PATH: path, ...extra };
}

/** wrangler's CLI entry, run with this same Node (22), whatever `node` the PATH holds. */
export function wranglerBin(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("wrangler/package.json")), "bin", "wrangler.js");
}

export interface RunResult {
  code: number;
  stdout: string;
  /** stdout and stderr interleaved, for error reports. */
  output: string;
}

/**
 * Runs `node <args>` to completion with stdin closed (so wrangler never waits on a prompt) and its
 * output captured; the caller decides what to show.
 */
export function runQuiet(args: readonly string[], cwd: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: quietEnv() });
    let stdout = "";
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ code: code ?? (signal === null ? 1 : 128), stdout, output }),
    );
  });
}

/** Runs a command with the terminal attached (for steps whose own output is the report); resolves its exit code. */
export function runVisible(command: string, args: readonly string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "inherit", "inherit"], env: childEnv() });
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? 1));
  });
}

function quietEnv(): NodeJS.ProcessEnv {
  // No colours and no telemetry notice in captured output.
  return childEnv({ FORCE_COLOR: "0", NO_COLOR: "1", WRANGLER_SEND_METRICS: "false" });
}

/** Whether `port` can be bound on `host` right now. */
export function isPortFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The first free port from `start` on, trying `attempts` ports (wrangler tries 10 past 8787 too). */
export async function findFreePort(start: number, host: string, attempts = 10): Promise<number | null> {
  for (let port = start; port < start + attempts && port <= 65_535; port++) {
    if (await isPortFree(port, host)) return port;
  }
  return null;
}

/** Resolves true once something accepts TCP connections on host:port (no HTTP request, so no log line). */
export async function waitForPort(
  port: number,
  host: string,
  timeoutMs: number,
  stop: () => boolean,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stop()) {
    if (await canConnect(port, host)) return true;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return false;
}

function canConnect(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** The last `count` lines of a command's output, indented, for an error report. */
export function tail(output: string, count = 25): string {
  const lines = output.trimEnd().split("\n");
  return lines
    .slice(-count)
    .map((line) => `    ${line}`)
    .join("\n");
}
