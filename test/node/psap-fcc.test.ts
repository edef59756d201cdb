// The real FCC registry with the Census places end to end: the import accounts for every row, and the
// lookup over the resulting index equals a brute-force scan across the US, its territories and their
// borders (county and city limits included).
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { bruteForceLookup, prepareReference, type Reference } from "../../bench/reference/brute-force.ts";
import { loadCounties } from "../../data/import/counties.ts";
import { type PreparedImport, prepareImport } from "../../data/import/pipeline.ts";
import { type BuiltIndex, buildIndex } from "../../data/index/build.ts";
import type { IndexedPsap } from "../../data/index/dataset.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import { lookupPsaps } from "../../src/answer/lookup.ts";
import { resetPsapLookupCache } from "../../src/psap/lookup.ts";
import { expectSameArea } from "../support/psap-oracle.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DATA_DIR = resolve(ROOT, process.env.PSAP_DATA_DIR ?? "../shared/psap-data");
const CSV = resolve(DATA_DIR, "fcc_master_psap_registry_v2.295.csv");
const JSON_EXPORT = resolve(DATA_DIR, "psap_registry.json");
const PLACES = resolve(DATA_DIR, "census-places-2019.geojson.gz");
const HAVE_DATA = existsSync(CSV) && existsSync(JSON_EXPORT) && existsSync(PLACES);

if (!HAVE_DATA && process.env.CI === "true") {
  it("has the FCC registry data (PSAP_DATA_DIR) in CI", () => {
    throw new Error(`FCC data not found in ${DATA_DIR}: set PSAP_DATA_DIR`);
  });
}

describe.skipIf(!HAVE_DATA)("FCC Master PSAP Registry v2.295 with the 2019 Census places", () => {
  let prepared: PreparedImport;
  let built: BuiltIndex;
  let store: MemoryPsapStore;
  let reference: Reference;

  beforeAll(async () => {
    prepared = await prepareImport([CSV, JSON_EXPORT, PLACES]);
    built = buildIndex(prepared.dataset);
    store = MemoryPsapStore.fromIndex(built);
    reference = prepareReference(prepared.dataset);
    resetPsapLookupCache();
  }, 180_000);

  async function same(latitude: number, longitude: number, accuracy?: number | null) {
    const got = await lookupPsaps(store, { latitude, longitude, accuracy });
    const want = bruteForceLookup(reference, { latitude, longitude, accuracy });
    const where = `fix ${latitude},${longitude} accuracy ${accuracy}`;
    expect(got.psaps, where).toEqual(want.psaps);
    if (want.psaps.length > 0) expectSameArea(got, want, { latitude, longitude, accuracy }, where);
    return got;
  }

  it("accounts for every row of the three files", () => {
    const [csv, json, places] = prepared.files;
    expect(csv).toMatchObject({ kind: "fcc-csv", rowsRead: 8915, kept: 6543 });
    expect(json).toMatchObject({ kind: "fcc-json", rowsRead: 8557 });
    expect(places).toMatchObject({ kind: "census-places", rowsRead: 29_678, kept: 29_678 });
    for (const f of prepared.files) expect(f.kept + f.dropped.length).toBe(f.rowsRead);
    const reasons = (csv?.dropped ?? []).map((d) => d.reason);
    expect(reasons.filter((r) => r.startsWith("orphaned"))).toHaveLength(2370);
    // The two PSAPs listed twice: the older entries (lines 6286 and 6298) give way.
    expect(csv?.dropped.filter((d) => d.reason.startsWith("duplicate")).map((d) => d.line)).toEqual([
      6286, 6298,
    ]);
    const s = prepared.summary;
    expect(s.psaps + s.unplaced.length).toBe(6543);
    expect(Object.values(s.placement).reduce((a, b) => a + b, 0)).toBe(s.psaps);
    // Every PSAP placed by one of the documented methods, and each one moved is listed with why.
    expect(Object.keys(s.placement).sort()).toEqual(
      ["municipality", "county centroid", "operator building", "registry geocode", "service area"].sort(),
    );
    for (const m of s.moved) expect(m.why.length).toBeGreaterThan(0);
    expect(s.primaries + s.secondaries).toBe(s.psaps);
    // Every PSAP has exactly one jurisdiction class, and the classes add up.
    expect(Object.values(s.jurisdictions).reduce((a, b) => a + b, 0)).toBe(s.psaps);
    expect(s.places).toEqual({ read: 29_678, incorporated: 19_465, towns: 0, communities: 10_213 });
    expect(s.withPhone).toBe(0);
    expect(prepared.dataset.dataVersion).toBe(
      "FCC Master PSAP Registry v2.295 (2026-02-06) + Census places (census-places-2019.geojson.gz)",
    );
  });

  it("marks secondaries from every spelling of the S flag and keeps no orphan", () => {
    const byId = new Map(prepared.dataset.psaps.map((p) => [p.id, p]));
    expect(byId.get("8928")?.type).toBe("secondary"); // "S"
    // Kodiak PD, geocoded at Kotzebue in 2017, is placed in Kodiak (its registered county).
    expect(byId.get("65")?.latitude).toBeCloseTo(57.79, 0);
    expect(byId.get("8927")?.type).toBe("primary"); // "A"
    const secondaries = prepared.dataset.psaps.filter((p) => p.type === "secondary").length;
    // S, "M, S", "S, M", "A, S", "M,S", "M-S"; minus 7968 ("S, M"), which nothing can place.
    expect(prepared.summary.unplaced.map((u) => u.id)).toEqual(["7968"]);
    expect(secondaries).toBe(672 + 70 + 58 + 15 + 3 + 2 - 1);
  });

  it("finds the city's own 911 centre first inside Chicago's city limits", async () => {
    const r = await same(41.8781, -87.6298, 20);
    expect(r.data_version).toBe(prepared.dataset.dataVersion);
    expect(r.psaps).toHaveLength(5);
    expect(r.area).toEqual({
      country: "US",
      state: "IL",
      county: "Cook",
      place: "Chicago",
      place_kind: "city",
    });
    expect(r.psaps[0]).toMatchObject({
      id: "2160",
      match: "city",
      jurisdiction: "municipal",
      type: "primary",
    });
    expect(r.psaps.slice(1).every((p) => p.match === "county")).toBe(true);
  });

  it("finds LAPD first in Los Angeles, not a sheriff's station registered in the same city", async () => {
    const r = await same(34.0522, -118.2437, 20);
    expect(r.psaps[0]).toMatchObject({ id: "800", match: "city", jurisdiction: "municipal" });
  });

  it("serves Alaska, Hawaii, Puerto Rico, Guam, the Aleutians and the antimeridian exactly", async () => {
    const places: [number, number][] = [
      [61.2181, -149.9003], // Anchorage
      [64.8378, -147.7164], // Fairbanks
      [51.88, -176.6581], // Adak
      [52.84, 173.18], // Attu, west of 180
      [52, 180],
      [52, -180],
      [71.2906, -156.7886], // Utqiagvik
      [21.3069, -157.8583], // Honolulu
      [19.7297, -155.09], // Hilo
      [18.4655, -66.1057], // San Juan
      [13.4443, 144.7937], // Hagatna
      [15.1778, 145.7509], // Saipan
      [-14.275, -170.702], // Pago Pago
      [18.3419, -64.9307], // Charlotte Amalie
      [90, 0],
      [-90, 0],
      [0, 0],
      [51.5074, -0.1278], // London: nothing within 500 km
    ];
    for (const [lat, lon] of places) for (const acc of [undefined, 1000, 100_000]) await same(lat, lon, acc);
    const london = await same(51.5074, -0.1278);
    expect(london).toMatchObject({ psaps: [], reason: "outside_coverage", area: { country: "GB" } });
    expect(london.emergency.numbers[0]?.number).toBe("999");
    expect((await same(21.3069, -157.8583)).psaps[0]?.state).toBe("HI");
    const sanJuan = await same(18.4655, -66.1057);
    expect(sanJuan.area).toMatchObject({ country: "US", state: "PR" });
    expect(sanJuan.emergency.numbers[0]?.number).toBe("911");
  });

  it("equals brute force at random points across the US and its territories", async () => {
    const boxes = [
      [24, 50, -125, -66],
      [51, 72, -180, -129],
      [51, 54, 172, 180],
      [18.5, 22.5, -161, -154],
      [17.5, 18.8, -68, -64.5],
      [13, 21, 144, 146.5],
      [-15, -10, -172, -168],
    ] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.nat(boxes.length - 1),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.oneof(fc.constant(undefined), fc.double({ min: 0, max: 100_000, noNaN: true })),
        async (b, u, v, accuracy) => {
          const [la0, la1, lo0, lo1] = boxes[b] as readonly [number, number, number, number];
          await same(la0 + u * (la1 - la0), lo0 + v * (lo1 - lo0), accuracy);
        },
      ),
      { numRuns: 800 },
    );
  });

  it("equals brute force on and near county borders, with accuracies up to 100 km", async () => {
    const vertices = loadCounties().flatMap((c) => c.rings.flatMap((r) => r.filter((_, i) => i % 7 === 0)));
    await fc.assert(
      fc.asyncProperty(
        fc.nat(vertices.length - 1),
        fc.double({ min: -0.02, max: 0.02, noNaN: true }),
        fc.double({ min: -0.02, max: 0.02, noNaN: true }),
        fc.oneof(
          fc.constant(undefined),
          fc.double({ min: 0, max: 3_000, noNaN: true }),
          fc.double({ min: 0, max: 100_000, noNaN: true }),
        ),
        async (k, dLat, dLon, accuracy) => {
          const [lon, lat] = vertices[k] as readonly [number, number];
          const wrapped = ((((lon + dLon + 180) % 360) + 360) % 360) - 180;
          await same(Math.max(-90, Math.min(90, lat + dLat)), wrapped, accuracy);
        },
      ),
      { numRuns: 800 },
    );
  });

  it("equals brute force on and near city limits and census-designated places", async () => {
    const vertices = prepared.dataset.areas
      .filter((a) => a.kind === "city" || a.kind === "community")
      .flatMap((a) => a.rings.flatMap((r) => r.filter((_, i) => i % 11 === 0)));
    await fc.assert(
      fc.asyncProperty(
        fc.nat(vertices.length - 1),
        fc.double({ min: -0.01, max: 0.01, noNaN: true }),
        fc.double({ min: -0.01, max: 0.01, noNaN: true }),
        fc.oneof(fc.constant(undefined), fc.double({ min: 0, max: 2_000, noNaN: true })),
        async (k, dLat, dLon, accuracy) => {
          const [lon, lat] = vertices[k] as readonly [number, number];
          await same(lat + dLat, lon + dLon, accuracy);
        },
      ),
      { numRuns: 800 },
    );
  });

  it("equals brute force at the PSAPs' own locations, where ties are most common", async () => {
    const psaps = prepared.dataset.psaps;
    await fc.assert(
      fc.asyncProperty(fc.nat(psaps.length - 1), async (k) => {
        const p = psaps[k] as IndexedPsap;
        await same(p.latitude, p.longitude);
      }),
      { numRuns: 800 },
    );
  });

  it("needs at most 2 KV reads per lookup", async () => {
    const fresh = MemoryPsapStore.fromIndex(built);
    resetPsapLookupCache();
    let before = fresh.reads;
    await lookupPsaps(fresh, { latitude: 41.8781, longitude: -87.6298 });
    expect(fresh.reads - before).toBe(2);
    before = fresh.reads;
    await lookupPsaps(fresh, { latitude: 34.0522, longitude: -118.2437 });
    expect(fresh.reads - before).toBe(1);
    // A cached entry costs nothing; the pointer is read again only when its cache expires.
    before = fresh.reads;
    await lookupPsaps(fresh, { latitude: 41.8781, longitude: -87.6298 });
    expect(fresh.reads - before).toBe(0);
  }, 120_000);
});
