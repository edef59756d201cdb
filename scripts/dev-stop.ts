// How `npm run dev` stops: every process it starts (the setup's wrangler and import runs, then `wrangler
// dev`, whose workerd is wrangler's own child) is tracked, and whichever process gets the signal, all stop.
//
// - Ctrl-C reaches the whole foreground group; SIGINT, SIGTERM or SIGHUP to this script alone is passed on.
// - A signal to npm's PID: npm passes it to the `sh -c` it runs the script in, which dies of it and leaves
//   this script orphaned (wrangler and workerd kept running). So the script watches its parent: once it is
//   gone (the script has been re-parented), it stops as if it had been sent SIGTERM.
// - wrangler stopped directly: it takes its workerd with it, and the script exits with its status.
import type { ChildProcess } from "node:child_process";
import { constants } from "node:os";

/** How often the parent is checked (a stop after npm died comes at most this late). */
const PARENT_CHECK_MS = 250;
/** After a stop, children still running this much later are killed. */
const KILL_AFTER_MS = 10_000;

const children = new Set<ChildProcess>();
let stopping: NodeJS.Signals | null = null;
/** The status to exit with once the children are gone: wrangler dev's own, when it was running. */
let exitCode: number | null = null;

/**
 * Tracks a child so that a stop reaches it; a child started after a stop is stopped at once. The script
 * exits with the `main` child's status (wrangler dev's) when a stop ends it.
 */
export function track(child: ChildProcess, main = false): ChildProcess {
  children.add(child);
  child.once("exit", (code, signal) => {
    children.delete(child);
    if (main) exitCode = code ?? (signal ? signalStatus(signal) : 1);
    if (stopping && children.size === 0) finish();
  });
  if (stopping) child.kill(stopping);
  return child;
}

/** 128 + the signal's number, as a shell reports a process killed by it. */
export function signalStatus(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}

function finish(): never {
  process.exit(exitCode ?? signalStatus(stopping ?? "SIGTERM"));
}

/** Stops every tracked child with `signal`, then exits once they are all gone. Later calls are ignored. */
export function stop(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = signal;
  if (children.size === 0) finish();
  for (const child of children) child.kill(signal);
  setTimeout(() => {
    for (const child of children) child.kill("SIGKILL");
  }, KILL_AFTER_MS).unref();
}

/** Exits with `code` once every child is gone (stopping those still running, as a stop does). */
export function exitAfterChildren(code: number): void {
  exitCode = code;
  stop("SIGTERM");
}

/**
 * Installs the handlers: the signals, and the parent watch. The listeners stay until the script exits,
 * so a second Ctrl-C (or one sent to the whole group) does not kill it before its children are gone.
 */
export function stopOnSignals(parent = process.ppid): void {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => stop(signal));
  setInterval(() => {
    if (process.ppid !== parent) stop("SIGTERM");
  }, PARENT_CHECK_MS).unref();
}
