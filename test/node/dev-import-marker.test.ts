// `npm run dev`'s import marker, in a real local store: while the import runs the worker's own reader
// (src/psap-import-marker.ts) sees an import under way, the marker is renewed, and once the import ends
// it is gone.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LocalKvTarget } from "../../data/import/kv-local.ts";
import { markImportRunning } from "../../scripts/dev-import-marker.ts";
import { IMPORT_MARKER_KEY, importUnderWay } from "../../src/psap-import-marker.ts";
import { ROOT } from "../support/dev-server.ts";

const persistTo = mkdtempSync(join(tmpdir(), "import-marker-"));
afterAll(() => rmSync(persistTo, { recursive: true, force: true }));

/** What `wrangler dev` would read from the store now (a store opened and let go, as the worker reads it). */
async function read(): Promise<{ marker: string | null; underWay: boolean }> {
  const store = new LocalKvTarget({ cwd: ROOT, persistTo });
  try {
    return { marker: await store.get(IMPORT_MARKER_KEY), underWay: await importUnderWay(store) };
  } finally {
    await store.close();
  }
}

describe("npm run dev's import marker", () => {
  it("marks the import as under way from before it starts, renews it, and clears it when it ends", async () => {
    expect((await read()).underWay).toBe(false);
    const mark = await markImportRunning(persistTo, { renewMs: 500 });
    const first = await read();
    expect(first.underWay).toBe(true);
    // Renewed: the marker's `until` moves on while the import runs.
    await expect
      .poll(async () => (await read()).marker, { timeout: 30_000, interval: 200 })
      .not.toBe(first.marker);
    await mark.done();
    expect(await read()).toEqual({ marker: null, underWay: false });
  }, 60_000);

  it("writes and clears it through a store the caller holds open, and leaves that store usable", async () => {
    const store = new LocalKvTarget({ cwd: ROOT, persistTo });
    try {
      const mark = await markImportRunning(persistTo, { store });
      expect(await importUnderWay(store)).toBe(true);
      await mark.done(store);
      expect(await store.get(IMPORT_MARKER_KEY)).toBeNull();
    } finally {
      await store.close();
    }
  }, 60_000);
});
