// Accuracy against reality, on a slice: the truth sets of bench/truth/ are well formed and name current
// registry PSAPs, real PSAPs get the jurisdiction they really have, and at ~50 real places of the
// development sets (every category) the first PSAP of the full-resolution data, imported as the CLI does
// (the four shared files and the shipped operator files), is the centre that answers.
// `npm run bench -- --only accuracy` measures the whole sets.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { fullResolutionPaths, readTruth, type TruthPlace } from "../../bench/accuracy.ts";
import { BUNDLE_DIR, BUNDLE_FILES } from "../../data/bundle/build.ts";
import type { MergeSummary } from "../../data/import/merge.ts";
import { prepareImport } from "../../data/import/pipeline.ts";
import { readFccCsv } from "../../data/import/read-fcc-csv.ts";
import { SHIPPED_OPERATOR_FILES } from "../../data/import/shipped.ts";
import { buildIndex } from "../../data/index/build.ts";
import type { PsapDataset } from "../../data/index/dataset.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import { lookupPsaps } from "../../src/answer/lookup.ts";
import { resetPsapLookupCache } from "../../src/psap/lookup.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DATA_DIR = resolve(ROOT, process.env.PSAP_DATA_DIR ?? "../shared/psap-data");
const HAVE_DATA = existsSync(join(DATA_DIR, "fcc_master_psap_registry_v2.295.csv"));
const DEV = readTruth(join(ROOT, "bench/truth/places.csv"));
const HOLDOUT = readTruth(join(ROOT, "bench/truth/holdout.csv"));
const TOWNS = readTruth(join(ROOT, "bench/truth/towns.csv"));
const TOWNS_HOLDOUT = readTruth(join(ROOT, "bench/truth/towns-holdout.csv"));
const TOWN_CATEGORIES = [
  "town_own_centre",
  "township_police",
  "town_regional",
  "town_county_centre",
  "statewide",
];
const CATEGORIES = [
  "city",
  "unincorporated",
  "consolidated",
  "multi_county_city",
  "nyc",
  "statewide",
  "territory",
  "rural",
  "state_line",
  "tribal",
  "alaska_hawaii",
];

/** The registry as the import reads it (orphaned rows dropped): the committed bundle carries the same CSV. */
function currentRegistry(): Map<string, { secondary: boolean; state: string }> {
  const text = gunzipSync(readFileSync(join(BUNDLE_DIR, BUNDLE_FILES.registry))).toString("utf8");
  return new Map(
    readFccCsv("registry", text).rows.map((r) => [r.id, { secondary: r.secondary, state: r.state }]),
  );
}

describe("the truth sets (bench/truth)", () => {
  const registry = currentRegistry();

  it("are big enough and span every category in both files of each pair", () => {
    expect(DEV.length).toBeGreaterThanOrEqual(150);
    expect(HOLDOUT.length).toBeGreaterThanOrEqual(60);
    for (const set of [DEV, HOLDOUT])
      expect(new Set(set.map((p) => p.category))).toEqual(new Set(CATEGORIES));
    // At least 120 places in the states where towns and townships govern.
    expect(TOWNS.length + TOWNS_HOLDOUT.length).toBeGreaterThanOrEqual(120);
    for (const set of [TOWNS, TOWNS_HOLDOUT])
      expect(new Set(set.map((p) => p.category))).toEqual(new Set(TOWN_CATEGORIES));
  });

  it("have unique ids, no place in two files, and known categories", () => {
    const ids = [...DEV, ...HOLDOUT, ...TOWNS, ...TOWNS_HOLDOUT].map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of [...DEV, ...HOLDOUT]) expect(CATEGORIES, p.id).toContain(p.category);
    for (const p of [...TOWNS, ...TOWNS_HOLDOUT]) expect(TOWN_CATEGORIES, p.id).toContain(p.category);
  });

  it("give a point with 4+ decimals and a reason for every place", () => {
    const raw = ["places.csv", "holdout.csv", "towns.csv", "towns-holdout.csv"].map((f) =>
      readFileSync(join(ROOT, "bench/truth", f), "utf8"),
    );
    for (const line of raw.flatMap((t) => t.trim().split("\n").slice(1))) {
      expect(line, line).toMatch(/^[a-z0-9-]+,[a-z_]+,.*,-?\d+\.\d{4,},-?\d+\.\d{4,},[\d;]+,.+$/);
    }
    for (const p of [...DEV, ...HOLDOUT, ...TOWNS, ...TOWNS_HOLDOUT]) {
      expect(Math.abs(p.latitude) <= 72 && p.why.length > 5, p.id).toBe(true);
    }
  });

  it("name only current PSAPs of the registry, of the place's own state, at least one a primary", () => {
    for (const p of [...DEV, ...HOLDOUT, ...TOWNS, ...TOWNS_HOLDOUT]) {
      for (const id of p.answering) {
        expect(registry.has(id), `${p.id}: PSAP ${id} is not a current registry PSAP`).toBe(true);
        // Across a state line a centre may answer for the neighbour state's city (Moorhead MN: Fargo's).
        if (p.category !== "state_line") expect(registry.get(id)?.state, `${p.id}: PSAP ${id}`).toBe(p.state);
      }
      expect(
        p.answering.some((id) => registry.get(id)?.secondary === false),
        `${p.id}: no primary`,
      ).toBe(true);
    }
  });
});

if (!HAVE_DATA && process.env.CI === "true") {
  it("has the FCC registry data (PSAP_DATA_DIR) in CI", () => {
    throw new Error(`FCC data not found in ${DATA_DIR}: set PSAP_DATA_DIR`);
  });
}

/** Development-set places whose first PSAP must be right: every category, the rules' hard cases. */
const SLICE = [
  "chicago-il",
  "los-angeles-ca",
  "tucson-az",
  "miami-fl",
  "spring-tx",
  "carmichael-ca",
  "kendall-fl",
  "metairie-la",
  "palm-harbor-fl",
  "east-los-angeles-ca",
  "brandon-fl",
  "nashville-tn",
  "louisville-ky",
  "indianapolis-in",
  "las-vegas-nv",
  "paradise-nv",
  "jacksonville-fl",
  "charlotte-nc",
  "atlanta-dekalb-ga",
  "columbus-delaware-oh",
  "aurora-adams-co",
  "okc-canadian-ok",
  "bronx-ny",
  "brooklyn-ny",
  "queens-ny",
  "staten-island-ny",
  "providence-ri",
  "manchester-nh",
  "san-juan-pr",
  "vieques-pr",
  "culebra-pr",
  "hagatna-gu",
  "charlotte-amalie-vi",
  "kaycee-wy",
  "moorhead-mn",
  "pine-ridge-sd",
  "shiprock-nm",
  "anchorage-ak",
  "hilo-hi",
];

/** Places of the town-state development set: every category, the hard cases of towns and townships. */
const TOWN_SLICE = [
  "lexington-ma",
  "billerica-ma",
  "glastonbury-ct",
  "cherry-hill-nj",
  "cherry-hill-mall-nj",
  "old-bridge-nj",
  "hamilton-mercer-nj",
  "colonie-ny",
  "amherst-ny",
  "cheektowaga-ny",
  "harvard-ma",
  "norfolk-ma",
  "tolland-ct",
  "pennsauken-nj",
  "toms-river-nj",
  "carmel-ny",
  "drexel-hill-pa",
  "londonderry-nh",
  "westerly-ri",
];

describe.skipIf(!HAVE_DATA)("the full-resolution data (PSAP_DATA_DIR)", () => {
  let dataset: PsapDataset;
  let summary: MergeSummary;
  let store: MemoryPsapStore;
  beforeAll(async () => {
    ({ dataset, summary } = await prepareImport([
      ...fullResolutionPaths(DATA_DIR),
      ...SHIPPED_OPERATOR_FILES,
    ]));
    store = MemoryPsapStore.fromIndex(buildIndex(dataset, { version: "accuracy-test" }));
    resetPsapLookupCache(store);
  }, 180_000);

  const byId = (id: string) => dataset.psaps.find((p) => p.id === id);
  const servesPlace = (id: string, geoid: string) => dataset.served?.get(id)?.places.includes(geoid) ?? false;

  describe("classifies real registry PSAPs as they really are", () => {
    const cases: [string, string, string][] = [
      ["800", "Los Angeles Police Department Central Dispatch Center", "municipal"],
      ["798", "Los Angeles County Sheriff - Main", "county"],
      ["1015", "Uc Los Angeles Police Department", "special"],
      ["8886", "UW-Milwaukee Police Department", "special"],
      ["626", "Chp Los Angeles (los Angeles)", "special"],
      ["7891", "Department Of Public Safety - Tucson (Arizona DPS)", "special"],
      ["5989", "Rhode Island E9-1-1 Emergency Telephone System", "state"],
      ["4670", "State Of New Hampshire - Concord", "state"],
      ["8558", "Centro De Hato Rey (Puerto Rico's 9-1-1 bureau, registered in San Juan only)", "state"],
      ["5008", "Las Vegas Metropolitan Police Department", "regional"],
      ["2932", "Louisville Metrosafe Consolidated Communications", "regional"],
      ["6633", "Harris County SO", "county"],
      ["8415", "Miami-dade Communications Center", "county"],
      ["1540", "Indian River County Sheriffs Office (no tribe)", "county"],
      ["1532", "Hillsborough County 9-1-1 Administration", "special"],
      ["8163", "Oglala Sioux Tribe Department Of Public Safety (its reservation community)", "municipal"],
      ["5009", "Las Vegas Tribal Police Department (a colony in the city)", "special"],
      ["5140", "New York City Police Department -staten Island", "municipal"],
      ["1251", "Pueblo Police Department (Colorado's city, no tribe)", "municipal"],
      ["1034", "Ventura Police Department (Census: San Buenaventura (Ventura))", "municipal"],
      ["7905", "Plymouth Police (a Massachusetts town named like its county)", "municipal"],
      ["5556", "Westerville Communications Center (a town, not a western region)", "municipal"],
      ["4817", "Old Bridge Township Police Department (a township, not a bridge)", "municipal"],
      ["2804", "Overland Park Police Department (a city, not a park)", "municipal"],
      ["4743", "Hamilton Township PD - Mercer County", "municipal"],
      ["4708", "Cumberland County 9-1-1 Communications And Training Center", "county"],
      ["1401", "Tolland County Mutual Aid Emergency Communications Center", "regional"],
      ["1347", "Hamden Central Communications (the town's own)", "municipal"],
      ["8659", "177 Fighter Wing ANG", "special"],
      ["5057", "Colonie (the town's police, registered in Latham)", "municipal"],
    ];
    for (const [id, name, jurisdiction] of cases) {
      it(`${name}: ${jurisdiction}`, () => {
        expect(byId(id)?.jurisdiction).toBe(jurisdiction);
      });
    }
  });

  it("links a county centre to a city named as its office's site only where the city has no centre", () => {
    expect(servesPlace("479", "0477000")).toBe(false); // Pima County Sheriffs Office-tucson: not Tucson
    expect(servesPlace("8415", "1245000")).toBe(false); // Miami-dade Communications Center: not Miami
    expect(servesPlace("1045", "0684410")).toBe(true); // Lasd - West Hollywood: its contract city
  });

  it("names a consolidated city's balance as the city, in words a dispatcher uses", async () => {
    for (const [id, name] of [
      ["indianapolis-in", "Indianapolis"],
      ["nashville-tn", "Nashville-Davidson"],
    ] as const) {
      const place = DEV.find((p) => p.id === id) as TruthPlace;
      const { area } = await lookupPsaps(store, { latitude: place.latitude, longitude: place.longitude });
      expect(area, id).toMatchObject({ place: name, place_kind: "city" });
    }
  });

  it("puts each NYPD borough row in its own borough", async () => {
    for (const p of DEV.filter((d) => d.category === "nyc")) {
      const row = byId(p.answering[0] as string);
      expect(row && Math.hypot(row.latitude - p.latitude, row.longitude - p.longitude), p.id).toBeLessThan(
        0.12,
      );
    }
  });

  it("classifies every current registry PSAP by a named rule or a shipped override row: no default", () => {
    expect(dataset.psaps.length).toBeGreaterThan(6_500);
    expect(summary.unclassified).toEqual([]);
    expect(
      Object.keys(summary.rules).filter((rule) => /unclassified|assumed/.test(rule) && summary.rules[rule]),
    ).toEqual([]);
    // Every override row that sets a jurisdiction says why.
    expect(summary.overrides.length).toBeGreaterThan(30);
    for (const o of summary.overrides) expect(o.reason, o.id).not.toBe("(no reason given)");
  });

  it("links municipal centres to towns and townships, and names a town as the place a dispatcher says", async () => {
    const links = (id: string) => dataset.served?.get(id)?.places ?? [];
    expect(links("5057")).toContain("3600117343"); // Colonie: the town, not the village of Colonie
    expect(links("4703")).toContain("3400712280"); // Cherry Hill Township Police: Cherry Hill township
    const mall = TOWNS.find((p) => p.id === "cherry-hill-mall-nj") as TruthPlace;
    const { area } = await lookupPsaps(store, { latitude: mall.latitude, longitude: mall.longitude });
    // A census-designated community inside a township never hides it.
    expect(area).toMatchObject({ state: "NJ", county: "Camden", place: "Cherry Hill", place_kind: "town" });
  });

  it.each([...SLICE, ...TOWN_SLICE])("%s: the first PSAP is the centre that answers", async (id) => {
    const place = [...DEV, ...TOWNS].find((p) => p.id === id) as TruthPlace;
    expect(place, id).toBeDefined();
    const result = await lookupPsaps(store, {
      latitude: place.latitude,
      longitude: place.longitude,
      accuracy: 20,
    });
    expect(place.answering, `${id}: first ${result.psaps[0]?.id} ${result.psaps[0]?.name}`).toContain(
      result.psaps[0]?.id,
    );
  });
});
