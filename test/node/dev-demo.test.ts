// The demo platform `npm run dev` writes straight into the local D1, and the demo links it prints.
import { afterEach, describe, expect, it, vi } from "vitest";
import { demoLinks, demoPlatformSql } from "../../scripts/dev-demo.ts";
import { hashApiKey } from "../../src/auth/api-key.ts";

const demo = { platformId: "plt_demoAbc123", apiKey: `sk_live_${"a1B2".repeat(10)}` };
const BASE = "http://127.0.0.1:8787";

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("demoPlatformSql", () => {
  it("stores the key as the same SHA-256 hash the service looks up, never in plain text", async () => {
    const sql = await demoPlatformSql(demo, new Date("2026-01-02T03:04:05.000Z"));
    expect(sql).toContain(await hashApiKey(demo.apiKey));
    expect(sql).not.toContain(demo.apiKey);
    expect(sql).toContain("'plt_demoAbc123'");
    expect(sql).toContain("2026-01-02T03:04:05.000Z");
  });

  it("can run on every start: creates only what is missing and makes a revoked demo key usable again", async () => {
    const sql = await demoPlatformSql(demo);
    expect(sql.match(/INSERT OR IGNORE/g)).toHaveLength(2);
    expect(sql).toMatch(/UPDATE api_keys SET revoked_at = NULL WHERE key_hash = '[0-9a-f]{64}'/);
  });

  it("gives a re-created key row the same id", async () => {
    const hash = await hashApiKey(demo.apiKey);
    expect(await demoPlatformSql(demo)).toContain(`'key_demo${hash.slice(0, 20)}'`);
  });

  it("refuses ids and keys that could break out of the SQL string", async () => {
    await expect(
      demoPlatformSql({ ...demo, platformId: "plt_x'; DROP TABLE platforms; --" }),
    ).rejects.toThrow();
    await expect(demoPlatformSql({ ...demo, apiKey: "sk_live_a'b" })).rejects.toThrow();
  });
});

describe("demo links", () => {
  it("open a new demo session as counselor and as patient, with the tokens in the fragment", async () => {
    const fetchMock = vi.fn(async () =>
      Response.json(
        { session_id: "sid-1", patient_token: "patient.jwt.sig", counselor_token: "counselor.jwt.sig" },
        { status: 201 },
      ),
    );
    vi.stubGlobal("fetch", fetchMock);
    const links = new Map(await demoLinks(BASE, demo));
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe(`${BASE}/v1/platforms/${demo.platformId}/sessions`);
    expect(new Headers(init.headers).get("X-API-Key")).toBe(demo.apiKey);
    expect(links.get("Demo session")).toBe("sid-1");
    const counselor = new URL(links.get("Counselor console") ?? "");
    const patient = new URL(links.get("Patient page") ?? "");
    expect(counselor.pathname).toBe("/demo/counselor.html");
    expect(counselor.search).toBe("");
    expect(new URLSearchParams(counselor.hash.slice(1)).get("token")).toBe("counselor.jwt.sig");
    expect(new URLSearchParams(patient.hash.slice(1)).get("token")).toBe("patient.jwt.sig");
    expect(new URLSearchParams(patient.hash.slice(1)).get("api")).toBe(BASE);
  });

  it("fall back to the bare pages when the session cannot be created", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response("{}", { status: 401 })),
    );
    expect((await demoLinks(BASE, demo)).map(([, url]) => url)).toEqual([
      `${BASE}/demo/counselor.html`,
      `${BASE}/demo/patient.html`,
    ]);
  });
});
