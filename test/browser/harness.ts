// Browser test harness: `npm run dev` on a free port, a platform to work with, and headless Chromium.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContextOptions, chromium } from "playwright-core";
import { READY_BANNER } from "../../scripts/dev.ts";
import { parseDevVars } from "../../scripts/dev-vars.ts";
import { freePort, startProcess, waitForOutput } from "../support/processes.ts";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const CHROMIUM = "/usr/bin/chromium";
/** Local state of the test server, apart from the one a developer's `npm run dev` uses. */
const PERSIST_TO = join(ROOT, ".wrangler/browser-tests");
/** What the test server serves: its own copy of public/ with the SDKs, never the folder `npm run dev` serves. */
export const ASSETS = join(ROOT, ".wrangler/test-public");
const READY_TIMEOUT_MS = 170_000;

interface PlatformCreated {
  platform_id: string;
  api_key: string;
}

export interface Service {
  port: number;
  /** Where the pages are loaded from. */
  pageBase: string;
  /** Where the SDKs send requests: another origin than the pages, so CORS is exercised. */
  apiBase: string;
  platformId: string;
  apiKey: string;
  /** Everything the server printed, for failure messages. */
  log: () => string;
  stop: () => Promise<void>;
}

/** Runs `node args` (Node 22 from node_modules) to completion; throws with its output on failure. */
function runNode(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c));
    child.stderr.on("data", (c: Buffer) => (out += c));
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`node ${args.join(" ")} failed:\n${out}`)),
    );
  });
}

function readDevVars(): Record<string, string> {
  const path = join(ROOT, ".dev.vars");
  return existsSync(path) ? parseDevVars(readFileSync(path, "utf8")) : {};
}

async function waitUntilReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm run dev exited with ${child.exitCode}:\n${log()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the service did not answer ${url} within ${READY_TIMEOUT_MS / 1000} s:\n${log()}`);
}

/**
 * Builds the SDKs into the tests' own served folder, starts `npm run dev -- --port P --ip 127.0.0.1
 * --assets <that folder>` in its own process group, waits
 * for it, and creates a fresh platform with the admin API (falling back to the demo platform).
 */
export async function startService(): Promise<Service> {
  await runNode(["scripts/build-sdk.ts", "--out", ASSETS]);
  const port = await freePort();
  const server = startProcess(
    [
      "scripts/dev.ts",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      PERSIST_TO,
      "--assets",
      ASSETS,
      // The console's location links (docs/contract.md, section 10) are served only where a deployment turns them on.
      "--var",
      "HELD_ENABLED:true",
    ],
    ROOT,
    // Without the shipped directory: every line a page shows is one a test set (fictional 555 numbers).
    { CI: "true", BROWSER: "none", SOS_DEV_DIRECTORY: "off" },
  );
  const { child, stop } = server;
  const log = () => server.output().slice(-8000);

  try {
    const apiBase = `http://127.0.0.1:${port}`;
    await waitUntilReady(`${apiBase}/.well-known/jwks.json`, child, log);
    // The server answers while the PSAP data may still be loading: the banner says both are ready.
    await waitForOutput(server, READY_BANNER, READY_TIMEOUT_MS);
    // Without PSAP data every lookup fails later with a vague timeout: say so now, with the log.
    if (/loading (the demo|the real) PSAP data.* failed/.test(server.output())) {
      throw new Error(`npm run dev could not load its PSAP data:\n${log()}`);
    }
    const vars = readDevVars();
    let platformId = vars.DEMO_PLATFORM_ID ?? "";
    let apiKey = vars.DEMO_API_KEY ?? "";
    if (vars.ADMIN_TOKEN) {
      const res = await fetch(`${apiBase}/v1/admin/platforms`, {
        method: "POST",
        headers: { Authorization: `Bearer ${vars.ADMIN_TOKEN}`, "Content-Type": "application/json" },
        body: JSON.stringify({ name: "browser tests" }),
      });
      if (res.ok) ({ platform_id: platformId, api_key: apiKey } = (await res.json()) as PlatformCreated);
    }
    if (!platformId || !apiKey)
      throw new Error(`no platform to test with (admin API and .dev.vars failed):\n${log()}`);
    return { port, pageBase: `http://localhost:${port}`, apiBase, platformId, apiKey, log, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A browser context whose pages may read the given position (or none: geolocation refused). */
export function contextOptions(position?: { latitude: number; longitude: number; accuracy: number }) {
  const opts: BrowserContextOptions = { viewport: { width: 1100, height: 900 } };
  if (position) {
    opts.geolocation = position;
    opts.permissions = ["geolocation"];
  }
  return opts;
}

/** Polls `check` until it returns a truthy value; fails with `what` and the last value otherwise. */
export async function waitFor<T>(what: string, check: () => Promise<T> | T, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await check();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
}
