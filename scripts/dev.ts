// `npm run dev [-- --demo] [-- wrangler dev flags]`: prepares what local development needs, then runs
// `wrangler dev`: .dev.vars (secrets and the demo platform), local D1 migrations and the demo platform's
// rows, PSAP data if the local index is empty (the real registry from data/bundle, or the demo set with
// --demo), the SDK build; then the server, and a banner once it answers.
// Every step is idempotent: a second run reuses what the first made.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { constants } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type DemoPlatform, demoLinks, demoPlatformSql } from "./dev-demo.ts";
import { FULL_RESOLUTION_IMPORT, loadPsapData } from "./dev-psap-data.ts";
import { childEnv, DevError, log, ROOT, runNode, warn, wrangler, wranglerBin } from "./dev-run.ts";
import { prepareDevVars } from "./dev-vars.ts";

const DEFAULT_PORT = 8787;
/** wrangler's own default host. */
const DEFAULT_HOST = "localhost";

export interface DevFlags {
  port?: number;
  ip: string;
  protocol: "http" | "https";
  persistTo?: string;
  /** `--persist-to`, `--config`, `--env`: the setup commands must touch what `wrangler dev` will use. */
  shared: string[];
}

/** The `wrangler dev` flags that matter here (every flag still reaches wrangler untouched). */
export function readDevFlags(args: string[]): DevFlags {
  const { values } = parseArgs({
    args,
    strict: false,
    allowPositionals: true,
    options: {
      port: { type: "string" },
      ip: { type: "string" },
      "local-protocol": { type: "string" },
      "persist-to": { type: "string" },
      config: { type: "string", short: "c" },
      env: { type: "string", short: "e" },
    },
  });
  // A flag of ours without its value: parseArgs (not strict, as wrangler's flags are unknown to it) says `true`.
  const text = (name: string): string | undefined => {
    const value = values[name];
    if (value === true) throw new DevError(`--${name} needs a value`);
    return typeof value === "string" ? value : undefined;
  };
  const port = text("port");
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) <= 65_535)) {
    throw new DevError(`--port must be a port number (0-65535), not "${port}"`);
  }
  const protocol = text("local-protocol") ?? "http";
  if (protocol !== "http" && protocol !== "https")
    throw new DevError('--local-protocol must be "http" or "https"');
  const shared = (["persist-to", "config", "env"] as const).flatMap((name) => {
    const value = text(name);
    return value === undefined ? [] : [`--${name}`, value];
  });
  return {
    port: port === undefined ? undefined : Number(port),
    ip: text("ip") ?? DEFAULT_HOST,
    protocol,
    persistTo: text("persist-to"),
    shared,
  };
}

/** The URL a browser on this machine uses: a wildcard address is reached as localhost. */
export function serverUrl(flags: Pick<DevFlags, "ip" | "protocol">, port: number): string {
  const host = ["*", "0.0.0.0", "::", "[::]"].includes(flags.ip) ? "localhost" : flags.ip;
  return `${flags.protocol}://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

async function main(argv: string[]): Promise<number> {
  const started = Date.now();
  // `--demo` is ours (load the demo PSAP set instead of the real bundle); everything else goes to wrangler.
  const demoData = argv.includes("--demo");
  const args = argv.filter((a) => a !== "--demo");
  const flags = readDevFlags(args);
  const { secrets, created } = await prepareDevVars(join(ROOT, ".dev.vars"));
  log(
    created.length > 0
      ? `.dev.vars: wrote ${created.join(", ")}`
      : ".dev.vars: reusing ADMIN_TOKEN, JWT_SIGNING_KEY and the demo platform",
  );
  const demo: DemoPlatform = { platformId: secrets.DEMO_PLATFORM_ID, apiKey: secrets.DEMO_API_KEY };
  // One after the other: each step runs wrangler's local runtime on the same state directory.
  await wrangler(
    ["d1", "migrations", "apply", "DB", "--local", ...flags.shared],
    "applying the local D1 migrations failed",
  );
  await wrangler(
    ["d1", "execute", "DB", "--local", "--command", await demoPlatformSql(demo), ...flags.shared],
    "writing the demo platform to the local D1 failed",
  );
  log(`D1: migrations applied, demo platform ${demo.platformId} ready`);
  const psapData = await loadPsapData(flags.persistTo, demoData);
  if (psapData) log(`PSAP data: ${psapData.dataVersion}, ${psapData.psaps} PSAPs`);
  // What the pages need from the build: the modules, their typings, the console map's county outlines.
  const built = ["public/sdk/patient.js", "public/sdk/patient.d.ts", "public/demo/counties/IL.json"];
  if (!built.every((file) => existsSync(join(ROOT, file)))) {
    log("public/sdk or public/demo/counties is missing: building the SDKs");
    if ((await runNode([join(ROOT, "scripts/build-sdk.ts")], false)).code !== 0)
      warn("building the SDKs failed");
  }

  // Left alone, wrangler moves on silently when 8787 is taken: choose the port, so the banner is right.
  const port =
    flags.port ?? (await freePort(flags.ip === "*" ? "0.0.0.0" : flags.ip.replace(/^\[|\]$/g, "")));
  const url = serverUrl(flags, port);
  log(`setup done in ${((Date.now() - started) / 1000).toFixed(1)} s; starting wrangler dev on ${url}`);
  const wranglerArgs = ["dev", ...args, ...(flags.port === undefined ? ["--port", String(port)] : [])];
  return runWranglerDev(
    wranglerArgs,
    async () => {
      const rows: [string, string][] = [
        ["Server", url],
        ["Admin token", "ADMIN_TOKEN in .dev.vars (Authorization: Bearer ...)"],
        ["Demo platform", demo.platformId],
        ["Demo API key", `${demo.apiKey} (X-API-Key)`],
        [
          "PSAP data",
          psapData
            ? `${psapData.dataVersion}: ${psapData.psaps} PSAPs`
            : "none loaded (see the warning above)",
        ],
        ...(await demoLinks(url, demo)),
      ];
      const width = Math.max(...rows.map(([label]) => label.length));
      const body = JSON.stringify({ meeting_id: "m1", counselor_id: "c1", patient_id: "p1" });
      console.log(
        [
          "",
          "  SOS service: local development",
          "",
          ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
          "",
          "  Full-resolution or newer registry (replaces the loaded index):",
          `  ${FULL_RESOLUTION_IMPORT}`,
          "  Demo PSAPs instead (fictional, 50 metros): npm run psap:import -- --demo",
          "",
          "  Create a session:",
          `  curl -X POST ${url}/v1/platforms/${demo.platformId}/sessions -H 'X-API-Key: ${demo.apiKey}' -H 'Content-Type: application/json' -d '${body}'`,
          "",
        ].join("\n"),
      );
    },
    url,
  );
}

/** The first free port from 8787 on (wrangler tries ten too). */
async function freePort(host: string): Promise<number> {
  for (let port = DEFAULT_PORT; port < DEFAULT_PORT + 10; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new DevError(`ports ${DEFAULT_PORT}-${DEFAULT_PORT + 9} are all taken: pass --port <n>`);
}

/**
 * Runs `wrangler dev` on the terminal, passes SIGINT/SIGTERM/SIGHUP on, calls `onReady` once the server
 * answers, and resolves with wrangler's exit code (128 + the signal's number if it was killed).
 */
function runWranglerDev(args: string[], onReady: () => Promise<void>, url: string): Promise<number> {
  const child = spawn(process.execPath, [wranglerBin(), ...args], {
    cwd: ROOT,
    stdio: "inherit",
    env: childEnv(),
  });
  // The listeners stay until this process exits: a signal that comes after wrangler has gone (a second
  // Ctrl-C, or one sent to the whole process group) is ignored, so this script still exits with
  // wrangler's status instead of being killed by it on its way out.
  const forward = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, forward);
  const exited = new Promise<number>((resolve, reject) => {
    child.on("error", (error) => reject(new DevError(`could not start wrangler dev: ${error.message}`)));
    child.on("exit", (code, signal) => {
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
  // Any answer will do: wrangler's proxy holds the first request until the worker is built.
  const answered = (async () => {
    for (let attempt = 0; attempt < 300 && child.exitCode === null; attempt++) {
      try {
        await (
          await fetch(`${url}/.well-known/jwks.json`, { signal: AbortSignal.timeout(60_000) })
        ).body?.cancel();
        return true;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    }
    return false;
  })();
  answered
    .then((up) => (up && child.exitCode === null ? onReady() : undefined))
    .catch((error: unknown) => warn(`could not print the banner: ${String(error)}`));
  return exited;
}

// Only as a script: tests import readDevFlags and serverUrl.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof DevError ? `[dev] ${error.message}` : error);
      process.exit(1);
    },
  );
}
