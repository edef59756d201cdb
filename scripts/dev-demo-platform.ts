// The demo platform of `npm run dev`: its rows in the local D1, written directly (the server may not run yet).
import { hashApiKey } from "../src/auth/api-key.ts";

export const DEMO_PLATFORM_NAME = "Demo platform (npm run dev)";

export interface DemoPlatform {
  platformId: string;
  apiKey: string;
}

/**
 * SQL that creates the demo platform and its key unless they exist (so it is safe on every run and
 * restores them after the local database was wiped), then reads the key's state back. The key is
 * stored only as its hash, exactly as src/auth stores keys; its id is derived from the hash, so a
 * re-created row gets the same id.
 */
export async function demoPlatformSql(demo: DemoPlatform, now: Date = new Date()): Promise<string> {
  // Interpolated below: refuse anything but the formats we generate (no quoting games in SQL).
  if (!/^plt_[0-9A-Za-z]+$/.test(demo.platformId)) throw new Error("malformed demo platform id");
  if (!/^sk_live_[0-9A-Za-z]+$/.test(demo.apiKey)) throw new Error("malformed demo API key");
  const keyHash = await hashApiKey(demo.apiKey);
  const createdAt = now.toISOString();
  return [
    `INSERT OR IGNORE INTO platforms (id, name, created_at) VALUES ('${demo.platformId}', '${DEMO_PLATFORM_NAME}', '${createdAt}');`,
    `INSERT OR IGNORE INTO api_keys (id, platform_id, key_hash, created_at) VALUES ('${demoApiKeyId(keyHash)}', '${demo.platformId}', '${keyHash}', '${createdAt}');`,
    `SELECT platform_id, revoked_at FROM api_keys WHERE key_hash = '${keyHash}';`,
  ].join(" ");
}

export function demoApiKeyId(keyHash: string): string {
  return `key_demo${keyHash.slice(0, 20)}`;
}

/** What the last statement of `demoPlatformSql` found, from the stdout of `wrangler d1 execute --json`. */
export type DemoKeyState = "ready" | "revoked" | "other_platform" | "missing";

export function demoKeyState(wranglerJson: string, platformId: string): DemoKeyState {
  // The JSON array starts a line; anything before it (a notice) is not ours to parse.
  const start = wranglerJson.search(/^\[/m);
  const parsed: unknown = JSON.parse(start === -1 ? wranglerJson : wranglerJson.slice(start));
  if (!Array.isArray(parsed)) return "missing";
  const last: unknown = parsed.at(-1);
  const rows = (last as { results?: unknown } | undefined)?.results;
  const row = Array.isArray(rows)
    ? (rows[0] as { platform_id?: unknown; revoked_at?: unknown } | undefined)
    : undefined;
  if (row === undefined) return "missing";
  if (row.platform_id !== platformId) return "other_platform";
  return row.revoked_at === null || row.revoked_at === undefined ? "ready" : "revoked";
}
