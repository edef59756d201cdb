// The demo platform `npm run dev` writes straight into the local D1.
import { describe, expect, it } from "vitest";
import { demoApiKeyId, demoKeyState, demoPlatformSql } from "../../scripts/dev-demo-platform.ts";
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

describe("demoKeyState", () => {
  const answer = (rows: unknown[]) =>
    JSON.stringify([{ results: [] }, { results: [] }, { results: rows, success: true }], null, 2);

  it("reports a live key of the demo platform as ready", () => {
    expect(demoKeyState(answer([{ platform_id: demo.platformId, revoked_at: null }]), demo.platformId)).toBe(
      "ready",
    );
  });

  it("skips a notice printed before the JSON", () => {
    const text = `▲ [WARNING] something\n${answer([{ platform_id: demo.platformId, revoked_at: null }])}`;
    expect(demoKeyState(text, demo.platformId)).toBe("ready");
  });

  it("notices a revoked demo key, a key of another platform and a missing row", () => {
    expect(
      demoKeyState(answer([{ platform_id: demo.platformId, revoked_at: "2026-01-01" }]), demo.platformId),
    ).toBe("revoked");
    expect(demoKeyState(answer([{ platform_id: "plt_other", revoked_at: null }]), demo.platformId)).toBe(
      "other_platform",
    );
    expect(demoKeyState(answer([]), demo.platformId)).toBe("missing");
  });
});
