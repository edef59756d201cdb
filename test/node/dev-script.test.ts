// `npm run dev` end to end, on this repository: first run prepares and serves, a second run reuses everything.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { READY_BANNER } from "../../scripts/dev.ts";
import { runNode, wranglerBin } from "../../scripts/dev-run.ts";
import { parseDevVars, signingKeyProblem } from "../../scripts/dev-vars.ts";
import { hashApiKey } from "../../src/auth/api-key.ts";
import {
  firstAnswer,
  freePort,
  type RunningProcess,
  startProcess,
  waitForOutput,
} from "../support/processes.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** Each run starts wrangler (and, on a fresh state, loads the PSAP data): slow on a busy machine. */
const RUN_TIMEOUT_MS = 240_000;
/**
 * The tests' own local state and served folder, never the ones a developer's `npm run dev` uses
 * (.wrangler/state, public/): a test run beside it changes nothing it serves.
 */
const STATE = join(root, ".wrangler/dev-script-tests");
const ASSETS = join(root, ".wrangler/test-public");
const OWN = ["--persist-to", STATE, "--assets", ASSETS];
const started: RunningProcess[] = [];
const directories: string[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((running) => running.stop()));
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** Runs `node scripts/dev.ts <flags>` until the server answers and the banner is out; returns its output. */
/** The first answer of the JWKS route: its status, and its keys when it is the route's own 200. */
interface FirstJwks {
  status: number;
  keys: { kid: string }[] | null;
}

async function runDev(
  extraFlags: string[] = [],
  atFirstAnswer?: (base: string) => Promise<void>,
): Promise<{ output: string; port: number; jwks: FirstJwks }> {
  const port = await freePort();
  const own = extraFlags.includes("--persist-to") ? ["--assets", ASSETS] : OWN;
  const running = startProcess(
    ["scripts/dev.ts", "--port", String(port), "--ip", "127.0.0.1", ...own, ...extraFlags],
    root,
  );
  started.push(running);
  // Any answer means the server is up (the route may not exist yet in a half-built tree).
  // A fresh state imports the real bundle first (a minute or more on a busy machine).
  const first = await firstAnswer(`http://127.0.0.1:${port}/.well-known/jwks.json`, running, 200_000);
  // Read at once: the server answers while the PSAP data still loads, long before it is stopped.
  const jwks: FirstJwks = {
    status: first.status,
    keys: first.status === 200 ? ((await first.json()) as { keys: { kid: string }[] }).keys : null,
  };
  await atFirstAnswer?.(`http://127.0.0.1:${port}`);
  // The banner waits for the PSAP data: on a fresh state, the import's end (a minute or more when busy).
  await waitForOutput(running, "Demo API key", 200_000);
  const output = running.output();
  await running.stop();
  return { output, port, jwks };
}

interface EarlyLookup {
  status: number;
  retryAfter: number;
  code?: string;
  detail?: string;
}

/** The demo platform's session, its SOS and the patient's fix (Chicago): the lookup's answer. */
async function lookupNow(base: string, vars: Record<string, string>): Promise<EarlyLookup> {
  const platform = `${base}/v1/platforms/${vars.DEMO_PLATFORM_ID}/sessions`;
  const json = { "Content-Type": "application/json" };
  const created = await fetch(platform, {
    method: "POST",
    headers: { ...json, "X-API-Key": vars.DEMO_API_KEY ?? "" },
    body: JSON.stringify({ meeting_id: "m-early", counselor_id: "c-early", patient_id: "p-early" }),
  });
  expect(created.status).toBe(201);
  const session = (await created.json()) as {
    session_id: string;
    counselor_token: string;
    patient_token: string;
  };
  const sos = await fetch(`${platform}/${session.session_id}/sos`, {
    method: "POST",
    headers: { Authorization: `Bearer ${session.counselor_token}` },
  });
  expect(sos.status).toBe(202);
  const res = await fetch(`${platform}/${session.session_id}/sos/location`, {
    method: "POST",
    headers: { ...json, Authorization: `Bearer ${session.patient_token}` },
    body: JSON.stringify({ latitude: 41.8781, longitude: -87.6298, accuracy: 20 }),
  });
  const body = (await res.json()) as { code?: string; detail?: string };
  return { status: res.status, retryAfter: Number(res.headers.get("Retry-After")), ...body };
}

function readDevVars() {
  return parseDevVars(readFileSync(join(root, ".dev.vars"), "utf8"));
}

describe("npm run dev", () => {
  it(
    "prepares .dev.vars, serves on the given --port/--ip and prints the URL, demo platform and key",
    async () => {
      const { output, port, jwks } = await runDev();
      const vars = readDevVars();
      expect(vars.ADMIN_TOKEN).toMatch(/^\S{20,}$/);
      expect(signingKeyProblem(vars.JWT_SIGNING_KEY ?? "")).toBeNull();
      expect(vars.DEMO_PLATFORM_ID).toMatch(/^plt_/);
      expect(vars.DEMO_API_KEY).toMatch(/^sk_live_/);
      expect(output).toContain(`http://127.0.0.1:${port}`);
      expect(output).toContain(`http://127.0.0.1:${port}/demo/counselor.html`);
      expect(output).toContain(vars.DEMO_PLATFORM_ID);
      expect(output).toContain(vars.DEMO_API_KEY);
      expect(output).not.toContain(vars.ADMIN_TOKEN); // the banner says where the token is, not what it is
      // No offline `Request.cf` stack trace, and wrangler's bindings table once (it prints it twice).
      expect(output).not.toMatch(/Request\.cf|ENOTFOUND|getaddrinfo/);
      expect(output.split("has access to the following bindings:")).toHaveLength(2);
      expect(output.split("env.SESSIONS (SessionObject)")).toHaveLength(2);
      expect(output.indexOf("env.SESSIONS (SessionObject)")).toBeLessThan(output.indexOf(READY_BANNER));
      // The phone-number note with the coverage figure: the shipped directory's lines.
      expect(output).toMatch(
        /Phone numbers\s+[1-9][\d,]* of 6,542 centres \([\d.]+ %\) have a number on file, [1-9][\d,]* a 24\/7 line/,
      );
      if (jwks.status === 200) {
        // The worker read the JSON signing key from .dev.vars intact: it publishes that key's kid.
        const kid = (JSON.parse(vars.JWT_SIGNING_KEY ?? "{}") as { kid: string }).kid;
        expect(jwks.keys?.[0]?.kid).toBe(kid);
      }
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "reuses the same secrets on a second run, re-creates the demo platform in a wiped database, and says the data is loading meanwhile",
    async () => {
      await runDev();
      const before = readDevVars();
      const freshState = mkdtempSync(join(tmpdir(), "dev-state-"));
      directories.push(freshState);
      let early: EarlyLookup | undefined;
      const { output } = await runDev(["--persist-to", freshState], async (base) => {
        early = await lookupNow(base, before);
      });
      const after = readDevVars();
      // Made as soon as the server answered, while the import usually still runs: PSAPs if it is over,
      // else 503 saying the data is loading, never that an operator must import it.
      console.log(`a lookup at the server's first answer: ${JSON.stringify(early)}`);
      if (early?.status === 503) {
        expect(early.code).toBe("psap_index_unavailable");
        expect(early.retryAfter).toBeGreaterThanOrEqual(1);
        expect(early.detail).toMatch(/still loading/);
      } else expect(early?.status).toBe(200);
      expect(after).toEqual(before);
      // A fresh local index gets the real registry with city limits and towns (data/bundle) and the
      // shipped operator files, named in the banner.
      expect(output).toMatch(
        /PSAP data\s+FCC Master PSAP Registry v2\.295 \(2026-02-06\) \+ tribal-lands-2011-100m\.topojson\.gz \+ national-parks-2020-100m\.topojson\.gz \+ psap-overrides\.csv \+ PSAP directory \+ Census places \(census-places-2019-100m\.topojson\.gz\) \+ towns \(town-boundaries-100m\.topojson\.gz\): 6542 PSAPs/,
      );
      expect(output).toContain(
        "npm run psap:import -- ../shared/psap-data/fcc_master_psap_registry_v2.295.csv",
      );
      expect(output).toContain(".dev.vars: reusing");
      expect(output).toContain(before.DEMO_API_KEY);
      const keyHash = await hashApiKey(before.DEMO_API_KEY ?? "");
      const query = await runNode([
        wranglerBin(),
        "d1",
        "execute",
        "DB",
        "--local",
        "--persist-to",
        freshState,
        "--json",
        "--command",
        `SELECT platform_id, revoked_at FROM api_keys WHERE key_hash = '${keyHash}'`,
      ]);
      expect(query.code, query.output).toBe(0);
      const rows = (JSON.parse(query.stdout) as { results: unknown[] }[])[0]?.results;
      expect(rows).toEqual([{ platform_id: before.DEMO_PLATFORM_ID, revoked_at: null }]);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "loads the fictional demo PSAPs instead with --demo, and keeps that flag from wrangler",
    async () => {
      const freshState = mkdtempSync(join(tmpdir(), "dev-demo-"));
      directories.push(freshState);
      const { output } = await runDev(["--demo", "--persist-to", freshState]);
      expect(output).toMatch(/PSAP data\s+demo: 50 PSAPs/);
      expect(output).toContain("The real registry again: npm run dev (without --demo)");
      expect(output).not.toMatch(/Unknown argument|unknown option/i);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "stops wrangler and its workerd when it is sent SIGTERM, and exits with wrangler's status",
    async () => {
      const port = await freePort();
      const running = startProcess(
        ["scripts/dev.ts", "--port", String(port), "--ip", "127.0.0.1", ...OWN],
        root,
      );
      started.push(running);
      await firstAnswer(`http://127.0.0.1:${port}/`, running, 200_000);
      const pid = running.child.pid ?? 0;
      const exit = new Promise<number | null>((resolve) =>
        running.child.once("exit", (code) => resolve(code)),
      );
      process.kill(pid, "SIGTERM"); // the script alone, not its process group: it must pass the signal on
      expect(await exit).toBe(128 + 15);
      await expect.poll(() => groupAlive(pid), { timeout: 10_000, interval: 200 }).toBe(false);
    },
    RUN_TIMEOUT_MS,
  );

  it("explains a bad flag in one line, without a stack trace, and exits 1", async () => {
    const result = await runNode(["scripts/dev.ts", "--port", "not-a-port"]);
    expect(result.code).toBe(1);
    expect(result.output.trim()).toBe('[dev] --port must be a port number (0-65535), not "not-a-port"');
  });
});

/** Whether any process of the group led by `pgid` is still running. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
