// The local D1 for `npm run dev`: migrations applied, demo platform present. One wrangler call when
// everything is in place already (the usual second run), three on a fresh database.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import {
  type DemoPlatform,
  type DemoSqlAnswer,
  demoPlatformSql,
  readDemoSqlAnswer,
} from "./dev-demo-platform.ts";
import { DevError, log, warn } from "./dev-log.ts";
import { type RunResult, runQuiet, tail, wranglerBin } from "./dev-process.ts";

/**
 * Makes sure the local D1 has every migration and the demo platform. `sharedFlags` are the user's
 * `--persist-to`, `--config`, `--env` flags, so these commands touch the database `wrangler dev` uses.
 */
export async function prepareLocalDatabase(
  root: string,
  demo: DemoPlatform,
  sharedFlags: string[],
): Promise<void> {
  const sql = await demoPlatformSql(demo);
  const execute = () =>
    runQuiet(
      [wranglerBin(), "d1", "execute", "DB", "--local", "--json", "--command", sql, ...sharedFlags],
      root,
    );

  // Optimistic first: on a database that is up to date this is the only command.
  const first = readAnswer(await execute(), demo);
  const expected = expectedMigrations(root, sharedFlags);
  const upToDate =
    first !== null && expected?.every((name) => first.appliedMigrations.includes(name)) === true;
  if (upToDate) log("D1: migrations up to date");
  else await applyMigrations(root, sharedFlags);
  if (first !== null) {
    reportDemoKey(first.keyState, demo.platformId);
    return;
  }
  // The first attempt met a database without tables: now it has them.
  const retry = await execute();
  const answer = readAnswer(retry, demo);
  if (answer === null) {
    throw new DevError(
      `creating the demo platform in the local D1 failed (exit code ${retry.code}):\n${tail(retry.output)}`,
    );
  }
  reportDemoKey(answer.keyState, demo.platformId);
}

function readAnswer(result: RunResult, demo: DemoPlatform): DemoSqlAnswer | null {
  if (result.code !== 0) return null;
  try {
    return readDemoSqlAnswer(result.stdout, demo.platformId);
  } catch {
    return null;
  }
}

/** The migration files of this repository, or null when another config may point elsewhere. */
function expectedMigrations(root: string, sharedFlags: string[]): string[] | null {
  if (sharedFlags.some((flag) => flag === "--config" || flag === "-c")) return null;
  try {
    return readdirSync(join(root, "data/migrations")).filter((name) => name.endsWith(".sql"));
  } catch {
    return null;
  }
}

async function applyMigrations(root: string, sharedFlags: string[]): Promise<void> {
  const result = await runQuiet(
    [wranglerBin(), "d1", "migrations", "apply", "DB", "--local", ...sharedFlags],
    root,
  );
  if (result.code !== 0) {
    throw new DevError(
      `applying the local D1 migrations failed (exit code ${result.code}):\n${tail(result.output)}`,
    );
  }
  const applied = (result.output.match(/✅/g) ?? []).length;
  log(
    result.output.includes("No migrations to apply")
      ? "D1: migrations up to date"
      : `D1: ${applied} migration(s) applied`,
  );
}

function reportDemoKey(state: DemoSqlAnswer["keyState"], platformId: string): void {
  const remedy = "delete DEMO_PLATFORM_ID and DEMO_API_KEY from .dev.vars to get a new demo platform";
  switch (state) {
    case "ready":
      log(`D1: demo platform ${platformId} ready`);
      return;
    case "revoked":
      warn(`the demo API key was revoked in the local database: ${remedy}`);
      return;
    case "other_platform":
      warn(`the demo API key belongs to another platform in the local database: ${remedy}`);
      return;
    case "missing":
      throw new DevError("the demo platform could not be written to the local D1");
  }
}
