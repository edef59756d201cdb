// `npm run dev [-- --demo] [-- wrangler dev flags]`: prepares what local development needs and runs
// `wrangler dev`: .dev.vars (secrets and the demo platform), local D1 migrations and the demo platform's
// rows, the SDK build when missing; then the server, while the PSAP data asked for (the real registry from
// data/bundle, or the demo set with --demo) is still being imported; and a banner once the server answers
// and the data is in. Every step is idempotent: a second run reuses what the first made. Whichever process
// a Ctrl-C or SIGTERM reaches, every process this script started stops (scripts/dev-stop.ts).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type DemoPlatform, demoLinks, demoPlatformSql } from "./dev-demo.ts";
import { BindingsShownOnce } from "./dev-output.ts";
import { DEMO_DATA_VERSION, FULL_RESOLUTION_IMPORT, loadPsapData } from "./dev-psap-data.ts";
import { childEnv, DevError, log, ROOT, runNode, warn, wrangler, wranglerBin } from "./dev-run.ts";
import { exitAfterChildren, signalStatus, stop, stopOnSignals, track } from "./dev-stop.ts";
import { prepareDevVars } from "./dev-vars.ts";

const DEFAULT_PORT = 8787;
/**
 * The banner's first words: printed once the server answers and the PSAP data is loaded. A test waits for
 * them, not for the server's first answer (the server starts while the data still loads).
 */
export const READY_BANNER = "SOS service: local development (ready";
/** wrangler's own default host. */
const DEFAULT_HOST = "localhost";

export interface DevFlags {
  port?: number;
  ip: string;
  protocol: "http" | "https";
  persistTo?: string;
  /** wrangler's `--assets`: the folder served instead of wrangler.toml's (a test's own copy of public/). */
  assets?: string;
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
      assets: { type: "string" },
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
    assets: text("assets"),
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
  // `--demo` is ours (serve the demo PSAP set instead of the real bundle); everything else goes to wrangler.
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
  // The PSAP import, by far the longest step, runs beside the server's own start: wrangler dev needs
  // only the D1 tables and the pages. Until the import ends a lookup answers 503 psap_index_unavailable,
  // and the banner, which says the service is ready, waits for it. The D1 steps and the import each run
  // wrangler's local runtime on the same state folder, but on different stores (D1, KV).
  const psapLoading = loadPsapData(flags.persistTo, demoData);
  await Promise.all([prepareD1(demo, flags), buildIfMissing(flags.assets)]);

  // Left alone, wrangler moves on silently when 8787 is taken: choose the port, so the banner is right.
  const port =
    flags.port ?? (await freePort(flags.ip === "*" ? "0.0.0.0" : flags.ip.replace(/^\[|\]$/g, "")));
  const url = serverUrl(flags, port);
  log(`starting wrangler dev on ${url} after ${seconds(started)} s; the PSAP data is still loading`);
  const wranglerArgs = ["dev", ...args, ...(flags.port === undefined ? ["--port", String(port)] : [])];
  return runWranglerDev(
    wranglerArgs,
    async () => {
      const psapData = await psapLoading;
      if (psapData) log(`PSAP data: ${psapData.dataVersion}, ${psapData.psaps} PSAPs`);
      const phones = await phoneCoverage(url, secrets.ADMIN_TOKEN);
      console.log(
        banner({
          url,
          demo,
          psapData,
          phones,
          links: await demoLinks(url, demo),
          seconds: (Date.now() - started) / 1000,
        }),
      );
    },
    url,
  );
}

function seconds(since: number): string {
  return ((Date.now() - since) / 1000).toFixed(1);
}

/** The local D1 tables (migrations) and the demo platform's rows. */
async function prepareD1(demo: DemoPlatform, flags: DevFlags): Promise<void> {
  await wrangler(
    ["d1", "migrations", "apply", "DB", "--local", ...flags.shared],
    "applying the local D1 migrations failed",
  );
  await wrangler(
    ["d1", "execute", "DB", "--local", "--command", await demoPlatformSql(demo), ...flags.shared],
    "writing the demo platform to the local D1 failed",
  );
  log(`D1: migrations applied, demo platform ${demo.platformId} ready`);
}

/** What the pages need from the build: the modules, their typings, the map's outlines, Swagger UI for /docs. */
const BUILT = [
  "sdk/patient.js",
  "sdk/patient.d.ts",
  "demo/counties/IL.json",
  "docs/swagger-ui/swagger-ui.css",
];

/** Builds the SDKs into the served folder (wrangler's --assets, else public/) when it lacks them. */
async function buildIfMissing(assets: string | undefined): Promise<void> {
  const out = resolve(ROOT, assets ?? "public");
  if (BUILT.every((file) => existsSync(join(out, file)))) return;
  log(`${assets ?? "public"}/sdk, demo/counties or docs/swagger-ui is missing: building the SDKs`);
  if ((await runNode([join(ROOT, "scripts/build-sdk.ts"), "--out", out], false)).code !== 0)
    warn("building the SDKs failed");
}

/** The contact directory's coverage (GET /v1/admin/psaps/coverage), or null when it cannot be read. */
export async function phoneCoverage(url: string, adminToken: string): Promise<BannerFacts["phones"]> {
  try {
    const res = await fetch(`${url}/v1/admin/psaps/coverage`, {
      headers: { Authorization: `Bearer ${adminToken}` },
      signal: AbortSignal.timeout(30_000),
    });
    if (!res.ok) return null;
    const body = (await res.json()) as { psaps?: unknown; with_phone?: unknown; with_24x7?: unknown };
    return typeof body.psaps === "number" &&
      typeof body.with_phone === "number" &&
      typeof body.with_24x7 === "number"
      ? { psaps: body.psaps, with_phone: body.with_phone, with_24x7: body.with_24x7 }
      : null;
  } catch {
    return null;
  }
}

export interface BannerFacts {
  url: string;
  demo: DemoPlatform;
  psapData: { dataVersion: string; psaps: number } | null;
  /** PSAPs, those with any line, those with a 24/7 line (emergency or dispatch): the coverage route's. */
  phones: { psaps: number; with_phone: number; with_24x7: number } | null;
  links: [string, string][];
  seconds: number;
}

/** The phone-number line: how many centres have a number, and what to do when none (or few) do. */
export function phoneLine(phones: BannerFacts["phones"]): string {
  if (!phones) return "unknown (the coverage route did not answer)";
  const share = phones.psaps === 0 ? 0 : (100 * phones.with_phone) / phones.psaps;
  const figure = `${phones.with_phone.toLocaleString("en-US")} of ${phones.psaps.toLocaleString("en-US")} centres (${share.toFixed(share > 0 && share < 1 ? 1 : 0)} %)`;
  return phones.with_phone === 0
    ? `no numbers on file, ${figure}: import the PSAP directory (data/README.md, "Lines")`
    : `${figure} have a number on file, ${phones.with_24x7.toLocaleString("en-US")} a 24/7 line`;
}

/** The banner `npm run dev` prints once the server answers. */
export function banner(f: BannerFacts): string {
  const rows: [string, string][] = [
    ["Server", f.url],
    ["Admin token", "ADMIN_TOKEN in .dev.vars (Authorization: Bearer ...)"],
    ["Demo platform", f.demo.platformId],
    ["Demo API key", `${f.demo.apiKey} (X-API-Key)`],
    [
      "PSAP data",
      f.psapData
        ? `${f.psapData.dataVersion}: ${f.psapData.psaps} PSAPs`
        : "none loaded (see the warning above)",
    ],
    ["Phone numbers", phoneLine(f.phones)],
    ...f.links,
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const body = JSON.stringify({ meeting_id: "m1", counselor_id: "c1", patient_id: "p1" });
  const demoData = f.psapData?.dataVersion === DEMO_DATA_VERSION;
  return [
    "",
    `  ${READY_BANNER} in ${f.seconds.toFixed(1)} s)`,
    "",
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
    "",
    "  Full-resolution or newer registry (replaces the loaded index):",
    `  ${FULL_RESOLUTION_IMPORT}`,
    demoData
      ? "  The real registry again: npm run dev (without --demo)"
      : "  Demo PSAPs instead (fictional, 50 metros): npm run dev -- --demo",
    "",
    "  Create a session:",
    `  curl -X POST ${f.url}/v1/platforms/${f.demo.platformId}/sessions -H 'X-API-Key: ${f.demo.apiKey}' -H 'Content-Type: application/json' -d '${body}'`,
    "",
  ].join("\n");
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
 * Runs `wrangler dev` on the terminal, calls `onReady` once the server answers, and resolves with
 * wrangler's exit code (128 + the signal's number if it was killed). Signals are dev-stop.ts's.
 */
function runWranglerDev(args: string[], onReady: () => Promise<void>, url: string): Promise<number> {
  const child = track(
    spawn(process.execPath, [wranglerBin(), ...args], {
      cwd: ROOT,
      // Its output goes through the bindings filter; its errors and the keyboard stay the terminal's.
      stdio: ["inherit", "pipe", "inherit"],
      env: wranglerEnv(),
    }),
    true,
  );
  const output = new BindingsShownOnce((text) => process.stdout.write(text));
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => output.push(chunk));
  child.stdout?.on("end", () => output.end());
  const exited = new Promise<number>((resolve, reject) => {
    child.on("error", (error) => reject(new DevError(`could not start wrangler dev: ${error.message}`)));
    child.on("exit", (code, signal) => resolve(code ?? (signal ? signalStatus(signal) : 1)));
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
    .then((up) => {
      if (!up || child.exitCode !== null) return;
      watchServer(url);
      return onReady();
    })
    .catch((error: unknown) => warn(`could not print the banner: ${String(error)}`));
  return exited;
}

/**
 * wrangler's environment: its output is a pipe now, so colours are asked for when this terminal shows
 * them (NO_COLOR and FORCE_COLOR, when set, still decide).
 */
function wranglerEnv(): NodeJS.ProcessEnv {
  const env = childEnv();
  if (process.stdout.isTTY && env.NO_COLOR === undefined && env.FORCE_COLOR === undefined)
    env.FORCE_COLOR = "1";
  return env;
}

/** Seconds the server may refuse connections before the script stops (a runtime restart takes far less). */
const REFUSED_STOP_S = 10;

/**
 * After a SIGTERM of its own, workerd stops listening but stays alive (waiting for wrangler's inspector
 * connection to end), and wrangler does not notice: a server that refuses every connection for 10 s is
 * such a workerd, and the script stops everything it started, as for any other signal.
 */
function watchServer(url: string): void {
  const { hostname, port } = new URL(url);
  const host = hostname.replace(/^\[|\]$/g, "");
  let refused = 0;
  setInterval(() => {
    const socket = connect({ host, port: Number(port) });
    socket.setTimeout(2000, () => socket.destroy());
    socket.once("connect", () => {
      refused = 0;
      socket.destroy();
    });
    socket.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "ECONNREFUSED") return;
      if (++refused < REFUSED_STOP_S) return;
      warn(`${url} has refused connections for ${REFUSED_STOP_S} s (its workerd was stopped): stopping`);
      stop("SIGTERM");
    });
  }, 1000).unref();
}

// Only as a script: tests import readDevFlags, serverUrl and the banner.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  stopOnSignals();
  main(process.argv.slice(2)).then(
    (code) => exitAfterChildren(code),
    (error: unknown) => {
      console.error(error instanceof DevError ? `[dev] ${error.message}` : error);
      // A step that failed while others ran (the three setup steps run at once): stop them too.
      exitAfterChildren(1);
    },
  );
}
