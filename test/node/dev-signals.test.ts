// Stopping `npm run dev`: whichever of its processes a Ctrl-C or SIGTERM reaches (npm, the script,
// wrangler, workerd), every process it started stops, also during its setup. Run through the machine's
// npm, as a developer does, on the demo data in the tests' own state and served folder (never what a
// developer's `npm run dev` uses). Linux: the processes are found through /proc.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  firstAnswer,
  freePort,
  killGroup,
  type RunningProcess,
  waitForOutput,
} from "../support/processes.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** Apart from dev-script.test.ts's state: the two files run at once. */
const STATE = join(root, ".wrangler/dev-signals-tests");
const ASSETS = join(root, ".wrangler/test-public");
const RUN_TIMEOUT_MS = 240_000;
const started: RunningProcess[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((running) => running.stop()));
});

/** `npm run dev -- <flags>` in a process group of its own (the terminal's foreground group, as it were). */
function npmRunDev(flags: string[]): RunningProcess {
  // Under npm (npm test), npm's own CLI; run alone, the npm on the PATH.
  const npmCli = process.env.npm_execpath;
  const [command, args] = npmCli?.endsWith(".js")
    ? [process.execPath, [npmCli, "run", "dev", "--", ...flags]]
    : ["npm", ["run", "dev", "--", ...flags]];
  const child = spawn(command, args, {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
  });
  return wrap(child);
}

function wrap(child: ChildProcess): RunningProcess {
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const running: RunningProcess = {
    child,
    output: () => output,
    async stop() {
      // Whatever a failed test left: the group, and any process that escaped it.
      const left = child.pid === undefined ? [] : descendants(child.pid);
      killGroup(child, "SIGKILL");
      for (const pid of left) signal(pid, "SIGKILL");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    },
  };
  started.push(running);
  return running;
}

/** Parent pid of every process, from /proc. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ")".
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      map.set(Number(name), ppid);
    } catch {
      // gone meanwhile
    }
  }
  return map;
}

/** `pid` and every process below it. */
function descendants(pid: number): number[] {
  const map = parents();
  const found = [pid];
  for (let i = 0; i < found.length; i++)
    for (const [child, parent] of map) if (parent === found[i]) found.push(child);
  return found;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}

/** Every process whose command line names `path` (a test's own state folder). */
function processesOn(path: string): number[] {
  return [...parents().keys()].filter((pid) => pid !== process.pid && commandOf(pid).includes(path));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie (exited, not yet reaped) is gone for this purpose.
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone
  }
}

/** Starts `npm run dev` and waits for its banner; returns the processes it started, by role. */
async function serving(): Promise<{ running: RunningProcess; all: number[]; roles: Record<string, number> }> {
  const port = await freePort();
  const running = npmRunDev([
    "--port",
    String(port),
    "--ip",
    "127.0.0.1",
    "--persist-to",
    STATE,
    "--assets",
    ASSETS,
    "--demo",
  ]);
  await firstAnswer(`http://127.0.0.1:${port}/.well-known/jwks.json`, running, 180_000);
  await waitForOutput(running, "Create a session", 60_000);
  const all = descendants(running.child.pid ?? 0);
  const find = (pattern: RegExp) => all.find((pid) => pattern.test(commandOf(pid))) ?? 0;
  const roles = {
    npm: running.child.pid ?? 0,
    script: find(/scripts\/dev\.ts/),
    wrangler: find(/wrangler\/bin\/wrangler\.js dev/),
    workerd: find(/workerd serve/),
  };
  for (const [role, pid] of Object.entries(roles))
    expect(pid, `${role} in ${all.map(commandOf)}`).toBeGreaterThan(0);
  return { running, all, roles };
}

async function expectAllGone(pids: number[], timeout = 30_000): Promise<void> {
  await expect
    .poll(() => pids.filter(alive).map((pid) => `${pid} ${commandOf(pid)}`), { timeout, interval: 200 })
    .toEqual([]);
}

describe.skipIf(!existsSync("/proc/self/stat"))("stopping npm run dev", () => {
  it(
    "SIGTERM to npm's PID stops the script, wrangler and workerd",
    async () => {
      const { all, roles } = await serving();
      signal(roles.npm ?? 0, "SIGTERM");
      await expectAllGone(all);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "Ctrl-C (SIGINT to the whole foreground group) stops every process",
    async () => {
      const { running, all } = await serving();
      killGroup(running.child, "SIGINT");
      await expectAllGone(all);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "SIGTERM to wrangler stops workerd, the script and npm",
    async () => {
      const { all, roles } = await serving();
      signal(roles.wrangler ?? 0, "SIGTERM");
      await expectAllGone(all);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "SIGTERM to workerd (which then stops listening but stays alive) stops every process, saying why",
    async () => {
      const { running, all, roles } = await serving();
      signal(roles.workerd ?? 0, "SIGTERM");
      // The script notices after 10 s of refused connections.
      await expectAllGone(all, 60_000);
      expect(running.output()).toContain("refused connections for 10 s (its workerd was stopped): stopping");
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "SIGTERM to the script during its setup stops the wrangler and import runs it started",
    async () => {
      const fresh = mkdtempSync(join(tmpdir(), "dev-signals-"));
      try {
        const running = npmRunDev(["--persist-to", fresh, "--assets", ASSETS, "--demo"]);
        await waitForOutput(running, "[dev] loading the demo PSAP data", 120_000);
        const all = descendants(running.child.pid ?? 0);
        const script = all.find((pid) => /scripts\/dev\.ts/.test(commandOf(pid))) ?? 0;
        // Besides npm, sh and the script: the D1 step's wrangler and the import, at least.
        expect(all.length, all.map(commandOf).join("\n")).toBeGreaterThan(3);
        signal(script, "SIGTERM");
        await expectAllGone(all);
        // wrangler dev starts beside the import, so it may have come after the list above was taken: a
        // child started after a stop is stopped at once, so nothing is left running on this state either.
        await expectAllGone(processesOn(fresh));
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
    },
    RUN_TIMEOUT_MS,
  );
});
