// The real-data bundle `npm run dev` loads on a fresh clone: small, rebuilt byte for byte from the
// public sources, and answering with the real centres where the demo data had none.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLE_DIR, BUNDLE_FILES, buildBundle, bundlePaths } from "../../data/bundle/build.ts";
import { prepareImport } from "../../data/import/pipeline.ts";
import { SHIPPED_OPERATOR_FILES } from "../../data/import/shipped.ts";
import { buildIndex } from "../../data/index/build.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import { lookupPsaps } from "../../src/answer/lookup.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DATA_DIR = resolve(ROOT, process.env.PSAP_DATA_DIR ?? "../shared/psap-data");
const HAVE_SOURCES = existsSync(join(DATA_DIR, "census-places-2019.geojson.gz"));

describe("the committed bundle", () => {
  it("is at most 8 MB in all", () => {
    const bytes = bundlePaths().reduce((sum, path) => sum + statSync(path).size, 0);
    expect(bytes).toBeLessThanOrEqual(8 * 1024 * 1024);
  });

  describe("answers with the real answering centres", () => {
    let store: MemoryPsapStore;
    beforeAll(async () => {
      // As the dev script imports it: the bundle, and the operator files the project ships.
      const prepared = await prepareImport([...bundlePaths(), ...SHIPPED_OPERATOR_FILES]);
      store = MemoryPsapStore.fromIndex(buildIndex(prepared.dataset));
    }, 120_000);

    const first = async (latitude: number, longitude: number) =>
      (await lookupPsaps(store, { latitude, longitude, accuracy: 20 })).psaps[0];

    it("in Chicago: the city's Office of Emergency Management and Communications", async () => {
      expect(await first(41.88368, -87.63206)).toMatchObject({ id: "2160", match: "city" });
    });
    it("in Anchorage: the Anchorage Police Department", async () => {
      expect(await first(61.2181, -149.9003)).toMatchObject({ id: "10", match: "city" });
    });
    it("in Honolulu: the Honolulu Police Department (the city and county are one)", async () => {
      expect(await first(21.3069, -157.8583)).toMatchObject({ id: "1887", match: "county" });
    });
    it("in San Juan: one of Puerto Rico's two 911 centres", async () => {
      expect(["8558", "5942"]).toContain((await first(18.4655, -66.1057))?.id);
    });
    it("in Cherry Hill, NJ: the township's police, and the township named as the place", async () => {
      const r = await lookupPsaps(store, { latitude: 39.9026, longitude: -74.9994, accuracy: 20 });
      expect(r.area).toMatchObject({
        state: "NJ",
        county: "Camden",
        place: "Cherry Hill",
        place_kind: "town",
      });
      expect(r.psaps[0]).toMatchObject({ id: "4703", match: "city" });
    });
    it("in Pennsauken, NJ: Camden County's communications centre (its member list)", async () => {
      expect(await first(39.9562, -75.0577)).toMatchObject({ id: "4694", match: "city" });
    });
    it("in New Hampshire: the state's 911 centre first, before any county centre", async () => {
      expect(["4670", "8437"]).toContain((await first(42.8865, -71.3257))?.id);
    });
    it("in rural Wyoming: the county's own centre (Sublette County, Park County)", async () => {
      expect(await first(42.75, -109.85)).toMatchObject({ id: "7651", match: "county" });
      expect(await first(44.3, -109.5)).toMatchObject({ id: "7642", match: "county" });
    });
  });
});

if (!HAVE_SOURCES && process.env.CI === "true") {
  it("has the public sources (PSAP_DATA_DIR) in CI", () => {
    throw new Error(`PSAP sources not found in ${DATA_DIR}: set PSAP_DATA_DIR`);
  });
}

describe.skipIf(!HAVE_SOURCES)("npm run psap:bundle", () => {
  let out: string;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), "psap-bundle-"));
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("rebuilds the committed files byte for byte from the same sources", async () => {
    await buildBundle(DATA_DIR, out);
    for (const name of Object.values(BUNDLE_FILES)) {
      expect(readFileSync(join(out, name)).equals(readFileSync(join(BUNDLE_DIR, name))), name).toBe(true);
    }
  }, 120_000);
});
