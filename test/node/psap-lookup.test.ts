// The lookup over the index equals a brute-force scan of the whole data set (docs/contract.md, section 4's ranking),
// anywhere on Earth; the ranking's rules on small hand-made sets; KV reads, caching and version switches.
import fc from "fast-check";
import { cellToBoundary, cellToLatLng, latLngToCell } from "h3-js";
import { beforeEach, describe, expect, it } from "vitest";
import { buildIndex } from "../../data/index/build.ts";
import type { AreaInput, IndexedPsap, PsapDataset, Ring } from "../../data/index/dataset.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import { AREA_CITY, AREA_COUNTY, entryKey, parseManifest } from "../../lib/psap-index/format.ts";
import { haversineKm } from "../../lib/psap-index/geo.ts";
import { nodeName, subtreeEnds } from "../../lib/psap-index/tree.ts";
import { PSAP_JURISDICTIONS } from "../../sdk/src/protocol.ts";
import { lookupPsaps } from "../../src/answer/lookup.ts";
import { describeArea } from "../../src/answer/where.ts";
import { PsapIndexUnavailableError, resetPsapLookupCache } from "../../src/psap/lookup.ts";
import type { NamedArea } from "../../src/psap/rank.ts";
import { psap } from "../support/psap-fixtures.ts";
import { sameAsReference } from "../support/psap-oracle.ts";
import { treeCodes } from "../support/tree-codes.ts";

const wrapLon = (lon: number) => ((((lon + 180) % 360) + 360) % 360) - 180;
const clampLat = (lat: number) => Math.max(-90, Math.min(90, lat));

/** A star-shaped polygon around a centre (radius in degrees of latitude), possibly crossing the antimeridian. */
function starRing(lat: number, lon: number, radii: readonly number[]): Ring {
  const ring: [number, number][] = radii.map((r, k) => {
    const a = (2 * Math.PI * k) / radii.length;
    const la = clampLat(lat + r * Math.sin(a));
    const lo = wrapLon(lon + (r * Math.cos(a)) / Math.max(0.05, Math.cos((lat * Math.PI) / 180)));
    return [lo, la];
  });
  const first = ring[0] as [number, number];
  ring.push([first[0], first[1]]);
  return ring;
}

function rectangle(south: number, west: number, north: number, east: number): Ring {
  return [
    [west, south],
    [east, south],
    [east, north],
    [west, north],
    [west, south],
  ];
}

function area(kind: AreaInput["kind"], id: string, rings: Ring[], psapIds: string[]): AreaInput {
  return { kind, id, name: `${kind} ${id}`, state: "ZZ", rings, psapIds };
}

const latArb = fc.double({ min: -90, max: 90, noNaN: true });
const lonArb = fc.double({ min: -180, max: 180, noNaN: true });
const accuracyArb = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.double({ min: 0, max: 100_000, noNaN: true }),
  fc.double({ min: 0, max: 2_000, noNaN: true }),
);

beforeEach(() => resetPsapLookupCache());

describe("lookup equals a brute-force scan", () => {
  it("on random clustered data sets with random areas of every kind, anywhere on Earth", async () => {
    const datasetArb = fc
      .record({
        centre: fc.record({ lat: fc.double({ min: -85, max: 85, noNaN: true }), lon: lonArb }),
        spread: fc.double({ min: 0.05, max: 12, noNaN: true }),
        points: fc.array(
          fc.record({
            dLat: fc.double({ min: -1, max: 1, noNaN: true }),
            dLon: fc.double({ min: -1, max: 1, noNaN: true }),
            secondary: fc.boolean(),
            twin: fc.boolean(),
            jurisdiction: fc.constantFrom(...PSAP_JURISDICTIONS),
            handledBy: fc.option(fc.nat(), { nil: undefined }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        areas: fc.array(
          fc.record({
            pick: fc.nat(),
            radii: fc.array(fc.double({ min: 0.02, max: 2.5, noNaN: true }), { minLength: 3, maxLength: 9 }),
            members: fc.array(fc.nat(), { maxLength: 6 }),
            kind: fc.constantFrom("boundary", "city", "town", "community", "county" as const),
          }),
          { maxLength: 6 },
        ),
        // A county around the whole cluster: the fixes there count as inside the US wherever it is.
        enclosing: fc.boolean(),
      })
      .map(({ centre, spread, points, areas, enclosing }): PsapDataset => {
        const psaps: IndexedPsap[] = [];
        points.forEach((p, i) => {
          const prev = psaps[i - 1];
          // "twin": same coordinates as the previous one, to force exact ties.
          const lat = p.twin && prev ? prev.latitude : clampLat(centre.lat + p.dLat * spread);
          const lon = p.twin && prev ? prev.longitude : wrapLon(centre.lon + p.dLon * spread * 2);
          const record = psap(`p${i}`, lat, lon, p.secondary ? "secondary" : "primary");
          record.jurisdiction = p.jurisdiction;
          psaps.push(record);
        });
        points.forEach((p, i) => {
          const record = psaps[i] as IndexedPsap;
          if (record.type === "secondary" && p.handledBy !== undefined) {
            record.handled_by = (psaps[p.handledBy % psaps.length] as IndexedPsap).id;
          }
        });
        const inputs: AreaInput[] = areas.map((a, k) => {
          const at = psaps[a.pick % psaps.length] as IndexedPsap;
          const ids = a.members.map((m) => (psaps[m % psaps.length] as IndexedPsap).id);
          return area(a.kind, `a${k}`, [starRing(at.latitude, at.longitude, a.radii)], ids);
        });
        if (enclosing && Math.abs(centre.lat) + spread * 2 < 89 && spread * 5 < 170) {
          const ring = rectangle(
            centre.lat - spread * 2,
            centre.lon - spread * 4,
            centre.lat + spread * 2,
            centre.lon + spread * 4,
          );
          inputs.push(area("county", "enclosing", [ring.map(([x, y]) => [wrapLon(x), y] as const)], []));
        }
        return { dataVersion: "generated", psaps, areas: inputs };
      });
    await fc.assert(
      fc.asyncProperty(
        datasetArb,
        fc.constantFrom(2, 3, 4),
        fc.array(
          fc.record({
            t: fc.nat(),
            dLat: fc.double({ min: -3, max: 3, noNaN: true }),
            dLon: fc.double({ min: -3, max: 3, noNaN: true }),
            accuracy: accuracyArb,
            limit: fc.integer({ min: 1, max: 5 }),
          }),
          { minLength: 20, maxLength: 40 },
        ),
        async (dataset, maxResolution, queries) => {
          resetPsapLookupCache();
          // Small entries force deep trees: every resolution from the roots down is exercised.
          const { check } = sameAsReference(dataset, { maxResolution, maxEntryBytes: 2_000 });
          for (const q of queries) {
            // Queries near a PSAP (most interesting), sometimes far away.
            const at = dataset.psaps[q.t % dataset.psaps.length] as IndexedPsap;
            const latitude = clampLat(at.latitude + q.dLat);
            const longitude = wrapLon(at.longitude + q.dLon * 2);
            await check({ latitude, longitude, accuracy: q.accuracy }, q.limit);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it("on synthetic US-wide data with counties, cities, towns, communities and boundaries", async () => {
    const { syntheticDataset } = await import("../../data/index/synthetic.ts");
    const dataset = syntheticDataset({
      count: 1_500,
      seed: 5,
      countyGridDeg: 1.5,
      cities: 120,
      towns: 40,
      communities: 60,
      boundaries: 25,
      twinShare: 0.05,
    });
    const { check } = sameAsReference(dataset, { maxEntryBytes: 20_000 });
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 24, max: 50, noNaN: true }),
        fc.double({ min: -125, max: -66, noNaN: true }),
        accuracyArb,
        fc.integer({ min: 1, max: 5 }),
        async (latitude, longitude, accuracy, limit) => {
          await check({ latitude, longitude, accuracy }, limit);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("at the poles, on the antimeridian and in far-away places", async () => {
    const psaps = [
      psap("north", 89.95, 10),
      psap("north2", 88.5, -170, "secondary"),
      psap("south", -89.99, 0),
      psap("am-east", 51.8, 179.9),
      psap("am-west", 51.9, -179.95),
      psap("am-west2", 52.1, -178.1, "secondary"),
      psap("guam", 13.47, 144.75),
      psap("honolulu", 21.31, -157.86),
      psap("sanjuan", 18.47, -66.11),
      psap("nome", 64.5, -165.4),
    ];
    const dataset: PsapDataset = {
      dataVersion: "edges",
      psaps,
      areas: [
        area(
          "county",
          "aleutians",
          [rectangle(51.5, 179.5, 52.5, 180), rectangle(51.5, -180, 52.5, -178)],
          ["am-east", "am-west2"],
        ),
        area("county", "north-cap", [rectangle(88, -180, 90, 180)], ["north"]),
      ],
    };
    const fixed = [
      { latitude: 90, longitude: 0 },
      { latitude: 90, longitude: 180 },
      { latitude: -90, longitude: -180 },
      { latitude: 89.9, longitude: -179.99 },
      { latitude: 52, longitude: 180 },
      { latitude: 52, longitude: -180 },
      { latitude: 52, longitude: 179.999999 },
      { latitude: 52, longitude: -179.999999, accuracy: 100_000 },
      { latitude: 51.49, longitude: 179.7, accuracy: 2_000 },
      { latitude: 13.4, longitude: 144.8 },
      { latitude: 21.3, longitude: -157.8 },
      { latitude: 18.4, longitude: -66.0 },
      { latitude: 0, longitude: 0 },
      { latitude: 48.85, longitude: 2.35 },
    ];
    for (const maxResolution of [2, 3, 5]) {
      resetPsapLookupCache();
      const { check } = sameAsReference(dataset, { maxResolution, maxEntryBytes: 1_500 });
      for (const q of fixed) await check(q);
      await fc.assert(
        fc.asyncProperty(latArb, lonArb, accuracyArb, async (latitude, longitude, accuracy) => {
          await check({ latitude, longitude, accuracy });
        }),
        { numRuns: 300 },
      );
      // Near the antimeridian specifically.
      await fc.assert(
        fc.asyncProperty(
          fc.double({ min: 45, max: 60, noNaN: true }),
          fc.double({ min: -2, max: 2, noNaN: true }),
          accuracyArb,
          async (latitude, d, accuracy) => {
            const longitude = d >= 0 ? -180 + d : 180 + d;
            await check({ latitude, longitude, accuracy });
          },
        ),
        { numRuns: 200 },
      );
    }
    // A fix in the Aleutian area, either side of 180 degrees, is matched by its area.
    resetPsapLookupCache();
    const { check } = sameAsReference(dataset, { maxResolution: 4 });
    const east = await check({ latitude: 52, longitude: 179.8 });
    expect(east.psaps[0]).toMatchObject({ id: "am-east", match: "county" });
    const west = await check({ latitude: 52, longitude: -179.5 });
    expect(west.psaps.filter((p) => p.match === "county").map((p) => p.id)).toEqual(["am-east", "am-west2"]);
    // Paris is not in the US: no US PSAP, whatever is within 500 km.
    const paris = await check({ latitude: 48.85, longitude: 2.35 });
    expect(paris).toMatchObject({ psaps: [], reason: "outside_coverage", area: { country: "FR" } });
  });

  it("at cell vertices and just inside or outside cell edges, where the entry proofs are tight", async () => {
    const dataset: PsapDataset = {
      dataVersion: "dense",
      psaps: Array.from({ length: 400 }, (_, i) =>
        psap(
          `d${i}`,
          39 + ((i * 7919) % 400) / 100,
          -100 + ((i * 104729) % 500) / 100,
          i % 5 === 0 ? "secondary" : "primary",
        ),
      ),
      areas: [area("county", "all", [rectangle(36, -103, 44, -94)], ["d1", "d2", "d3"])],
    };
    for (const maxResolution of [3, 4, 6]) {
      resetPsapLookupCache();
      const { check } = sameAsReference(dataset, { maxResolution, maxEntryBytes: 3_000 });
      await fc.assert(
        fc.asyncProperty(
          fc.double({ min: 37, max: 45, noNaN: true }),
          fc.double({ min: -102, max: -93, noNaN: true }),
          fc.nat(20),
          fc.double({ min: -1e-4, max: 1e-4, noNaN: true }),
          async (lat, lon, vertex, jitter) => {
            const cell = latLngToCell(lat, lon, maxResolution);
            const boundary = cellToBoundary(cell);
            const [vLat, vLon] = boundary[vertex % boundary.length] as [number, number];
            await check({ latitude: vLat + jitter, longitude: vLon - jitter });
            const [cLat, cLon] = cellToLatLng(cell);
            await check({ latitude: cLat, longitude: cLon });
          },
        ),
        { numRuns: 150 },
      );
    }
  });
});

describe("index layout", () => {
  it("writes one entry for every leaf of the manifest's tree, and nothing else", () => {
    const psaps = [
      psap("a", 41.88, -87.63),
      psap("b", 64.5, -165.4, "secondary"),
      psap("c", 51.9, -179.95),
      psap("d", 13.47, 144.75),
      psap("e", -89.5, 0),
    ];
    const built = buildIndex(
      { dataVersion: "cover", psaps, areas: [] },
      { version: "cov", maxEntryBytes: 800 },
    );
    const manifest = parseManifest(built.pointerValue);
    expect(manifest).not.toBeNull();
    if (!manifest) return;
    const leaves: string[] = [];
    for (const [root, code] of treeCodes(manifest.tree)) {
      expect(subtreeEnds(code), `tree of ${root}`).not.toBeNull();
      // Walk the preorder code: each L is a leaf whose entry is named by the root and its digits.
      const walk = (at: number, digits: string): number => {
        const c = code[at];
        if (c === "L") {
          leaves.push(entryKey("cov", nodeName(root, digits)));
          return at + 1;
        }
        if (c === "E") return at + 1;
        let next = at + 1;
        for (let d = 0; d < 7; d++) next = walk(next, `${digits}${d}`);
        return next;
      };
      expect(walk(0, "")).toBe(code.length);
    }
    expect(manifest.entries).toBe(built.entries.size);
    expect(leaves.length).toBe(built.entries.size);
    // The leaf naming above is the runtime's: every key it derives exists.
    for (const key of leaves) expect(built.entries.has(key), key).toBe(true);
  });

  it("keeps every entry within the byte budget unless it is already at the deepest resolution", async () => {
    const { syntheticDataset } = await import("../../data/index/synthetic.ts");
    const dataset = syntheticDataset({ count: 800, seed: 3, countyGridDeg: 2, cities: 40, boundaries: 5 });
    const built = buildIndex(dataset, { maxEntryBytes: 4_000 });
    let split = 0;
    for (const [key, value] of built.entries) {
      // Node names are "<root cell>/<digits>": a node at the deepest resolution has 7 - 2 digits.
      const digits = key.split("/").at(-1) ?? "";
      if (digits.length > 0) split++;
      if (digits.length < 7 - 2) expect(value.length, key).toBeLessThanOrEqual(4_000);
    }
    expect(split).toBeGreaterThan(0);
    expect(built.stats.entries).toBe(built.entries.size);
  });
});

describe("ranking", () => {
  const square = rectangle(41, -88, 42, -87);
  const dataset: PsapDataset = {
    dataVersion: "ranking-v1",
    psaps: [
      psap("in-far", 41.9, -87.9),
      psap("in-sec", 41.5, -87.5, "secondary"),
      psap("out-near", 41.5, -86.99),
      psap("out-near-sec", 41.5, -86.98, "secondary"),
      psap("tie-b", 40, -87.5),
      psap("tie-a", 40, -87.5),
    ],
    areas: [{ ...area("county", "17031", [square], ["in-far", "in-sec"]), name: "Cook" }],
  };

  it("puts area matches first, primaries before secondaries, then distance; ties by id", async () => {
    const { check } = sameAsReference(dataset);
    const r = await check({ latitude: 41.5, longitude: -87.01, accuracy: 10 });
    expect(r.psaps.map((p) => [p.id, p.match])).toEqual([
      ["in-far", "county"],
      ["in-sec", "county"],
      ["out-near", "nearest"],
      ["tie-a", "nearest"],
      ["tie-b", "nearest"],
    ]);
    expect(r.data_version).toBe("ranking-v1");
    expect(r.area).toMatchObject({ country: "US", state: "ZZ", county: "Cook", place: null });
    expect(r.psaps[0]?.distance_km).toBe(Math.round(haversineKm(41.5, -87.01, 41.9, -87.9) * 10) / 10);
  });

  it("puts a statewide centre first, then the groups boundary, city, county, then jurisdiction county, regional, state, municipal, special", async () => {
    const at = (id: string, j: IndexedPsap["jurisdiction"], type: IndexedPsap["type"] = "primary") => {
      const p = psap(id, 41.5, -87.5 + Number(id.replace(/\D/g, "")) / 1000, type);
      p.jurisdiction = j;
      return p;
    };
    const psaps = [
      at("m1", "municipal"),
      at("s2", "special"),
      at("c3", "county"),
      at("r4", "regional"),
      at("t5", "state"),
      at("b6", "special"),
      at("y7", "municipal"),
      at("sec8", "county", "secondary"),
    ];
    (psaps[7] as IndexedPsap).handled_by = "m1";
    const ranked: PsapDataset = {
      dataVersion: "groups",
      psaps,
      areas: [
        area("county", "cty", [square], ["m1", "s2", "c3", "r4", "t5"]),
        area("city", "town", [rectangle(41.4, -87.6, 41.6, -87.4)], ["y7", "sec8"]),
        area("boundary", "psa", [rectangle(41.45, -87.55, 41.55, -87.45)], ["b6"]),
      ],
    };
    const { check } = sameAsReference(ranked);
    const r = await check({ latitude: 41.5, longitude: -87.5, accuracy: 10 });
    expect(r.psaps.map((p) => [p.id, p.match])).toEqual([
      // A state centre answers every 911 call of its state: first wherever an area holding it contains the fix.
      ["t5", "county"],
      ["b6", "boundary"],
      ["y7", "city"],
      // The secondary's primary is in the county group, not the city group: it stays a secondary of the city.
      ["sec8", "city"],
      ["c3", "county"],
    ]);
    const county = await sameAsReference(ranked).check({ latitude: 41.8, longitude: -87.2, accuracy: 10 }, 5);
    expect(county.psaps.map((p) => p.id)).toEqual(["t5", "c3", "r4", "m1", "s2"]);
  });

  it("puts the areas that contain the fix before those reached only through its accuracy, whatever their group", async () => {
    // A 20 m fix in a county, 300 m outside a city whose centre is nearer: the county's centre comes first.
    const county = psap("county-c", 41.2, -87.8);
    const city = psap("city-c", 41.5, -87.5);
    city.jurisdiction = "municipal";
    const kmPerDegLon = haversineKm(41.5, -87, 41.5, -86);
    const cityEast = -87.5 + 1 / kmPerDegLon;
    const containment: PsapDataset = {
      dataVersion: "containment",
      psaps: [county, city],
      areas: [
        area("county", "cty", [square], ["county-c"]),
        area("city", "c1", [rectangle(41.45, -87.55, 41.55, cityEast)], ["city-c"]),
      ],
    };
    const { check } = sameAsReference(containment);
    const outside = await check({ latitude: 41.5, longitude: cityEast + 0.3 / kmPerDegLon, accuracy: 20 });
    expect(outside.psaps.map((p) => [p.id, p.match])).toEqual([
      ["county-c", "county"],
      ["city-c", "city"],
    ]);
    const inside = await check({ latitude: 41.5, longitude: -87.5, accuracy: 20 });
    expect(inside.psaps.map((p) => p.id)).toEqual(["city-c", "county-c"]);
  });

  it("answers in the smallest municipality with a centre: a village's police before its town's, a community hides nothing", async () => {
    const town = psap("town-pd", 41.5, -87.6);
    const village = psap("village-pd", 41.5, -87.4);
    const tribal = psap("community-pd", 41.3, -87.3);
    for (const p of [town, village, tribal]) p.jurisdiction = "municipal";
    const countyPsap = psap("county-c", 41.9, -87.9);
    const nested: PsapDataset = {
      dataVersion: "nested",
      psaps: [town, village, tribal, countyPsap],
      areas: [
        area("county", "cty", [square], ["county-c"]),
        { ...area("town", "t1", [rectangle(41.1, -87.9, 41.9, -87.1)], ["town-pd"]), name: "Colonie" },
        { ...area("city", "v1", [rectangle(41.4, -87.45, 41.6, -87.35)], ["village-pd"]), name: "Menands" },
        {
          ...area("community", "cdp", [rectangle(41.25, -87.35, 41.35, -87.25)], ["community-pd"]),
          name: "Latham",
        },
      ],
    };
    const { check } = sameAsReference(nested);
    const inVillage = await check({ latitude: 41.5, longitude: -87.4, accuracy: 20 });
    expect(inVillage.area).toMatchObject({ place: "Menands", place_kind: "city" });
    // The town's centre does not answer in the city group there (here it is registered in no area).
    expect(inVillage.psaps.map((p) => [p.id, p.match])).toEqual([
      ["village-pd", "city"],
      ["county-c", "county"],
      ["town-pd", "nearest"],
      ["community-pd", "nearest"],
    ]);
    const inTown = await check({ latitude: 41.5, longitude: -87.7, accuracy: 20 });
    expect(inTown.area).toMatchObject({ place: "Colonie", place_kind: "town" });
    expect(inTown.psaps[0]?.id).toBe("town-pd");
    // A census-designated community inside the town: the town is the place, and its centre still answers.
    const inCommunity = await check({ latitude: 41.3, longitude: -87.3, accuracy: 20 });
    expect(inCommunity.area).toMatchObject({ place: "Colonie", place_kind: "town" });
    expect(
      inCommunity.psaps
        .map((p) => p.id)
        .slice(0, 2)
        .sort(),
    ).toEqual(["community-pd", "town-pd"]);
  });

  it("puts a statewide centre first only where an area holding it contains the fix", async () => {
    const statewide = psap("state-c", 43.2, -71.5);
    statewide.jurisdiction = "state";
    const local = psap("local", 42.9, -71.4);
    const neighbour = psap("neighbour", 42.7, -71.4);
    const nh: PsapDataset = {
      dataVersion: "statewide",
      psaps: [statewide, local, neighbour],
      areas: [
        area("county", "nh", [rectangle(42.8, -72, 43.5, -71)], ["state-c", "local"]),
        area("county", "ma", [rectangle(42.3, -72, 42.79, -71)], ["neighbour"]),
      ],
    };
    const { check } = sameAsReference(nh);
    const inside = await check({ latitude: 42.9, longitude: -71.4, accuracy: 20 });
    expect(inside.psaps.map((p) => [p.id, p.match])).toEqual([
      ["state-c", "county"],
      ["local", "county"],
      ["neighbour", "nearest"],
    ]);
    // Across the line, the statewide centre is reached only through the accuracy: the fix's own county first.
    const across = await check({ latitude: 42.7951, longitude: -71.4, accuracy: 500 });
    expect(across.psaps.map((p) => p.id)).toEqual(["neighbour", "local", "state-c"]);
  });

  it("puts a secondary right after its handled_by primary", async () => {
    const primary = psap("p1", 41.7, -87.2);
    primary.jurisdiction = "municipal";
    const other = psap("p2", 41.5, -87.5);
    const secondary = psap("s1", 41.5, -87.5, "secondary");
    secondary.handled_by = "p1";
    const linked: PsapDataset = {
      dataVersion: "linked",
      psaps: [primary, other, secondary],
      areas: [area("county", "c", [square], ["p1", "p2", "s1"])],
    };
    const r = await sameAsReference(linked).check({ latitude: 41.5, longitude: -87.5, accuracy: 10 });
    expect(r.psaps.map((p) => p.id)).toEqual(["p2", "p1", "s1"]);
  });

  it("treats a fix within its accuracy (at least 500 m) of a border as inside, after the areas that contain it", async () => {
    const { check } = sameAsReference(dataset);
    // 0.4 km east of the square's east edge (lon -87): inside by the 500 m floor.
    const kmPerDegLon = haversineKm(41.5, -87, 41.5, -86);
    const near = await check({ latitude: 41.5, longitude: -87 + 0.4 / kmPerDegLon, accuracy: 5 });
    expect(near.psaps[0]?.match).toBe("county");
    // 0.6 km away with 5 m accuracy: outside. With 1 km accuracy: inside.
    const out = await check({ latitude: 41.5, longitude: -87 + 0.6 / kmPerDegLon, accuracy: 5 });
    expect(out.psaps.every((p) => p.match === "nearest")).toBe(true);
    const wide = await check({ latitude: 41.5, longitude: -87 + 0.6 / kmPerDegLon, accuracy: 1_000 });
    expect(wide.psaps[0]?.match).toBe("county");
    // 9 km away with 100 km accuracy: inside (the tolerance is capped at the index's maximum).
    const far = await check({ latitude: 41.5, longitude: -87 + 9 / kmPerDegLon, accuracy: 100_000 });
    expect(far.psaps[0]?.match).toBe("county");
  });

  it("honours the limit option and never returns more than the index was built for", async () => {
    const { check, store } = sameAsReference(dataset);
    expect((await check({ latitude: 41.5, longitude: -87.5 }, 2)).psaps).toHaveLength(2);
    const capped = await lookupPsaps(store, { latitude: 41.5, longitude: -87.5 }, { limit: 50 });
    expect(capped.psaps).toHaveLength(5);
    expect((await lookupPsaps(store, { latitude: 41.5, longitude: -87.5 }, { limit: 0 })).psaps).toEqual([]);
  });

  it("returns nothing beyond 500 km, with reason outside_coverage", async () => {
    const one: PsapDataset = {
      dataVersion: "one",
      psaps: [psap("x", 40, -100)],
      areas: [area("county", "wide", [rectangle(30, -110, 50, -90)], [])],
    };
    const { check } = sameAsReference(one);
    const kmPerDegLat = haversineKm(40, -100, 41, -100);
    const inside = await check({ latitude: 40 + 499.9 / kmPerDegLat, longitude: -100 });
    expect(inside.psaps.map((p) => p.distance_km)).toEqual([499.9]);
    const outside = await check({ latitude: 40 + 500.1 / kmPerDegLat, longitude: -100 });
    expect(outside).toMatchObject({ psaps: [], data_version: "one", reason: "outside_coverage" });
    expect(outside.area.country).toBe("US");
  });

  it("refuses coordinates out of range without echoing them", async () => {
    const { store } = sameAsReference(dataset);
    await expect(lookupPsaps(store, { latitude: 91, longitude: 0 })).rejects.toThrow(RangeError);
    const err = await lookupPsaps(store, { latitude: Number.NaN, longitude: -87.654321 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RangeError);
    expect(String(err)).not.toMatch(/87\.65|NaN/);
  });
});

describe("the county of a fix just outside its county's coarse coastline", () => {
  const named = (name: string, state: string): NamedArea => ({ kind: AREA_COUNTY, name, state });
  const dataset = (areas: AreaInput[]): PsapDataset => ({
    dataVersion: "near-county",
    psaps: [psap("p1", 41.5, -87.5)],
    areas,
  });
  const south: AreaInput = {
    ...area("county", "s", [rectangle(41.4, -87.6, 41.6, -87.4)], ["p1"]),
    name: "South",
    state: "IL",
  };

  it("names the one county the fix's reach touches when none contains it, and none when two do", async () => {
    const one = sameAsReference(dataset([south]));
    // 330 m north of the county's edge, accuracy 10 m: the 500 m floor reaches it.
    const near = await one.check({ latitude: 41.603, longitude: -87.5, accuracy: 10 });
    expect(near.area).toEqual({ country: "US", state: "IL", county: "South", place: null, place_kind: null });
    const far = await one.check({ latitude: 41.62, longitude: -87.5, accuracy: 10 });
    expect(far.area).toMatchObject({ country: "US", county: null });
    const north: AreaInput = {
      ...area("county", "n", [rectangle(41.606, -87.6, 41.8, -87.4)], []),
      name: "North",
      state: "IL",
    };
    const two = sameAsReference(dataset([south, north]));
    const between = await two.check({ latitude: 41.603, longitude: -87.5, accuracy: 10 });
    expect(between.area).toMatchObject({ country: "US", county: null });
  });

  it("keeps a place's state, and never gives a county across a land border", () => {
    const stPaul = (near: NamedArea) =>
      describeArea(57.125, -170.285, { kind: AREA_CITY, name: "St. Paul", state: "AK" }, null, near);
    expect(stPaul(named("Aleutians West", "AK"))).toEqual({
      country: "US",
      state: "AK",
      county: "Aleutians West",
      place: "St. Paul",
      place_kind: "city",
    });
    // Of another state than the place's: not named.
    expect(stPaul(named("Elsewhere", "WA")).county).toBeNull();
    // Windsor, Ontario, within reach of Wayne County, Michigan: Canada, no county.
    expect(describeArea(42.3149, -83.0364, null, null, named("Wayne", "MI"))).toEqual({
      country: "CA",
      state: null,
      county: null,
      place: null,
      place_kind: null,
    });
    // A containing county wins over a near one.
    expect(describeArea(41.5, -87.5, null, named("Cook", "IL"), named("Lake", "IL")).county).toBe("Cook");
  });
});

describe("KV reads and caching", () => {
  const dataset: PsapDataset = {
    dataVersion: "reads",
    psaps: [psap("a", 41.88, -87.63), psap("b", 34.05, -118.24)],
    areas: [],
  };

  it("reads the pointer and one entry at first, then one read per new entry, then none", async () => {
    const store = MemoryPsapStore.fromIndex(buildIndex(dataset));
    await lookupPsaps(store, { latitude: 41.88, longitude: -87.63 });
    expect(store.reads).toBe(2);
    await lookupPsaps(store, { latitude: 41.881, longitude: -87.631 });
    expect(store.reads).toBe(2);
    await lookupPsaps(store, { latitude: 34.05, longitude: -118.24 });
    expect(store.reads).toBe(3);
  });

  it("reads the same entry once for concurrent lookups", async () => {
    const store = MemoryPsapStore.fromIndex(buildIndex(dataset));
    await Promise.all(
      Array.from({ length: 10 }, () => lookupPsaps(store, { latitude: 41.88, longitude: -87.63 })),
    );
    expect(store.reads).toBe(2);
  });

  it("reads only the pointer where no PSAP is within reach", async () => {
    const store = MemoryPsapStore.fromIndex(buildIndex(dataset));
    const r = await lookupPsaps(store, { latitude: -33.87, longitude: 151.21 });
    expect(r).toMatchObject({ psaps: [], reason: "outside_coverage", area: { country: "AU" } });
    expect(store.reads).toBe(1);
  });

  it("throws PsapIndexUnavailableError when no index is loaded", async () => {
    const empty = new MemoryPsapStore();
    const err = await lookupPsaps(empty, { latitude: 1, longitude: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PsapIndexUnavailableError);
    expect((err as PsapIndexUnavailableError).code).toBe("psap_index_unavailable");
  });

  it("sees a new version only through the pointer, all at once", async () => {
    const store = MemoryPsapStore.fromIndex(buildIndex(dataset, { version: "v1" }));
    expect((await lookupPsaps(store, { latitude: 41.88, longitude: -87.63 })).data_version).toBe("reads");
    const next = buildIndex(
      { dataVersion: "reads-2", psaps: [psap("c", 41.9, -87.7)], areas: [] },
      { version: "v2" },
    );
    for (const [k, v] of next.entries) store.data.set(k, v);
    resetPsapLookupCache(store);
    // Entries of v2 are written but the pointer is not: still v1.
    expect((await lookupPsaps(store, { latitude: 41.88, longitude: -87.63 })).data_version).toBe("reads");
    store.data.set(next.pointerKey, next.pointerValue);
    resetPsapLookupCache(store);
    const after = await lookupPsaps(store, { latitude: 41.88, longitude: -87.63 });
    expect(after.data_version).toBe("reads-2");
    expect(after.psaps.map((p) => p.id)).toEqual(["c"]);
  });
});
