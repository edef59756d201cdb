// The lookup against the brute-force reference on generated data sets: exactness everywhere on
// Earth (poles, antimeridian, ties, borders), read counts, caching, limits and empty answers.
import fc from "fast-check";
import { cellToBoundary, cellToChildren, cellToLatLng, getRes0Cells, latLngToCell } from "h3-js";
import { beforeEach, describe, expect, it } from "vitest";
import type { Ring } from "../../src/psap/area.ts";
import { cellRadiusKm } from "../../src/psap/cells.ts";
import {
  bruteForceLookup,
  buildIndex,
  haversineKm,
  type IndexedPsap,
  lookupPsaps,
  MemoryPsapStore,
  type PsapDataset,
  PsapIndexUnavailableError,
  prepareReference,
  resetPsapLookupCache,
  type ServiceAreaInput,
} from "../../src/psap/index.ts";
import { psap } from "../support/psap-fixtures.ts";

/** A star-shaped polygon around a centre (radius in degrees of latitude), possibly crossing the antimeridian. */
function starRing(lat: number, lon: number, radii: readonly number[]): Ring {
  const ring: [number, number][] = radii.map((r, k) => {
    const a = (2 * Math.PI * k) / radii.length;
    const la = Math.max(-89.9, Math.min(89.9, lat + r * Math.sin(a)));
    let lo = lon + (r * Math.cos(a)) / Math.max(0.05, Math.cos((lat * Math.PI) / 180));
    lo = ((((lo + 180) % 360) + 360) % 360) - 180;
    return [lo, la];
  });
  const first = ring[0] as [number, number];
  ring.push([first[0], first[1]]);
  return ring;
}

function sameAsReference(dataset: PsapDataset, resolution?: number) {
  const built = buildIndex(dataset, { resolution });
  const store = MemoryPsapStore.fromIndex(built);
  const reference = prepareReference(dataset);
  return {
    built,
    store,
    async check(q: { latitude: number; longitude: number; accuracy?: number | null }, limit = 5) {
      const got = await lookupPsaps(store, q, { limit });
      const want = bruteForceLookup(reference, q, limit);
      expect(got.psaps).toEqual(want);
      expect(got.reason).toBe(want.length === 0 ? "outside_coverage" : undefined);
      return got;
    },
  };
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
  it("on random clustered data sets with random areas, anywhere on Earth", async () => {
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
          }),
          { minLength: 1, maxLength: 40 },
        ),
        areas: fc.array(
          fc.record({
            pick: fc.nat(),
            radii: fc.array(fc.double({ min: 0.02, max: 2.5, noNaN: true }), { minLength: 3, maxLength: 9 }),
            members: fc.array(fc.nat(), { maxLength: 6 }),
            boundary: fc.boolean(),
          }),
          { maxLength: 5 },
        ),
      })
      .map(({ centre, spread, points, areas }): PsapDataset => {
        const psaps: IndexedPsap[] = [];
        points.forEach((p, i) => {
          const prev = psaps[i - 1];
          // "twin": same coordinates as the previous one, to force exact ties.
          const lat =
            p.twin && prev ? prev.latitude : Math.max(-90, Math.min(90, centre.lat + p.dLat * spread));
          let lon = p.twin && prev ? prev.longitude : centre.lon + p.dLon * spread * 2;
          lon = ((((lon + 180) % 360) + 360) % 360) - 180;
          psaps.push(psap(`p${i}`, lat, lon, p.secondary ? "secondary" : "primary"));
        });
        const serviceAreas: ServiceAreaInput[] = areas.map((a, k) => {
          const at = psaps[a.pick % psaps.length] as IndexedPsap;
          return {
            id: `a${k}`,
            kind: a.boundary ? "boundary" : "county",
            rings: [starRing(at.latitude, at.longitude, a.radii)],
            psapIds: a.members.map((m) => (psaps[m % psaps.length] as IndexedPsap).id),
          };
        });
        return { dataVersion: "generated", psaps, areas: serviceAreas };
      });
    await fc.assert(
      fc.asyncProperty(
        datasetArb,
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
        async (dataset, queries) => {
          resetPsapLookupCache();
          const { check } = sameAsReference(dataset, 2);
          for (const q of queries) {
            // Queries near a PSAP (most interesting), sometimes anywhere.
            const at = dataset.psaps[q.t % dataset.psaps.length] as IndexedPsap;
            const latitude = Math.max(-90, Math.min(90, at.latitude + q.dLat));
            const longitude = ((((at.longitude + q.dLon * 2 + 180) % 360) + 360) % 360) - 180;
            await check({ latitude, longitude, accuracy: q.accuracy }, q.limit);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it("at the poles, on the antimeridian and in far-away places (every resolution)", async () => {
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
    const aleutian: Ring = [
      [179.5, 51.5],
      [180, 51.5],
      [180, 52.5],
      [179.5, 52.5],
      [179.5, 51.5],
    ];
    const aleutianWest: Ring = [
      [-180, 51.5],
      [-178, 51.5],
      [-178, 52.5],
      [-180, 52.5],
      [-180, 51.5],
    ];
    const dataset: PsapDataset = {
      dataVersion: "edges",
      psaps,
      areas: [
        {
          id: "aleutians",
          kind: "county",
          rings: [aleutian, aleutianWest],
          psapIds: ["am-east", "am-west2"],
        },
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
    for (const resolution of [2, 3, 4]) {
      resetPsapLookupCache();
      const { check } = sameAsReference(dataset, resolution);
      for (const q of fixed) await check(q);
      await fc.assert(
        fc.asyncProperty(latArb, lonArb, accuracyArb, async (latitude, longitude, accuracy) => {
          await check({ latitude, longitude, accuracy });
        }),
        { numRuns: 300 },
      );
      // Near the antimeridian and the poles specifically.
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
    const { check } = sameAsReference(dataset, 3);
    const east = await check({ latitude: 52, longitude: 179.8 });
    expect(east.psaps[0]).toMatchObject({ match: "county" });
    const west = await check({ latitude: 52, longitude: -179.5 });
    expect(west.psaps.filter((p) => p.match === "county").map((p) => p.id)).toEqual(["am-east", "am-west2"]);
  });

  it("at cell vertices and just inside or outside cell edges, where the bucket proofs are tight", async () => {
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
      areas: [],
    };
    for (const resolution of [3, 4]) {
      resetPsapLookupCache();
      const { check } = sameAsReference(dataset, resolution);
      await fc.assert(
        fc.asyncProperty(
          fc.double({ min: 37, max: 45, noNaN: true }),
          fc.double({ min: -102, max: -93, noNaN: true }),
          fc.nat(20),
          fc.double({ min: -1e-4, max: 1e-4, noNaN: true }),
          async (lat, lon, vertex, jitter) => {
            const cell = latLngToCell(lat, lon, resolution);
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

describe("index coverage", () => {
  it("has a bucket for exactly the cells with a PSAP within 500 km of some point (flood fill = globe scan)", () => {
    const psaps = [
      psap("a", 41.88, -87.63),
      psap("b", 64.5, -165.4, "secondary"),
      psap("c", 51.9, -179.95),
      psap("d", 13.47, 144.75),
      psap("e", -89.5, 0),
    ];
    for (const resolution of [2, 3]) {
      const built = buildIndex({ dataVersion: "cover", psaps, areas: [] }, { resolution, version: "cov" });
      const expected: string[] = [];
      for (const base of getRes0Cells()) {
        for (const cell of cellToChildren(base, resolution)) {
          const [lat, lon] = cellToLatLng(cell);
          const reach = 500 + cellRadiusKm(cell);
          if (psaps.some((p) => haversineKm(lat, lon, p.latitude, p.longitude) <= reach))
            expected.push(`psap:v:cov:${cell}`);
        }
      }
      expect([...built.buckets.keys()].sort()).toEqual(expected.sort());
    }
  });
});

describe("ranking", () => {
  const square: Ring = [
    [-88, 41],
    [-87, 41],
    [-87, 42],
    [-88, 42],
    [-88, 41],
  ];
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
    areas: [{ id: "17031", kind: "county", rings: [square], psapIds: ["in-far", "in-sec"] }],
  };

  it("puts area matches first, primaries before secondaries, then distance; ties by id", async () => {
    const { check } = sameAsReference(dataset, 3);
    const r = await check({ latitude: 41.5, longitude: -87.01, accuracy: 10 });
    expect(r.psaps.map((p) => [p.id, p.match])).toEqual([
      ["in-far", "county"],
      ["in-sec", "county"],
      ["out-near", "nearest"],
      ["tie-a", "nearest"],
      ["tie-b", "nearest"],
    ]);
    expect(r.data_version).toBe("ranking-v1");
    const first = r.psaps[0];
    expect(first?.distance_km).toBe(Math.round(haversineKm(41.5, -87.01, 41.9, -87.9) * 10) / 10);
  });

  it("treats a fix within its accuracy (at least 500 m) of a border as inside", async () => {
    const { check } = sameAsReference(dataset, 3);
    // 0.4 km east of the square's east edge (lon -87): inside by the 500 m floor.
    const kmPerDegLon = haversineKm(41.5, -87, 41.5, -86);
    const near = await check({ latitude: 41.5, longitude: -87 + 0.4 / kmPerDegLon, accuracy: 5 });
    expect(near.psaps[0]?.match).toBe("county");
    // 0.6 km away with 5 m accuracy: outside. With 1 km accuracy: inside.
    const out = await check({ latitude: 41.5, longitude: -87 + 0.6 / kmPerDegLon, accuracy: 5 });
    expect(out.psaps.every((p) => p.match === "nearest")).toBe(true);
    const wide = await check({ latitude: 41.5, longitude: -87 + 0.6 / kmPerDegLon, accuracy: 1_000 });
    expect(wide.psaps[0]?.match).toBe("county");
    // 90 km away with 100 km accuracy: inside.
    const far = await check({ latitude: 41.5, longitude: -87 + 90 / kmPerDegLon, accuracy: 100_000 });
    expect(far.psaps[0]?.match).toBe("county");
  });

  it("honours the limit option and never returns more than the index was built for", async () => {
    const { check, store } = sameAsReference(dataset, 3);
    expect((await check({ latitude: 41.5, longitude: -87.5 }, 2)).psaps).toHaveLength(2);
    const capped = await lookupPsaps(store, { latitude: 41.5, longitude: -87.5 }, { limit: 50 });
    expect(capped.psaps).toHaveLength(5);
    expect((await lookupPsaps(store, { latitude: 41.5, longitude: -87.5 }, { limit: 0 })).psaps).toEqual([]);
  });

  it("returns nothing beyond 500 km, with reason outside_coverage", async () => {
    const one: PsapDataset = { dataVersion: "one", psaps: [psap("x", 0, 0)], areas: [] };
    const { check } = sameAsReference(one, 3);
    const kmPerDegLat = haversineKm(0, 0, 1, 0);
    const inside = await check({ latitude: 499.9 / kmPerDegLat, longitude: 0 });
    expect(inside.psaps.map((p) => p.distance_km)).toEqual([499.9]);
    const outside = await check({ latitude: 500.1 / kmPerDegLat, longitude: 0 });
    expect(outside).toMatchObject({ psaps: [], data_version: "one", reason: "outside_coverage" });
  });

  it("refuses coordinates out of range without echoing them", async () => {
    const { store } = sameAsReference(dataset, 3);
    await expect(lookupPsaps(store, { latitude: 91, longitude: 0 })).rejects.toThrow(RangeError);
    await expect(lookupPsaps(store, { latitude: Number.NaN, longitude: 0 })).rejects.not.toThrow(/NaN/);
  });
});

describe("KV reads and caching", () => {
  const dataset: PsapDataset = {
    dataVersion: "reads",
    psaps: [psap("a", 41.88, -87.63), psap("b", 34.05, -118.24)],
    areas: [],
  };

  it("reads the pointer and one bucket at first, then one read per new cell, then none", async () => {
    const store = MemoryPsapStore.fromIndex(buildIndex(dataset, { resolution: 3 }));
    await lookupPsaps(store, { latitude: 41.88, longitude: -87.63 });
    expect(store.reads).toBe(2);
    await lookupPsaps(store, { latitude: 41.881, longitude: -87.631 });
    expect(store.reads).toBe(2);
    await lookupPsaps(store, { latitude: 34.05, longitude: -118.24 });
    expect(store.reads).toBe(3);
  });

  it("reads the same bucket once for concurrent lookups", async () => {
    const store = MemoryPsapStore.fromIndex(buildIndex(dataset, { resolution: 3 }));
    await Promise.all(
      Array.from({ length: 10 }, () => lookupPsaps(store, { latitude: 41.88, longitude: -87.63 })),
    );
    expect(store.reads).toBe(2);
  });

  it("throws PsapIndexUnavailableError when no index is loaded", async () => {
    const empty = new MemoryPsapStore();
    const err = await lookupPsaps(empty, { latitude: 1, longitude: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PsapIndexUnavailableError);
    expect((err as PsapIndexUnavailableError).code).toBe("psap_index_unavailable");
  });

  it("sees a new version only through the pointer, all at once", async () => {
    const store = MemoryPsapStore.fromIndex(buildIndex(dataset, { resolution: 3, version: "v1" }));
    expect((await lookupPsaps(store, { latitude: 41.88, longitude: -87.63 })).data_version).toBe("reads");
    const next = buildIndex(
      { dataVersion: "reads-2", psaps: [psap("c", 41.9, -87.7)], areas: [] },
      { resolution: 2, version: "v2" },
    );
    for (const [k, v] of next.buckets) store.data.set(k, v);
    resetPsapLookupCache(store);
    // Buckets of v2 are written but the pointer is not: still v1.
    expect((await lookupPsaps(store, { latitude: 41.88, longitude: -87.63 })).data_version).toBe("reads");
    store.data.set(next.pointerKey, next.pointerValue);
    resetPsapLookupCache(store);
    const after = await lookupPsaps(store, { latitude: 41.88, longitude: -87.63 });
    expect(after.data_version).toBe("reads-2");
    expect(after.psaps.map((p) => p.id)).toEqual(["c"]);
  });
});
