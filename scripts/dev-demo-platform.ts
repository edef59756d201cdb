// The demo platform of `npm run dev`: its rows in the local D1, written directly (the server may not run yet).
import { hashApiKey } from "../src/auth/api-key.ts";

export const DEMO_PLATFORM_NAME = "Demo platform (npm run dev)";

export interface DemoPlatform {
  platformId: string;
  apiKey: string;
}

/**
 * SQL that lists the applied migrations, creates the demo platform and its key unless they exist (safe
 * on every run; restores them after the local database was wiped), then reads the key's state back.
 * Listing the migrations first makes the whole command fail on a database that has none yet, and tells
 * a second run whether `wrangler d1 migrations apply` (a slow command) is needed at all.
 * The key is stored only as its hash, as src/auth stores keys; its id derives from the hash, so a
 * re-created row gets the same id.
 */
export async function demoPlatformSql(demo: DemoPlatform, now: Date = new Date()): Promise<string> {
  // Interpolated below: refuse anything but the formats we generate (no quoting games in SQL).
  if (!/^plt_[0-9A-Za-z]+$/.test(demo.platformId)) throw new Error("malformed demo platform id");
  if (!/^sk_live_[0-9A-Za-z]+$/.test(demo.apiKey)) throw new Error("malformed demo API key");
  const keyHash = await hashApiKey(demo.apiKey);
  const createdAt = now.toISOString();
  return [
    `SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id;`,
    `INSERT OR IGNORE INTO platforms (id, name, created_at) VALUES ('${demo.platformId}', '${DEMO_PLATFORM_NAME}', '${createdAt}');`,
    `INSERT OR IGNORE INTO api_keys (id, platform_id, key_hash, created_at) VALUES ('${demoApiKeyId(keyHash)}', '${demo.platformId}', '${keyHash}', '${createdAt}');`,
    `SELECT platform_id, revoked_at FROM api_keys WHERE key_hash = '${keyHash}';`,
  ].join(" ");
}

/** wrangler's default table of applied D1 migrations (wrangler.toml sets no other). */
const MIGRATIONS_TABLE = "d1_migrations";

export function demoApiKeyId(keyHash: string): string {
  return `key_demo${keyHash.slice(0, 20)}`;
}

/** The demo key as the database holds it. */
export type DemoKeyState = "ready" | "revoked" | "other_platform" | "missing";

export interface DemoSqlAnswer {
  /** File names of the migrations already applied. */
  appliedMigrations: string[];
  keyState: DemoKeyState;
}

/** Reads the stdout of `wrangler d1 execute --json --command <demoPlatformSql>`; throws if it is not that. */
export function readDemoSqlAnswer(stdout: string, platformId: string): DemoSqlAnswer {
  // The JSON array starts a line; anything before it (a notice) is not ours to parse.
  const start = stdout.search(/^\[/m);
  const parsed: unknown = JSON.parse(start === -1 ? stdout : stdout.slice(start));
  if (!Array.isArray(parsed) || parsed.length < 2) throw new Error("not the answer to the demo platform SQL");
  const names = rowsOf(parsed[0]).map((row) => row.name);
  const row = rowsOf(parsed.at(-1))[0];
  let keyState: DemoKeyState;
  if (row === undefined) keyState = "missing";
  else if (row.platform_id !== platformId) keyState = "other_platform";
  else keyState = row.revoked_at === null || row.revoked_at === undefined ? "ready" : "revoked";
  return { appliedMigrations: names.filter((name): name is string => typeof name === "string"), keyState };
}

function rowsOf(statement: unknown): Record<string, unknown>[] {
  const rows = (statement as { results?: unknown } | undefined)?.results;
  return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
}
