// The demo platform `npm run dev` writes straight into the local D1.
import { describe, expect, it } from "vitest";
import { demoApiKeyId, demoPlatformSql, readDemoSqlAnswer } from "../../scripts/dev-demo-platform.ts";
import { hashApiKey } from "../../src/auth/api-key.ts";

const demo = { platformId: "plt_demoAbc123", apiKey: `sk_live_${"a1B2".repeat(10)}` };

describe("demoPlatformSql", () => {
  it("stores the key as the same SHA-256 hash the service looks up, never in plain text", async () => {
    const sql = await demoPlatformSql(demo, new Date("2026-01-02T03:04:05.000Z"));
    expect(sql).toContain(await hashApiKey(demo.apiKey));
    expect(sql).not.toContain(demo.apiKey);
    expect(sql).toContain("'plt_demoAbc123'");
    expect(sql).toContain("2026-01-02T03:04:05.000Z");
  });

  it("only inserts what is missing, so every run can execute it", async () => {
    const sql = await demoPlatformSql(demo);
    expect(sql.match(/INSERT OR IGNORE/g)).toHaveLength(2);
  });

  it("reads the applied migrations before anything else, so it fails as a whole on a fresh database", async () => {
    expect(await demoPlatformSql(demo)).toMatch(/^SELECT name FROM d1_migrations/);
  });

  it("gives a re-created key row the same id", async () => {
    const hash = await hashApiKey(demo.apiKey);
    expect(await demoPlatformSql(demo)).toContain(`'${demoApiKeyId(hash)}'`);
    expect(demoApiKeyId(hash)).toMatch(/^key_demo[0-9a-f]{20}$/);
  });

  it("refuses ids and keys that could break out of the SQL string", async () => {
    await expect(
      demoPlatformSql({ ...demo, platformId: "plt_x'; DROP TABLE platforms; --" }),
    ).rejects.toThrow();
    await expect(demoPlatformSql({ ...demo, apiKey: "sk_live_a'b" })).rejects.toThrow();
  });
});

describe("readDemoSqlAnswer", () => {
  const answer = (rows: unknown[], migrations: string[] = ["0001_a.sql"]) =>
    JSON.stringify(
      [
        { results: migrations.map((name) => ({ name })) },
        { results: [] },
        { results: [] },
        { results: rows, success: true },
      ],
      null,
      2,
    );
  const state = (text: string) => readDemoSqlAnswer(text, demo.platformId).keyState;

  it("reports a live key of the demo platform as ready, with the migrations already applied", () => {
    const text = answer([{ platform_id: demo.platformId, revoked_at: null }], ["0001_a.sql", "0002_b.sql"]);
    expect(readDemoSqlAnswer(text, demo.platformId)).toEqual({
      appliedMigrations: ["0001_a.sql", "0002_b.sql"],
      keyState: "ready",
    });
  });

  it("skips a notice printed before the JSON", () => {
    expect(
      state(`▲ [WARNING] something\n${answer([{ platform_id: demo.platformId, revoked_at: null }])}`),
    ).toBe("ready");
  });

  it("notices a revoked demo key, a key of another platform and a missing row", () => {
    expect(state(answer([{ platform_id: demo.platformId, revoked_at: "2026-01-01" }]))).toBe("revoked");
    expect(state(answer([{ platform_id: "plt_other", revoked_at: null }]))).toBe("other_platform");
    expect(state(answer([]))).toBe("missing");
  });

  it("throws on wrangler's error answer, so the caller applies the migrations and retries", () => {
    expect(() =>
      readDemoSqlAnswer('{ "error": { "text": "no such table: d1_migrations" } }', "plt_x"),
    ).toThrow();
  });
});
