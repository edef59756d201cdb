// `npm run dev` (scripts/dev.ts) for an end-to-end test: on a free loopback port, with its own local state,
// ready once it prints its banner (it answers, and its PSAP data is loaded); its admin token read from the .dev.vars it wrote. Always stopped by the caller.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { READY_BANNER } from "../../scripts/dev.ts";
import { parseDevVars } from "../../scripts/dev-vars.ts";
import { firstAnswer, freePort, type RunningProcess, startProcess, waitForOutput } from "./processes.ts";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface DevServer {
  base: string;
  adminToken: string;
  process: RunningProcess;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  /** Local state under .wrangler/ (kept between runs, so the PSAP data loads once). */
  stateName: string;
  /** More flags for scripts/dev.ts and wrangler (`--demo`, `--var NAME:value`...). */
  args?: string[];
  readyTimeoutMs: number;
}

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const port = await freePort();
  const running = startProcess(
    [
      "scripts/dev.ts",
      ...(options.args ?? []),
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      join(ROOT, ".wrangler", options.stateName),
    ],
    ROOT,
    { CI: "true", BROWSER: "none" },
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    // Any answer of the worker's own: the JWKS route reads nothing but the signing key.
    for (;;) {
      const res = await firstAnswer(`${base}/.well-known/jwks.json`, running, options.readyTimeoutMs);
      if (res.ok) break;
    }
    // The server answers while the PSAP data may still be loading: the banner says both are ready.
    await waitForOutput(running, READY_BANNER, options.readyTimeoutMs);
  } catch (error) {
    await running.stop();
    throw error;
  }
  const adminToken = parseDevVars(readFileSync(join(ROOT, ".dev.vars"), "utf8")).ADMIN_TOKEN ?? "";
  return { base, adminToken, process: running, stop: () => running.stop() };
}

/** A JSON request to a server at `base`: its status and its parsed body (null when empty). */
export async function callJson<T>(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}
