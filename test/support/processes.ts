// Real server processes for tests and benchmarks: each in its own process group, always stopped; free ports.
import { type ChildProcess, spawn } from "node:child_process";
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

/** A loopback port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
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
