// The import's local KV target writes where `wrangler dev` and `wrangler kv --local` read: what it puts,
// wrangler's own CLI gets back from the same --persist-to folder, and what wrangler puts, it reads.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LocalKvTarget } from "../../data/import/kv-local.ts";
import { wranglerBin } from "../../scripts/dev-run.ts";
import { ROOT } from "../support/dev-server.ts";

const persistTo = mkdtempSync(join(tmpdir(), "kv-local-"));
afterAll(() => rmSync(persistTo, { recursive: true, force: true }));

function wranglerKv(...args: string[]): string {
  return execFileSync(
    process.execPath,
    [wranglerBin(), "kv", ...args, "--binding", "PSAP_INDEX", "--local", "--persist-to", persistTo],
    { cwd: ROOT, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
}

describe("the local KV target", () => {
  it("shares wrangler's local store: each reads what the other wrote; it lists by prefix past a page and deletes", async () => {
    const target = new LocalKvTarget({ cwd: ROOT, persistTo });
    try {
      const entries = Array.from({ length: 1200 }, (_, i) => [`psap:v:t:${i}`, `value ${i} é`] as const);
      await target.putMany(entries);
      expect(wranglerKv("key", "get", "psap:v:t:7", "--text").trim()).toBe("value 7 é");
      wranglerKv("key", "put", "from-wrangler", "written by wrangler");
      expect(await target.get("from-wrangler")).toBe("written by wrangler");
      expect(await target.get("absent")).toBeNull();
      // More than one page of KV's list (1000 keys).
      expect((await target.listKeys("psap:v:t:")).length).toBe(1200);
      await target.deleteMany(entries.slice(0, 1100).map(([key]) => key));
      expect((await target.listKeys("psap:v:t:")).sort()).toEqual(
        entries
          .slice(1100)
          .map(([key]) => key)
          .sort(),
      );
    } finally {
      await target.close();
    }
  }, 120_000);
});
