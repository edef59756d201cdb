// Real server processes for tests and benchmarks: each in its own process group, always stopped; free ports.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

export interface RunningProcess {
  child: ChildProcess;
  /** Everything the process wrote so far, stdout and stderr together. */
  output(): string;
  /** Stops the whole process group (wrangler, workerd...): SIGTERM, then SIGKILL after a grace period. */
  stop(): Promise<void>;
}

/** Runs `node args` (this Node, so Node 22 from node_modules) in `cwd`, in a process group of its own. */
export function startProcess(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): RunningProcess {
  const child = spawn(process.execPath, args, {
    cwd,
    detached: true, // its own process group, so stop() reaches wrangler's children too
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1", ...env },
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    output: () => output,
    async stop() {
      killGroup(child, "SIGTERM");
      const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 10_000));
      await Promise.race([exited, timer]);
      killGroup(child, "SIGKILL"); // whatever is left of the group (ESRCH when nothing is)
      await exited;
    },
  };
}

/** Signals a child's whole process group (it must have been spawned `detached`); quiet when it is gone. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}

/**
 * A loopback port nobody listens on right now, below the system's ephemeral range. The port is
 * released before the server binds it, and a server starting beside it (wrangler, workerd, a
 * browser) binds ports of its own with port 0, which the system takes from its ephemeral range:
 * chosen from there, our port could be handed to one of those in the meantime ("Address already in
 * use"). Below that range only another caller of this function can take it, one in thousands.
 */
export async function freePort(): Promise<number> {
  const [low, high] = portRange();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${low} and ${high} after 50 tries`);
}

/** [low, high) to choose from: the registered ports below the system's ephemeral range (Linux: 32768). */
function portRange(): [number, number] {
  let ephemeralLow = 32_768;
  try {
    const first = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0],
    );
    if (Number.isInteger(first) && first > 12_000) ephemeralLow = first;
  } catch {
    // not Linux: the IANA ephemeral range starts at 49152, so 32768 stays below it
  }
  return [ephemeralLow - 12_000, ephemeralLow];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** The first HTTP answer from `url` (any status), polling until `timeoutMs`; fails with the process output. */
export async function firstAnswer(
  url: string,
  running: RunningProcess,
  timeoutMs: number,
): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null) {
      throw new Error(
        `the process exited (${running.child.exitCode}) before answering:\n${running.output()}`,
      );
    }
    try {
      return await fetch(url, { signal: AbortSignal.timeout(5_000) });
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`no answer from ${url} within ${timeoutMs} ms:\n${running.output()}`);
}

/** Waits until the process output contains `text`. */
export async function waitForOutput(running: RunningProcess, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!running.output().includes(text)) {
    if (Date.now() > deadline) throw new Error(`"${text}" never appeared in:\n${running.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
