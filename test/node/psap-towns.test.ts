// Towns and townships as municipalities: the town-boundary GeoJSON and a Census county-subdivision
// shapefile ZIP as inputs, a town a Census place already stands for left out, a township's police linked
// to it and first inside it (a community inside never hides it), a member list that gives a town to a
// county centre, and the report that accounts for every feature and row.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import shpwrite from "@mapbox/shp-write";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../data/import/cli.ts";
import { MemoryKvTarget } from "../../data/import/kv.ts";
import { prepareImport } from "../../data/import/pipeline.ts";
import { buildIndex } from "../../data/index/build.ts";
import type { PsapDataset } from "../../data/index/dataset.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import { lookupPsaps } from "../../src/answer/lookup.ts";
import { resetPsapLookupCache } from "../../src/psap/lookup.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "psap-towns-test-"));
  resetPsapLookupCache();
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  resetPsapLookupCache();
});

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** A rectangle [south, west, north, east] as a GeoJSON Polygon. */
function box(s: number, w: number, n: number, e: number) {
  return {
    type: "Polygon" as const,
    coordinates: [
      [
        [w, s],
        [e, s],
        [e, n],
        [w, n],
        [w, s],
      ],
    ],
  };
}

// Fictional municipalities inside Camden County, New Jersey (FIPS 34007), on real ground so that the real
// county shapes of every import hold them.
const TESTVILLE = box(39.85, -75.02, 39.91, -74.96);
const BOROVILLE = box(39.85, -74.96, 39.91, -74.92);
const REGIONVILLE = box(39.8, -75.02, 39.85, -74.96);
const MALL_PARK = box(39.87, -75.0, 39.88, -74.99);

const REGISTRY = [
  "PSAP ID,PSAP Name,State,County,City,Type of Change,Comments,Date Last Modified",
  "9001,Testville Township Police Department,NJ,Camden,Testville,NC,,",
  "9002,Boroville Police Department,NJ,Camden,Boroville,NC,,",
  "9003,Camden County Communications Center,NJ,Camden,Lindenwold,NC,,",
  "9004,Regionville Township Police,NJ,Camden,Regionville,NC,,",
  // A centre in another county: a state whose every centre sits in one county is answered by them all.
  "9005,Trenton Police Department,NJ,Mercer,Trenton,NC,,",
  "",
].join("\n");

const PLACES = {
  type: "FeatureCollection",
  features: [
    {
      type: "Feature",
      properties: {
        GEOID: "3499901",
        STATEFP: "34",
        NAME: "Boroville",
        NAMELSAD: "Boroville borough",
        CLASSFP: "C1",
        INTPTLAT: "39.88",
        INTPTLON: "-74.94",
      },
      geometry: BOROVILLE,
    },
    {
      type: "Feature",
      properties: {
        GEOID: "3499902",
        STATEFP: "34",
        NAME: "Mall Park",
        NAMELSAD: "Mall Park CDP",
        CLASSFP: "U1",
        INTPTLAT: "39.875",
        INTPTLON: "-74.995",
      },
      geometry: MALL_PARK,
    },
  ],
};

function town(geoid: string | null, name: string, kind: string, geometry: ReturnType<typeof box>) {
  return {
    type: "Feature",
    properties: {
      STATEFP: "34",
      COUNTYFP: "007",
      GEOID: geoid,
      NAME: name,
      NAMELSAD: `${name} ${kind}`,
      kind,
      source: "test",
    },
    geometry,
  };
}

const TOWNS = {
  type: "FeatureCollection",
  features: [
    town("3400799001", "Testville", "township", TESTVILLE),
    // The same borough as the Census place: the Census place stands for it.
    town("3400799002", "Boroville", "borough", BOROVILLE),
    town("3400799003", "Regionville", "township", REGIONVILLE),
    town(null, "Pine Barrens", "unorganized", box(39.75, -75.02, 39.8, -74.96)),
  ],
};

const MEMBERS = [
  "psap_id,state,county,municipality,geoid,source,read_on,note",
  "9003,NJ,Camden,Regionville,,https://example.org/camden-county-members,2026-11-27,joined 2014; its police row 9004 is still current", // 2
  "9003,NJ,Camden,Nowhere,,https://example.org/camden-county-members,2026-11-27,", // 3
  "9999,NJ,Camden,Testville,,https://example.org/camden-county-members,2026-11-27,", // 4
  "9003,NJ,Camden,Testville,,,2026-11-27,", // 5: no source
  "",
].join("\n");

async function imported(paths: string[]): Promise<{ dataset: PsapDataset; store: MemoryPsapStore }> {
  const { dataset } = await prepareImport(paths);
  const store = MemoryPsapStore.fromIndex(buildIndex(dataset));
  resetPsapLookupCache(store);
  return { dataset, store };
}

describe("town boundaries as an import input", () => {
  it("links a township's police to the township and ranks it first inside, a community inside naming the township", async () => {
    const { store } = await imported([
      file("registry.csv", REGISTRY),
      file("places.geojson", JSON.stringify(PLACES)),
      file("towns.geojson.gz", gzipSync(JSON.stringify(TOWNS))),
    ]);
    const at = (latitude: number, longitude: number) =>
      lookupPsaps(store, { latitude, longitude, accuracy: 20 });
    const inTestville = await at(39.89, -75.01);
    expect(inTestville.area).toMatchObject({
      state: "NJ",
      county: "Camden",
      place: "Testville",
      place_kind: "town",
    });
    expect(inTestville.psaps.map((p) => [p.id, p.match]).slice(0, 2)).toEqual([
      ["9001", "city"],
      ["9003", "county"],
    ]);
    const inMall = await at(39.875, -74.995);
    expect(inMall.area).toMatchObject({ place: "Testville", place_kind: "town" });
    expect(inMall.psaps[0]?.id).toBe("9001");
    const inBoroville = await at(39.88, -74.94);
    expect(inBoroville.area).toMatchObject({ place: "Boroville", place_kind: "city" });
    expect(inBoroville.psaps[0]?.id).toBe("9002");
    // Unorganized land has no town government: the county answers, and no town is named.
    const unorganized = await at(39.77, -75.0);
    expect(unorganized.area).toMatchObject({ county: "Camden", place: null });
    expect(unorganized.psaps[0]?.id).toBe("9003");
  });

  it("accounts for every town feature: kept, the same as a Census place, or without a government of its own", async () => {
    const p = await prepareImport([
      file("registry.csv", REGISTRY),
      file("places.geojson", JSON.stringify(PLACES)),
      file("towns.geojson", JSON.stringify(TOWNS)),
    ]);
    const report = p.files.find((f) => f.kind === "towns");
    expect(report).toMatchObject({ rowsRead: 4, kept: 2 });
    expect(report?.dropped).toEqual([
      {
        line: 4,
        reason: "no town government of its own (unorganized or statistical): the county answers there",
      },
      { line: 2, reason: "the same municipality as an incorporated Census place, which stands for it" },
    ]);
    expect(p.summary.places).toMatchObject({ towns: 2, incorporated: 1, communities: 1 });
    expect(p.summary.municipal.toTowns).toBe(2);
  });

  it("reads the Census Bureau's county-subdivision shapefile ZIP (LSAD and FUNCSTAT decide what is a town)", async () => {
    const cousub = {
      type: "FeatureCollection",
      features: [
        {
          type: "Feature",
          properties: {
            STATEFP: "34",
            COUNTYFP: "007",
            COUSUBFP: "99001",
            GEOID: "3400799001",
            NAME: "Testville",
            NAMELSAD: "Testville township",
            LSAD: "44",
            FUNCSTAT: "A",
            INTPTLAT: "+39.8800000",
            INTPTLON: "-074.9900000",
          },
          geometry: TESTVILLE,
        },
        {
          type: "Feature",
          properties: {
            STATEFP: "34",
            COUNTYFP: "007",
            COUSUBFP: "99009",
            GEOID: "3400799009",
            NAME: "District 9",
            NAMELSAD: "District 9 CCD",
            LSAD: "22",
            FUNCSTAT: "S",
            INTPTLAT: "+39.7700000",
            INTPTLON: "-075.0000000",
          },
          geometry: box(39.75, -75.02, 39.8, -74.96),
        },
      ],
    };
    const zip = (await shpwrite.zip(cousub as GeoJSON.FeatureCollection, {
      outputType: "nodebuffer",
      compression: "DEFLATE",
      types: { polygon: "tl_2020_34_cousub" },
    })) as Buffer;
    const p = await prepareImport([file("registry.csv", REGISTRY), file("tl_2020_34_cousub.zip", zip)]);
    const report = p.files.find((f) => f.kind === "towns");
    expect(report).toMatchObject({ rowsRead: 2, kept: 1 });
    expect(p.dataset.areas.find((a) => a.kind === "town")).toMatchObject({
      id: "3400799001",
      name: "Testville",
      state: "NJ",
      psapIds: ["9001"],
    });
  });
});

describe("the member-towns file", () => {
  it("gives a town to the centre its member list names, ahead of the town's stale police row, and reports every bad row", async () => {
    const paths = [
      file("registry.csv", REGISTRY),
      file("places.geojson", JSON.stringify(PLACES)),
      file("towns.geojson", JSON.stringify(TOWNS)),
      file("members.csv", MEMBERS),
    ];
    const p = await prepareImport(paths);
    const report = p.files.find((f) => f.kind === "member-towns");
    expect(report).toMatchObject({ rowsRead: 4, kept: 1 });
    expect(report?.dropped).toEqual([
      { line: 5, reason: "bad row: source is required (where the member list was read)" },
      { line: 3, reason: "no municipality of that name in that county" },
      { line: 4, reason: "no PSAP with id 9999 in this import" },
    ]);
    expect(p.summary.memberTowns).toMatchObject({ centres: 1, municipalities: 1 });
    const store = MemoryPsapStore.fromIndex(buildIndex(p.dataset));
    resetPsapLookupCache(store);
    const inRegionville = await lookupPsaps(store, { latitude: 39.82, longitude: -74.99, accuracy: 20 });
    expect(inRegionville.psaps.map((r) => [r.id, r.match]).slice(0, 2)).toEqual([
      ["9003", "city"],
      ["9004", "county"],
    ]);
    // The county centre answers for its member town only, not for a town with a police of its own.
    const inTestville = await lookupPsaps(store, { latitude: 39.89, longitude: -75.01, accuracy: 20 });
    expect(inTestville.psaps[0]?.id).toBe("9001");
  });
});

describe("a member row across a state line", () => {
  it("gives the town to a centre of another state that the row names in psap_state, and drops an unknown or the town's own", async () => {
    const registry = `${REGISTRY}9010,Delaware Valley Regional 911,PA,Philadelphia,Philadelphia,NC,,\n`;
    const members = [
      "psap_id,psap_state,state,county,municipality,geoid,source,checked_on,note",
      "9010,PA,NJ,Camden,Regionville,,https://example.org/regional-members,2026-11-28,across the state line", // 2
      "9010,NJ,NJ,Camden,Testville,,https://example.org/regional-members,2026-11-28,", // 3: psap_state is its own
      "9010,XX,NJ,Camden,Testville,,https://example.org/regional-members,2026-11-28,", // 4: no such state
      "",
    ].join("\n");
    const p = await prepareImport([
      file("registry.csv", registry),
      file("places.geojson", JSON.stringify(PLACES)),
      file("towns.geojson", JSON.stringify(TOWNS)),
      file("members.csv", members),
    ]);
    const report = p.files.find((f) => f.kind === "member-towns");
    expect(report).toMatchObject({ rowsRead: 3, kept: 1 });
    expect(report?.dropped).toEqual([
      { line: 3, reason: "bad row: psap_state is for a centre in another state: leave it empty" },
      { line: 4, reason: "bad row: psap_state is not a US state or territory code" },
    ]);
    const store = MemoryPsapStore.fromIndex(buildIndex(p.dataset));
    resetPsapLookupCache(store);
    const inRegionville = await lookupPsaps(store, { latitude: 39.82, longitude: -74.99, accuracy: 20 });
    expect(inRegionville.psaps[0]).toMatchObject({ id: "9010", state: "PA", match: "city" });
    // Its own police, still current in the registry, follows.
    expect(inRegionville.psaps.map((r) => r.id)).toContain("9004");
  });
});

describe("the shipped operator files", () => {
  it("go into every import of real data, and stay out when asked or for the demo set alone", async () => {
    const inputs = [
      file("registry.csv", REGISTRY),
      file("places.geojson", JSON.stringify(PLACES)),
      file("towns.geojson", JSON.stringify(TOWNS)),
    ];
    const target = () => new MemoryKvTarget();
    const shipped = await runCli([...inputs, "--dry-run"], target);
    expect(shipped.code).toBe(0);
    expect(shipped.output).toMatch(/data\/overrides\/psap-overrides\.csv \(overrides\)/);
    expect(shipped.output).toMatch(/data\/directory\/members\/MA\.csv \(member-towns\)/);
    expect(shipped.output).toMatch(/data\/directory\/lines\/IL\.csv \(directory-lines\)/);
    expect(shipped.output).toMatch(/data\/directory\/areas\.csv \(area-links\)/);
    const noDirectory = await runCli([...inputs, "--dry-run", "--no-directory"], target);
    expect(noDirectory.output).toMatch(/data\/overrides\/psap-overrides\.csv \(overrides\)/);
    expect(noDirectory.output).not.toMatch(/data\/directory\//);
    const without = await runCli([...inputs, "--dry-run", "--no-shipped-overrides"], target);
    expect(without.output).not.toMatch(/data\/(overrides|directory)\//);
    const demo = await runCli(["--demo", "--dry-run"], target);
    expect(demo.output).not.toMatch(/data\/(overrides|directory)\//);
  });
});
