// How `npm run dev` talks and runs its helpers: prefixed lines, one error type, and child processes
// run with this same Node 22 and the project's node_modules/.bin first on PATH.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { track } from "./dev-stop.ts";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** A failure the developer can fix: reported as one line, never as a stack trace. */
export class DevError extends Error {
  override name = "DevError";
}

export function log(message: string): void {
  console.log(`[dev] ${message}`);
}

export function warn(message: string): void {
  console.warn(`[dev] WARNING: ${message}`);
}

export function childEnv(): NodeJS.ProcessEnv {
  const path = [dirname(process.execPath), join(ROOT, "node_modules", ".bin"), process.env.PATH ?? ""];
  return {
    ...process.env,
    PATH: path.join(delimiter),
    // The worker never reads `request.cf`: without this, wrangler fetches it from workers.cloudflare.com
    // on every start and, offline, prints that failure's stack trace (twice). Set it to true to fetch.
    CLOUDFLARE_CF_FETCH_ENABLED: process.env.CLOUDFLARE_CF_FETCH_ENABLED ?? "false",
  };
}

/** wrangler's CLI entry, to run with this Node whatever `node` the PATH holds. */
export function wranglerBin(): string {
  return join(dirname(createRequire(import.meta.url).resolve("wrangler/package.json")), "bin", "wrangler.js");
}

/**
 * Runs `node <args>` to completion with stdin closed (so nothing waits on a prompt). Quiet runs keep
 * their output for an error report; the others print straight to the terminal.
 */
export function runNode(
  args: string[],
  quiet = true,
): Promise<{ code: number; stdout: string; output: string }> {
  return new Promise((resolve, reject) => {
    const env = quiet
      ? { ...childEnv(), FORCE_COLOR: "0", NO_COLOR: "1", WRANGLER_SEND_METRICS: "false" }
      : childEnv();
    const child = track(
      spawn(process.execPath, args, {
        cwd: ROOT,
        env,
        stdio: ["ignore", quiet ? "pipe" : "inherit", quiet ? "pipe" : "inherit"],
      }),
    );
    let stdout = "";
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, output }));
  });
}

/** Runs a wrangler subcommand quietly; its output's tail goes into the error when it fails. */
export async function wrangler(args: string[], failure: string): Promise<string> {
  const result = await runNode([wranglerBin(), ...args]);
  if (result.code !== 0) {
    const tail = result.output.trimEnd().split("\n").slice(-25).join("\n    ");
    throw new DevError(`${failure} (exit code ${result.code}):\n    ${tail}`);
  }
  return result.output;
}
