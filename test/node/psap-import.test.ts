// The import pipeline: bad rows (with line numbers), duplicates, empty and unreadable files,
// operator overrides, boundary polygons, and the atomic switch of the KV index.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IMPORT_NODE_FLAGS, runCli } from "../../data/import/cli.ts";
import { ImportError } from "../../data/import/errors.ts";
import { MemoryKvTarget } from "../../data/import/kv.ts";
import { prepareImport } from "../../data/import/pipeline.ts";
import { planVersions, publishIndex } from "../../data/import/publish.ts";
import { parseFlags } from "../../data/import/read-fcc-csv.ts";
import { normalizePhone } from "../../data/import/read-project-csv.ts";
import { buildIndex } from "../../data/index/build.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import { POINTER_KEY, parseManifest } from "../../lib/psap-index/format.ts";
import { lookupPsaps } from "../../src/answer/lookup.ts";
import { type PsapIndexStore, resetPsapLookupCache } from "../../src/psap/lookup.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "psap-import-test-"));
  resetPsapLookupCache();
});
afterEach(() => resetPsapLookupCache());

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const FCC_HEADER = "PSAP ID,PSAP Name,State,County,City,Type of Change,Comments,Date Last Modified";
const FCC_ROWS = [
  FCC_HEADER, // line 1
  "8927,Southland Dispatch Center,IL,Cook,Hazel Crest,A,added,2026-02-06", // 2
  '100,"Old Center\nsecond line",IL,Cook,Chicago,O,orphaned,2020-01-01', // 3-4
  "abc,No Number,IL,Cook,Chicago,NC,,", // 5
  "101,,IL,Cook,Chicago,NC,,", // 6
  "102,Nowhere,XX,Cook,Chicago,NC,,", // 7
  '103,Secondary One,IL,"Du Page, Kane",Wheaton,"M, S",,2024-01-01', // 8
  "104,Dup Old,IL,Cook,Chicago,NC,,2019-01-01", // 9
  "104,Dup New,IL,Cook,Chicago,M,,2025-01-01", // 10
  "105,Secondary Two,IL,Cook,Evanston,M-S,,2024-01-01", // 11
  "106,Lost Place,IL,Atlantis,Nowhereville,NC,,", // 12
  "107,Centroid Place,IL,Lake,Nowhereville,NC,,", // 13
  "",
].join("\n");

function geocodes(): string {
  return JSON.stringify([
    { psap_id: "8927", geocode_city_level: { latitude: "41.5717", longitude: "-87.6945" } },
    { psap_id: "999", geocode_city_level: { latitude: "40", longitude: "-80" } },
    { psap_id: "104", geocode_city_level: {} },
    { psap_id: "104" },
  ]);
}

describe("FCC registry CSV", () => {
  it("drops orphans and bad rows with their line numbers, resolves duplicates, marks secondaries", async () => {
    const p = await prepareImport([
      file("fcc_master_psap_registry_v9.999.csv", FCC_ROWS),
      file("export.json", geocodes()),
    ]);
    const [csv, json] = p.files;
    expect(csv?.rowsRead).toBe(11);
    expect(csv?.dropped).toEqual([
      { line: 3, reason: "orphaned (O): no longer a PSAP" },
      { line: 5, reason: "bad row: PSAP ID missing or not a number" },
      { line: 6, reason: "bad row: PSAP Name missing" },
      { line: 7, reason: "bad row: State is not a US state or territory code" },
      { line: 9, reason: "duplicate PSAP ID 104 (kept line 10)" },
    ]);
    expect(csv?.kept).toBe(6);
    expect(json).toMatchObject({ rowsRead: 4, kept: 1 });
    expect(json?.dropped.map((d) => [d.line, d.reason])).toEqual([
      [3, "no geocode (latitude or longitude missing)"],
      [4, "no geocode (latitude or longitude missing)"],
      [2, "not in the current registry (orphaned or unknown): ignored"],
    ]);
    const byId = new Map(p.dataset.psaps.map((x) => [x.id, x]));
    expect(byId.get("104")?.name).toBe("Dup New");
    expect(byId.get("103")?.type).toBe("secondary");
    expect(byId.get("105")?.type).toBe("secondary");
    expect(byId.get("8927")).toMatchObject({
      latitude: 41.5717,
      longitude: -87.6945,
      location_precision: "city",
      phone: null,
    });
    // Without Census places, a PSAP without a geocode sits at its county's centroid; 106's county does not exist.
    expect(byId.get("105")?.location_precision).toBe("county");
    expect(byId.get("107")?.location_precision).toBe("county");
    expect(p.summary.unplaced).toEqual([
      { id: "106", reason: "no geocode, no Census place and no county matched" },
    ]);
    expect(p.summary.unmatchedCounties).toEqual([{ state: "IL", county: "Atlantis", psaps: 1 }]);
    expect(p.summary.placement).toEqual({
      "operator building": 0,
      "service area": 0,
      municipality: 0,
      "registry geocode": 1,
      "county centroid": 4,
    });
    // "Du Page, Kane" names two counties: 103 serves both.
    const areas = p.dataset.areas.filter((a) => a.psapIds.includes("103")).map((a) => a.id);
    expect(areas.sort()).toEqual(["17043", "17089"]);
    expect(p.dataset.dataVersion).toBe("FCC Master PSAP Registry v9.999 (2026-02-06)");
  });

  it("reads every spelling of the flags", () => {
    expect(parseFlags("M, S")).toEqual(["M", "S"]);
    expect(parseFlags("S,M")).toEqual(["S", "M"]);
    expect(parseFlags("M-S")).toEqual(["M", "S"]);
    expect(parseFlags("A, S")).toEqual(["A", "S"]);
    expect(parseFlags("NC")).toEqual(["NC"]);
  });
});

describe("project CSV", () => {
  const header = "id,name,type,state,county,city,phone,latitude,longitude,location_precision";

  it("fills fields of registry PSAPs, adds new ones and drops bad rows with line numbers", async () => {
    const ops = [
      header,
      "8927,,,,,,(708) 555-1234,41.57,-87.69,", // 2: phone and building coordinates for an FCC PSAP
      "op-1,Operator Center,secondary,IL,Cook,Chicago,+13125550100,41.88,-87.63,building", // 3
      "op-2,Bad Phone,primary,IL,Cook,Chicago,12345,,,", // 4
      "op-3,Half Coords,primary,IL,Cook,Chicago,,41.88,,", // 5
      "op-4,Bad Type,tertiary,IL,Cook,Chicago,,,,", // 6
      "op-1,Again,primary,IL,Cook,Chicago,,,,", // 7
      "op-5,,,,,,,,,", // 8: a new id without name or state
      "",
    ].join("\n");
    const p = await prepareImport([file("fcc_v1.0.csv", FCC_ROWS), file("ops.csv", ops)]);
    const report = p.files[1];
    expect(report?.rowsRead).toBe(7);
    expect(report?.dropped.map((d) => d.line)).toEqual([4, 5, 6, 7]);
    expect(report?.dropped[0]?.reason).toMatch(/phone/);
    const byId = new Map(p.dataset.psaps.map((x) => [x.id, x]));
    expect(byId.get("8927")).toMatchObject({
      name: "Southland Dispatch Center",
      phone: "+17085551234",
      latitude: 41.57,
      location_precision: "building",
    });
    expect(byId.get("op-1")).toMatchObject({ type: "secondary", phone: "+13125550100" });
    expect(byId.has("op-5")).toBe(false);
    expect(p.summary.unplaced.some((u) => u.id === "op-5" && /line 8/.test(u.reason))).toBe(true);
    expect(p.summary.withPhone).toBe(2);
    expect(p.summary.placement["operator building"]).toBe(2);
  });

  it("normalises phone numbers to E.164 and never invents one", () => {
    expect(normalizePhone("708-555-1234")).toBe("+17085551234");
    expect(normalizePhone("1 (708) 555.1234")).toBe("+17085551234");
    expect(normalizePhone("+442071234567")).toBe("+442071234567");
    expect(normalizePhone("555-1234")).toBeNull();
    expect(normalizePhone("+1 023 555 1234")).toBeNull();
  });
});

describe("Census places", () => {
  /** A square place around a point, with the Census PLACE layer's properties. */
  function place(geoid: string, name: string, classFp: string, lat: number, lon: number, half: number) {
    return {
      type: "Feature",
      properties: {
        GEOID: geoid,
        STATEFP: geoid.slice(0, 2),
        NAME: name,
        NAMELSAD: `${name} ${classFp.startsWith("C") ? "city" : "CDP"}`,
        CLASSFP: classFp,
        INTPTLAT: String(lat),
        INTPTLON: String(lon),
      },
      geometry: {
        type: "Polygon",
        coordinates: [
          [
            [lon - half, lat - half],
            [lon + half, lat - half],
            [lon + half, lat + half],
            [lon - half, lat + half],
            [lon - half, lat - half],
          ],
        ],
      },
    };
  }
  const places = {
    type: "FeatureCollection",
    features: [
      place("1724582", "Evanston", "C1", 42.045, -87.69, 0.03),
      place("1778000", "Nowhereville", "C1", 42.3, -87.9, 0.03),
      place("1799999", "Quiet Acres", "U1", 41.65, -87.85, 0.02),
      { type: "Feature", properties: { GEOID: "", NAME: "broken" }, geometry: null },
    ],
  };

  it("places a PSAP at its registered place, links a city's own centre to it and reports bad features", async () => {
    const rows = [
      FCC_HEADER,
      "105,Evanston Police Department,IL,Cook,Evanston,NC,,2024-01-01",
      "107,Lake County Sheriff,IL,Lake,Nowhereville,NC,,2024-01-01",
      "",
    ].join("\n");
    const p = await prepareImport([
      file("fcc_v1.0.csv", rows),
      file("places.geojson", JSON.stringify(places)),
    ]);
    const report = p.files[1];
    expect(report).toMatchObject({ kind: "census-places", rowsRead: 4, kept: 3 });
    expect(report?.dropped.map((d) => d.line)).toEqual([4]);
    const byId = new Map(p.dataset.psaps.map((x) => [x.id, x]));
    expect(byId.get("105")).toMatchObject({ latitude: 42.045, longitude: -87.69, jurisdiction: "municipal" });
    expect(byId.get("107")).toMatchObject({ jurisdiction: "county" });
    expect(p.summary.placement.municipality).toBe(2);
    // Evanston's city limits list its police; the sheriff answers for Lake County.
    const evanston = p.dataset.areas.find((a) => a.id === "1724582");
    expect(evanston).toMatchObject({ kind: "city", name: "Evanston", psapIds: ["105"] });
    expect(p.dataset.areas.find((a) => a.id === "1799999")).toMatchObject({ kind: "community", psapIds: [] });
    const store = memoryStore(buildIndex(p.dataset));
    const inside = await lookupPsaps(store, { latitude: 42.05, longitude: -87.69, accuracy: 10 });
    expect(inside.area).toMatchObject({ state: "IL", county: "Cook", place: "Evanston", place_kind: "city" });
    expect(inside.psaps[0]).toMatchObject({ id: "105", match: "city" });
    const community = await lookupPsaps(store, { latitude: 41.65, longitude: -87.85, accuracy: 10 });
    expect(community.area).toMatchObject({ place: "Quiet Acres", place_kind: "community", county: "Cook" });
  });
});

describe("consolidated cities and territory-wide centres", () => {
  it("reads a consolidated city's balance as the city, under the name a dispatcher uses", async () => {
    const half = 0.1;
    const ring = [
      [-86.16 - half, 39.77 - half],
      [-86.16 + half, 39.77 - half],
      [-86.16 + half, 39.77 + half],
      [-86.16 - half, 39.77 + half],
      [-86.16 - half, 39.77 - half],
    ];
    const balance = {
      type: "FeatureCollection",
      features: [
        {
          type: "Feature",
          properties: {
            GEOID: "1836003",
            STATEFP: "18",
            NAME: "Indianapolis city (balance)",
            NAMELSAD: "Indianapolis city (balance)",
            CLASSFP: "C8",
            FUNCSTAT: "F",
            INTPTLAT: "39.77",
            INTPTLON: "-86.16",
          },
          geometry: { type: "Polygon", coordinates: [ring] },
        },
      ],
    };
    const rows = [
      FCC_HEADER,
      "2618,Metropolitan Emergency Services Agency (MESA),IN,Marion,Indianapolis,M,,2024-01-01",
      "",
    ];
    const p = await prepareImport([
      file("fcc_v1.0.csv", rows.join("\n")),
      file("places.geojson", JSON.stringify(balance)),
    ]);
    expect(p.dataset.areas.find((a) => a.id === "1836003")).toMatchObject({
      kind: "city",
      name: "Indianapolis",
      psapIds: ["2618"],
    });
    const found = await lookupPsaps(memoryStore(buildIndex(p.dataset)), {
      latitude: 39.77,
      longitude: -86.16,
      accuracy: 10,
    });
    expect(found.area).toMatchObject({
      state: "IN",
      county: "Marion",
      place: "Indianapolis",
      place_kind: "city",
    });
    expect(found.psaps[0]).toMatchObject({ id: "2618", match: "city" });
  });

  const TERRITORY_ROWS = [
    FCC_HEADER,
    "5942,Centro De Guaynabo,PR,San Juan,Rio Piedras,M,,2017-09-06",
    "8558,Centro De Hato Rey,PR,San Juan,Hato Rey,A,,2017-09-06",
    '8221,St. Thomas 9-1-1 Call Center,VI,U.s. Virgin Islands,"St, Thomas",A,,2008-10-29',
    "8220,St. Croix 9-1-1 Call Center,VI,U.s. Virgin Islands,Kingshill,A,,2008-10-29",
  ];
  const TERRITORY_GEOCODES = JSON.stringify([
    { psap_id: "5942", geocode_city_level: { latitude: "18.3985", longitude: "-66.0614" } },
    { psap_id: "8558", geocode_city_level: { latitude: "18.4163", longitude: "-66.0606" } },
    { psap_id: "8221", geocode_city_level: { latitude: "18.3419", longitude: "-64.9307" } },
    { psap_id: "8220", geocode_city_level: { latitude: "17.7247", longitude: "-64.7886" } },
  ]);
  const VIEQUES = { latitude: 18.1263, longitude: -65.4401, accuracy: 30 };

  it("lets the centres of a territory of many counties, all registered in one, answer for all of it", async () => {
    const p = await prepareImport([
      file("fcc_v1.0.csv", [...TERRITORY_ROWS, ""].join("\n")),
      file("fcc_geocodes.json", TERRITORY_GEOCODES),
    ]);
    const byId = new Map(p.dataset.psaps.map((x) => [x.id, x]));
    expect(byId.get("5942")?.jurisdiction).toBe("state");
    expect(byId.get("8558")?.jurisdiction).toBe("state");
    expect(byId.get("8221")?.jurisdiction).not.toBe("state");
    expect(p.summary.rules["every centre of a state or territory of many counties in one county"]).toBe(2);
    // Vieques: the US Virgin Islands' centre is nearer (59 km), Puerto Rico's answer.
    const found = await lookupPsaps(memoryStore(buildIndex(p.dataset)), VIEQUES);
    expect(found.area).toMatchObject({ state: "PR", county: "Vieques" });
    expect(found.psaps.map((x) => [x.id, x.match])).toEqual([
      ["5942", "county"],
      ["8558", "county"],
      ["8221", "nearest"],
      ["8220", "nearest"],
    ]);
  });

  it("keeps the county rules of a state whose centres are registered in two counties or more", async () => {
    const rows = [...TERRITORY_ROWS.slice(0, 2), "5943,Centro De Ponce,PR,Ponce,Ponce,M,,2017-09-06", ""];
    const p = await prepareImport([
      file("fcc_v1.0.csv", rows.join("\n")),
      file("fcc_geocodes.json", TERRITORY_GEOCODES),
    ]);
    expect(p.dataset.psaps.filter((x) => x.jurisdiction === "state")).toEqual([]);
    expect(
      p.summary.rules["every centre of a state or territory of many counties in one county"],
    ).toBeUndefined();
  });
});

describe("GeoJSON boundaries", () => {
  it("gives the boundary match to the PSAP it names and reports features it cannot use", async () => {
    const square = [
      [
        [-87.7, 41.8],
        [-87.6, 41.8],
        [-87.6, 41.9],
        [-87.7, 41.9],
        [-87.7, 41.8],
      ],
    ];
    const geo = {
      type: "FeatureCollection",
      features: [
        {
          type: "Feature",
          properties: { PSAP_ID: "105", ES_NGUID: "urn:x:1" },
          geometry: { type: "Polygon", coordinates: square },
        },
        {
          type: "Feature",
          properties: { DsplayName: "no id" },
          geometry: { type: "Polygon", coordinates: square },
        },
        {
          type: "Feature",
          properties: { PSAP_ID: "777" },
          geometry: { type: "Polygon", coordinates: square },
        },
        { type: "Feature", properties: { PSAP_ID: "104" }, geometry: { type: "Point", coordinates: [0, 0] } },
      ],
    };
    const p = await prepareImport([
      file("fcc_v1.0.csv", FCC_ROWS),
      file("areas.geojson", JSON.stringify(geo)),
    ]);
    const report = p.files[1];
    expect(report).toMatchObject({ rowsRead: 4, kept: 1 });
    expect(report?.dropped.map((d) => d.line).sort()).toEqual([2, 3, 4]);
    const store = memoryStore(buildIndex(p.dataset));
    const r = await lookupPsaps(store, { latitude: 41.85, longitude: -87.65 });
    // The operator's service area comes first (docs/contract.md, section 4), even for a secondary; then Cook County's
    // centres by jurisdiction (104 county, 8927 regional).
    expect(r.psaps.slice(0, 3).map((x) => [x.id, x.match])).toEqual([
      ["105", "boundary"],
      ["104", "county"],
      ["8927", "county"],
    ]);
    // 105 no longer matches by its county: outside its boundary but in Cook County it is "nearest".
    const outside = await lookupPsaps(store, { latitude: 41.6, longitude: -87.65 });
    expect(outside.psaps.find((x) => x.id === "105")?.match).toBe("nearest");
    expect(outside.psaps[0]?.match).toBe("county");
  });
});

describe("unreadable inputs stop the import", () => {
  it.each([
    ["an empty file", () => file("empty.csv", "")],
    ["a missing file", () => join(dir, "missing.csv")],
    [
      "a directory",
      () => {
        const d = join(dir, "sub");
        mkdirSync(d);
        return d;
      },
    ],
    ["broken JSON", () => file("broken.json", "[{")],
    ["an unknown CSV header", () => file("other.csv", "a,b,c\n1,2,3\n")],
    ["an unclosed quote", () => file("quote.csv", `${FCC_HEADER}\n1,"open,IL,Cook,X,NC,,\n`)],
    ["a header-only registry", () => file("fcc.csv", `${FCC_HEADER}\n`)],
  ])("%s", async (_name, make) => {
    const path = make();
    await expect(prepareImport([path])).rejects.toThrow(ImportError);
  });

  it("writes nothing, leaves the index as it was and exits 1", async () => {
    const kv = new MemoryKvTarget();
    const good = await runCli([file("fcc_v1.0.csv", FCC_ROWS)], () => kv);
    expect(good.code).toBe(0);
    const before = new Map(kv.data);
    const bad = await runCli([file("fcc_v1.0.csv", FCC_ROWS), join(dir, "missing.json")], () => kv);
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(/missing\.json: cannot read the file \(ENOENT\)/);
    expect(kv.data).toEqual(before);
  });
});

function memoryStore(built: ReturnType<typeof buildIndex>): PsapIndexStore {
  return MemoryPsapStore.fromIndex(built);
}

function kvStore(kv: MemoryKvTarget): PsapIndexStore {
  return { get: (async (key: string) => kv.data.get(key) ?? null) as PsapIndexStore["get"] };
}

describe("atomic switch", () => {
  it("writes every entry before the pointer, and keeps the previous version readable", async () => {
    const kv = new MemoryKvTarget();
    const csv = file("fcc_v1.0.csv", FCC_ROWS);
    expect((await runCli([csv], () => kv)).code).toBe(0);
    const first = parseManifest(kv.data.get(POINTER_KEY) ?? "");
    expect(kv.writes.at(-1)).toBe(POINTER_KEY);
    expect(kv.writes.filter((k) => k === POINTER_KEY)).toHaveLength(1);
    const isCatalogue = (k: string) => /^psap:v:[^:]+:catalogue/.test(k);
    expect(first?.entries).toBe(kv.writes.filter((k) => k !== POINTER_KEY && !isCatalogue(k)).length);
    expect(kv.writes.some(isCatalogue)).toBe(true);

    kv.writes.length = 0;
    const second = await runCli([csv, "--data-version", "second"], () => kv);
    expect(second.output).toMatch(
      /Keys written to memory: \d+ \(\d+ entries, \d+ catalogue, then the pointer\)/,
    );
    const now = parseManifest(kv.data.get(POINTER_KEY) ?? "");
    expect(kv.writes.at(-1)).toBe(POINTER_KEY);
    expect(now?.data_version).toBe("second");
    expect(now?.previous.map((v) => v.version)).toEqual([first?.version]);
    // An isolate still holding the old pointer still finds all of the old version's entries.
    const oldKeys = [...kv.data.keys()].filter(
      (k) => k.startsWith(`psap:v:${first?.version}:`) && !isCatalogue(k),
    );
    expect(oldKeys).toHaveLength(first?.entries ?? -1);

    const store = kvStore(kv);
    expect((await lookupPsaps(store, { latitude: 41.88, longitude: -87.63 })).data_version).toBe("second");
  });

  it("deletes versions two or more imports old once no cache can point at them", async () => {
    const kv = new MemoryKvTarget();
    const dataset = (await prepareImport([file("fcc_v1.0.csv", FCC_ROWS)])).dataset;
    const t0 = new Date("2026-01-01T00:00:00Z");
    const at = (min: number) => new Date(t0.getTime() + min * 60_000);
    const publish = async (now: Date, version: string) => {
      const current = parseManifest(kv.data.get(POINTER_KEY) ?? "");
      const plan = planVersions(current, now);
      const built = buildIndex(dataset, { version, previous: plan.previous, now });
      return publishIndex(kv, built, plan.toDelete);
    };
    const count = (v: string) => [...kv.data.keys()].filter((k) => k.startsWith(`psap:v:${v}:`)).length;
    await publish(at(0), "v1");
    await publish(at(1), "v2");
    // v1 was superseded only a minute ago: kept although two versions old.
    const third = await publish(at(2), "v3");
    expect(third.deletedVersions).toEqual([]);
    expect(count("v1")).toBeGreaterThan(0);
    // Much later: v1 and v2 are 2+ versions old and long superseded; v3 (the one replaced) stays.
    const fourth = await publish(at(60), "v4");
    expect(fourth.deletedVersions).toEqual(["v2", "v1"]);
    expect(count("v1")).toBe(0);
    expect(count("v2")).toBe(0);
    expect(count("v3")).toBeGreaterThan(0);
    expect(count("v4")).toBeGreaterThan(0);
    expect(parseManifest(kv.data.get(POINTER_KEY) ?? "")?.previous.map((p) => p.version)).toEqual(["v3"]);
  });

  it.each([
    ["psap:current", 2],
    ["psap:current:3", 3],
  ])(
    "imports beside an earlier format's pointer (%s), which workers of that format keep reading, and retires it later",
    async (oldKey, format) => {
      const kv = new MemoryKvTarget();
      // What an import of an earlier format left: its pointer under its own key and its entries.
      kv.data.set(
        oldKey,
        JSON.stringify({ format, version: "old", previous: [], tree: format === 2 ? {} : ";x=L" }),
      );
      kv.data.set("psap:v:old:8226cffffffffff/", "{}");
      kv.data.set("psap:v:old:catalogue", "{}");
      const csv = file("fcc_v1.0.csv", FCC_ROWS);
      expect((await runCli([csv], () => kv)).code).toBe(0);
      const first = parseManifest(kv.data.get(POINTER_KEY) ?? "");
      expect(POINTER_KEY).not.toBe(oldKey);
      expect(first?.previous.map((p) => p.version)).toEqual(["old"]);
      // Nothing of the old format is touched yet: a worker of that format still reads it.
      expect(kv.data.has(oldKey)).toBe(true);
      expect(kv.data.has("psap:v:old:8226cffffffffff/")).toBe(true);
      expect(
        (await lookupPsaps(kvStore(kv), { latitude: 41.88, longitude: -87.63 })).psaps.length,
      ).toBeGreaterThan(0);
      // An import once the old version is two imports old and long superseded removes it, pointer and all.
      const dataset = (await prepareImport([csv])).dataset;
      const later = new Date(Date.now() + 60 * 60_000);
      const plan = planVersions(first, later);
      expect(plan.toDelete).toEqual(["old"]);
      const published = await publishIndex(
        kv,
        buildIndex(dataset, { previous: plan.previous, now: later }),
        plan.toDelete,
      );
      expect(published.deletedVersions).toEqual(["old"]);
      expect([...kv.data.keys()].filter((k) => k === oldKey || k.startsWith("psap:v:old:"))).toEqual([]);
    },
  );

  it("--if-empty does nothing when an index is loaded; --dry-run writes nothing", async () => {
    const kv = new MemoryKvTarget();
    const dry = await runCli(["--demo", "--dry-run"], () => kv);
    expect(dry.code).toBe(0);
    expect(dry.output).toMatch(/Dry run: nothing written/);
    expect(kv.writes).toEqual([]);
    const first = await runCli(["--demo", "--if-empty"], () => kv);
    expect(first.output).toMatch(/^Loaded demo PSAP data \(50 PSAPs, \d+ keys\)/);
    expect(first.output.split("\n")).toHaveLength(1);
    const writes = kv.writes.length;
    const again = await runCli(["--demo", "--if-empty"], () => kv);
    expect(again.output).toBe("PSAP index already loaded (demo); nothing imported.");
    expect(kv.writes.length).toBe(writes);
  });
});

describe("demo data set", () => {
  it("has fictional PSAPs at the 50 largest metros, with county matches", async () => {
    const kv = new MemoryKvTarget();
    await runCli(["--demo"], () => kv);
    const store = kvStore(kv);
    const chicago = await lookupPsaps(store, { latitude: 41.8781, longitude: -87.6298 });
    expect(chicago.data_version).toBe("demo");
    expect(chicago.psaps[0]).toMatchObject({
      id: "demo-03",
      name: "Chicago Demo Emergency Communications Center",
      county: "Cook",
      phone: "+13125550103",
      match: "county",
    });
    const prepared = await prepareImport([join(import.meta.dirname, "../../data/demo/demo-psaps.csv")]);
    expect(prepared.dataset.psaps).toHaveLength(50);
    expect(prepared.summary.countyMatched).toBe(50);
    for (const p of prepared.dataset.psaps) {
      expect(p.name).toMatch(/Demo/);
      expect(p.phone).toMatch(/^\+1[2-9]\d{2}55501\d{2}$/);
    }
  });
});

describe("npm run psap:import", () => {
  it("runs with the import's Node flags, the same the dev script passes", () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts["psap:import"]).toBe(`node ${IMPORT_NODE_FLAGS.join(" ")} data/import/cli.ts`);
  });
});
