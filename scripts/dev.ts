// `npm run dev [-- wrangler dev flags]`: prepares everything local development needs (secrets in .dev.vars,
// local D1 migrations, demo PSAP data, a demo platform, the SDK build), then runs `wrangler dev`.
// Every step is idempotent: a second run reuses what the first one made.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  DEFAULT_PORT,
  DevArgsError,
  listenHost,
  readDevFlags,
  serverUrl,
  wranglerDevArgs,
} from "./dev-args.ts";
import { bannerLines } from "./dev-banner.ts";
import { prepareLocalDatabase } from "./dev-database.ts";
import { demoLinks } from "./dev-demo-links.ts";
import { DevError, log, warn } from "./dev-log.ts";
import { childEnv, findFreePort, runVisible, waitForPort, wranglerBin } from "./dev-process.ts";
import { completeDevVars, type DevSecrets, DevVarsError, parseDevVars, setDevVars } from "./dev-vars.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const DEV_VARS = join(root, ".dev.vars");
/** How long to wait for wrangler to listen before printing the banner anyway. */
const READY_TIMEOUT_MS = 90_000;

async function main(userArgs: string[]): Promise<number> {
  const started = Date.now();
  const flags = readDevFlags(userArgs);
  const secrets = await prepareDevVars();
  // One after the other: each step runs wrangler's local runtime on the same state directory, and two
  // at once proved flaky (the demo PSAP data was sometimes missing afterwards).
  await prepareLocalDatabase(
    root,
    { platformId: secrets.DEMO_PLATFORM_ID, apiKey: secrets.DEMO_API_KEY },
    flags.sharedFlags,
  );
  await loadDemoPsapData(flags.persistTo);
  await buildSdkIfMissing();

  const host = listenHost(flags);
  const port = flags.port ?? (await findFreePort(DEFAULT_PORT, host));
  if (port === null)
    throw new DevError(`ports ${DEFAULT_PORT}-${DEFAULT_PORT + 9} are all taken: pass --port <n>`);
  if (flags.port === undefined && port !== DEFAULT_PORT) log(`port ${DEFAULT_PORT} is taken: using ${port}`);
  log(`setup done in ${((Date.now() - started) / 1000).toFixed(1)} s; starting wrangler dev`);
  const url = serverUrl(flags, port);
  const printBanner = async () => {
    const demo = { platformId: secrets.DEMO_PLATFORM_ID, apiKey: secrets.DEMO_API_KEY };
    const links = await demoLinks({ baseUrl: url, ...demo });
    console.log(bannerLines({ url, ...demo, links }).join("\n"));
  };
  return runWranglerDev(wranglerDevArgs(userArgs, flags, port), { port, host, url }, printBanner);
}

/** Reads .dev.vars, adds what is missing, writes it back only if something changed. */
async function prepareDevVars(): Promise<DevSecrets> {
  const text = existsSync(DEV_VARS) ? readFileSync(DEV_VARS, "utf8") : "";
  const { secrets, created, notes } = await completeDevVars(parseDevVars(text));
  for (const note of notes) warn(note);
  if (created.length === 0) {
    log(".dev.vars: reusing ADMIN_TOKEN, JWT_SIGNING_KEY and the demo platform");
    return secrets;
  }
  const values: Partial<DevSecrets> = {};
  for (const name of created) values[name] = secrets[name];
  const next = setDevVars(text, values);
  // Write then rename: wrangler never sees a half-written file, and the file is private to the user.
  // The temporary file lives in the git-ignored .wrangler/, so a crash cannot leave secrets to commit.
  mkdirSync(join(root, ".wrangler"), { recursive: true });
  const temporary = join(root, ".wrangler", `dev-vars.${process.pid}.tmp`);
  writeFileSync(temporary, next, { mode: 0o600 });
  renameSync(temporary, DEV_VARS);
  if (parseDevVars(readFileSync(DEV_VARS, "utf8")).JWT_SIGNING_KEY !== secrets.JWT_SIGNING_KEY) {
    throw new DevError(".dev.vars was written but does not read back as written; please report this");
  }
  log(`.dev.vars: ${text === "" ? "created" : "updated"} with ${created.join(", ")}`);
  return secrets;
}

async function loadDemoPsapData(persistTo: string | undefined): Promise<void> {
  const cli = join(root, "data/import/cli.ts");
  if (!existsSync(cli)) {
    warn("data/import/cli.ts does not exist yet: no demo PSAP data loaded (lookups will find nothing)");
    return;
  }
  const args = [cli, "--demo", "--if-empty", ...(persistTo === undefined ? [] : ["--persist-to", persistTo])];
  const code = await runVisible(process.execPath, args, root);
  if (code !== 0) {
    warn(
      `loading the demo PSAP data failed (exit code ${code}); retry with \`npm run psap:import -- --demo\``,
    );
  }
}

async function buildSdkIfMissing(): Promise<void> {
  if (existsSync(join(root, "public/sdk/patient.js")) || !existsSync(join(root, "scripts/build-sdk.ts")))
    return;
  log("public/sdk is missing: running npm run build:sdk");
  // Under `npm run`, npm_execpath is npm's own CLI: run it with this Node rather than whatever `npm` is on PATH.
  const npmCli = process.env.npm_execpath;
  const code = npmCli?.endsWith(".js")
    ? await runVisible(process.execPath, [npmCli, "run", "build:sdk"], root)
    : await runVisible("npm", ["run", "build:sdk"], root);
  if (code !== 0)
    warn(`npm run build:sdk failed (exit code ${code}): /sdk/*.js and the demo pages will not work`);
}

/**
 * Runs `wrangler dev` with the terminal attached, forwards SIGINT/SIGTERM/SIGHUP, calls `onReady` once
 * the server listens, and resolves with wrangler's exit code (128 + signal number if it was killed).
 */
function runWranglerDev(
  args: string[],
  address: { port: number; host: string; url: string },
  onReady: () => Promise<void>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [wranglerBin(), ...args], {
      cwd: root,
      stdio: "inherit",
      env: childEnv(),
    });
    let exited = false;
    const forward = (signal: NodeJS.Signals) => {
      if (!exited) child.kill(signal);
    };
    const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
    for (const signal of signals) process.on(signal, forward);
    child.on("error", (error) => reject(new DevError(`could not start wrangler dev: ${error.message}`)));
    child.on("exit", (code, signal) => {
      exited = true;
      for (const name of signals) process.off(name, forward);
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
    waitForPort(address.port, address.host, READY_TIMEOUT_MS, () => exited)
      .then(async (listening) => {
        if (!listening) return;
        // wrangler's proxy listens before the worker is built; it holds this request until the worker
        // answers, so the banner comes after wrangler's "Ready" line. Any answer will do.
        await firstResponse(address.url);
        if (!exited) await onReady();
      })
      .catch((error: unknown) => warn(`could not print the banner: ${String(error)}`));
  });
}

/** Waits for the server's first answer (or gives up quietly): the JWKS also shows that the signing key loads. */
async function firstResponse(url: string): Promise<void> {
  try {
    const response = await fetch(`${url}/.well-known/jwks.json`, {
      signal: AbortSignal.timeout(READY_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (response.status >= 500)
      warn(`the server answered ${response.status} to /.well-known/jwks.json: check JWT_SIGNING_KEY`);
  } catch {
    // https with a self-signed certificate, or the server went away: the banner is still worth printing.
  }
}

// Run only as a script: nothing imports this file (the testable parts live in the dev-*.ts modules).
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof DevError || error instanceof DevVarsError || error instanceof DevArgsError) {
      console.error(`[dev] ${error.message}`);
    } else {
      console.error("[dev] unexpected error:", error);
    }
    process.exit(1);
  },
);
