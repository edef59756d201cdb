// The index's entries where their candidate bounds are tightest, against the brute-force reference:
// dense clusters, exact distance ties, fixes on cell vertices and edges, the antimeridian and the
// poles, many large matched areas, and too few primaries within reach.
import fc from "fast-check";
import { cellToBoundary, cellToLatLng, latLngToCell } from "h3-js";
import { beforeEach, describe, it } from "vitest";
import type { AreaInput, IndexedPsap, PsapDataset, Ring } from "../../data/index/dataset.ts";
import { seededRandom } from "../../data/index/synthetic.ts";
import { resetPsapLookupCache } from "../../src/psap/lookup.ts";
import { psap } from "../support/psap-fixtures.ts";
import { sameAsReference } from "../support/psap-oracle.ts";

const wrapLon = (lon: number) => ((((lon + 180) % 360) + 360) % 360) - 180;
const clampLat = (lat: number) => Math.max(-90, Math.min(90, lat));

function square(lat: number, lon: number, halfLat: number, halfLon: number): Ring {
  const w = wrapLon(lon - halfLon);
  const e = wrapLon(lon + halfLon);
  const s = clampLat(lat - halfLat);
  const n = clampLat(lat + halfLat);
  return [
    [w, s],
    [e, s],
    [e, n],
    [w, n],
    [w, s],
  ];
}

interface Cluster {
  lat: number;
  lon: number;
  /** Spread in degrees of latitude (longitude is scaled by 1 / cos(lat)). */
  spread: number;
  count: number;
}

/**
 * PSAPs in tight clusters: one in four secondary (unless `primaryShare` says otherwise), one in
 * ten a twin of an earlier one (same coordinates, an id that sorts before it, so ties are real).
 */
function clustered(seed: number, clusters: readonly Cluster[], primaryShare = 0.75): IndexedPsap[] {
  const rnd = seededRandom(seed);
  const psaps: IndexedPsap[] = [];
  let n = 0;
  for (const c of clusters) {
    const cos = Math.max(0.02, Math.cos((c.lat * Math.PI) / 180));
    for (let i = 0; i < c.count; i++) {
      const type = rnd() < primaryShare ? "primary" : "secondary";
      const twinOf = psaps.length > 0 && rnd() < 0.1 ? psaps[Math.floor(rnd() * psaps.length)] : undefined;
      // Ids whose order is not the order of creation: "z…" first, the twins' "a…" later.
      if (twinOf) psaps.push(psap(`a${n++}`, twinOf.latitude, twinOf.longitude, type));
      else {
        const lat = clampLat(c.lat + (rnd() * 2 - 1) * c.spread);
        const lon = wrapLon(c.lon + ((rnd() * 2 - 1) * c.spread) / cos);
        psaps.push(psap(`z${n++}`, lat, lon, type));
      }
    }
  }
  return psaps;
}

/** The index built down to `resolution` at most, with small entries so that the tree goes deep. */
function reference(dataset: PsapDataset, resolution: number) {
  const { check } = sameAsReference(dataset, { maxResolution: resolution, maxEntryBytes: 24_000 });
  return (q: { latitude: number; longitude: number; accuracy?: number | null }, limit: number) =>
    check(q, limit);
}

function area(kind: AreaInput["kind"], id: string, rings: Ring[], psapIds: string[]): AreaInput {
  return { kind, id, name: id, state: "ZZ", rings, psapIds };
}

/** A fix up to `reachDeg` from a place: there, at a vertex of its cell (jittered), its centre or an edge. */
const fixArb = (reachDeg: number) =>
  fc.record({
    dLat: fc.double({ min: -reachDeg, max: reachDeg, noNaN: true }),
    dLon: fc.double({ min: -reachDeg, max: reachDeg, noNaN: true }),
    where: fc.constantFrom("point", "vertex", "centre", "edge"),
    vertex: fc.nat(20),
    jitter: fc.double({ min: -1e-6, max: 1e-6, noNaN: true }),
    accuracy: fc.oneof(
      fc.constant(undefined),
      fc.double({ min: 0, max: 3_000, noNaN: true }),
      fc.double({ min: 0, max: 100_000, noNaN: true }),
    ),
    limit: fc.integer({ min: 1, max: 5 }),
  });

function placeFix(
  f: { dLat: number; dLon: number; where: string; vertex: number; jitter: number },
  lat: number,
  lon: number,
  resolution: number,
): { latitude: number; longitude: number } {
  const latitude = clampLat(lat + f.dLat);
  const longitude = wrapLon(lon + f.dLon);
  if (f.where === "point") return { latitude, longitude };
  const cell = latLngToCell(latitude, longitude, resolution);
  if (f.where === "centre") {
    const [cLat, cLon] = cellToLatLng(cell);
    return { latitude: cLat, longitude: cLon };
  }
  const boundary = cellToBoundary(cell);
  const k = f.vertex % boundary.length;
  const [aLat, aLon] = boundary[k] as [number, number];
  if (f.where === "vertex") {
    return { latitude: clampLat(aLat + f.jitter), longitude: wrapLon(aLon - f.jitter) };
  }
  // Midway along an edge (across the antimeridian too: unwrap the second vertex first).
  const [bLat, bLon] = boundary[(k + 1) % boundary.length] as [number, number];
  const bUnwrapped = aLon + wrapLon(bLon - aLon);
  return {
    latitude: clampLat((aLat + bLat) / 2 + f.jitter),
    longitude: wrapLon((aLon + bUnwrapped) / 2 + f.jitter),
  };
}

beforeEach(() => resetPsapLookupCache());

describe("pruned lookup equals a brute-force scan", () => {
  it("in dense clusters (thousands of PSAPs within a few km), on cell vertices, edges and centres", async () => {
    const clusters: Cluster[] = [
      { lat: 41.88, lon: -87.63, spread: 0.03, count: 2_500 },
      { lat: 41.95, lon: -87.75, spread: 0.01, count: 800 },
      { lat: 42.3, lon: -87.9, spread: 0.4, count: 700 },
    ];
    const psaps = clustered(7, clusters);
    const areas: AreaInput[] = [
      area(
        "county",
        "county-a",
        [square(41.88, -87.63, 0.02, 0.03)],
        psaps.filter((_, i) => i % 3 === 0).map((p) => p.id),
      ),
      area(
        "boundary",
        "boundary-b",
        [square(41.9, -87.7, 0.05, 0.05)],
        psaps.filter((_, i) => i % 7 === 1).map((p) => p.id),
      ),
    ];
    const dataset: PsapDataset = { dataVersion: "dense", psaps, areas };
    for (const resolution of [3, 4]) {
      resetPsapLookupCache();
      const check = reference(dataset, resolution);
      await fc.assert(
        fc.asyncProperty(fc.nat(clusters.length - 1), fixArb(0.06), async (c, f) => {
          const at = clusters[c] as Cluster;
          const q = placeFix(f, at.lat, at.lon, resolution);
          await check({ ...q, accuracy: f.accuracy }, f.limit);
        }),
        { numRuns: 250 },
      );
    }
  });

  it("with exact distance ties everywhere (a dyadic lattice, twins, fixes on lattice points)", async () => {
    const psaps: IndexedPsap[] = [];
    const step = 1 / 256;
    for (let i = -20; i <= 20; i++) {
      for (let j = -20; j <= 20; j++) {
        const lat = 40 + i * step;
        const lon = -100 + j * step;
        const type = (i * 41 + j) % 5 === 0 ? "secondary" : "primary";
        // Ids against the creation order, and a twin at every fourth point.
        psaps.push(psap(`q${9_999 - psaps.length}`, lat, lon, type));
        if ((i + j) % 4 === 0) psaps.push(psap(`p${psaps.length}`, lat, lon, type));
      }
    }
    const dataset: PsapDataset = {
      dataVersion: "ties",
      psaps,
      areas: [
        area(
          "county",
          "half",
          [square(40, -100.04, 0.04, 0.04)],
          psaps.filter((_, k) => k % 2 === 0).map((p) => p.id),
        ),
      ],
    };
    for (const resolution of [3, 4]) {
      resetPsapLookupCache();
      const check = reference(dataset, resolution);
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: -44, max: 44 }),
          fc.integer({ min: -44, max: 44 }),
          fc.boolean(),
          fc.integer({ min: 1, max: 5 }),
          fc.constantFrom(undefined, 500, 4_000, 100_000),
          async (i, j, half, limit, accuracy) => {
            const s = half ? step / 2 : step;
            await check({ latitude: 40 + i * s, longitude: -100 + j * s, accuracy }, limit);
          },
        ),
        { numRuns: 300 },
      );
    }
  });

  it("on the antimeridian and at both poles", async () => {
    const clusters: Cluster[] = [
      { lat: 52, lon: 179.98, spread: 0.05, count: 1_200 },
      { lat: 51.7, lon: -179.7, spread: 0.2, count: 600 },
      { lat: 89.7, lon: 0, spread: 0.25, count: 900 },
      { lat: -89.8, lon: 120, spread: 0.15, count: 900 },
      { lat: -70, lon: -179.95, spread: 0.1, count: 500 },
    ];
    const psaps = clustered(11, clusters);
    const areas: AreaInput[] = [
      area(
        "county",
        "aleutians",
        [square(52, 180, 0.3, 0.5)],
        psaps.filter((p, i) => i % 2 === 0 && Math.abs(p.latitude - 52) < 1).map((p) => p.id),
      ),
      area(
        "boundary",
        "north-cap",
        [square(89.5, 0, 0.45, 170)],
        psaps.filter((p, i) => i % 3 === 0 && p.latitude > 89).map((p) => p.id),
      ),
    ];
    const dataset: PsapDataset = { dataVersion: "edges", psaps, areas };
    for (const resolution of [2, 3, 4]) {
      resetPsapLookupCache();
      const check = reference(dataset, resolution);
      await fc.assert(
        fc.asyncProperty(fc.nat(clusters.length - 1), fixArb(0.5), async (c, f) => {
          const at = clusters[c] as Cluster;
          const q = placeFix(f, at.lat, at.lon, resolution);
          await check({ ...q, accuracy: f.accuracy }, f.limit);
        }),
        { numRuns: 200 },
      );
      for (const q of [
        { latitude: 90, longitude: 0 },
        { latitude: -90, longitude: 180 },
        { latitude: 52, longitude: 180 },
        { latitude: 52, longitude: -180, accuracy: 100_000 },
      ]) {
        await check(q, 5);
      }
    }
  });

  it("with many large matched areas of many members (accuracy up to 100 km), boundaries and counties", async () => {
    const clusters: Cluster[] = [
      { lat: 35, lon: -97, spread: 0.6, count: 2_500 },
      { lat: 35.2, lon: -97.3, spread: 0.05, count: 600 },
    ];
    const psaps = clustered(23, clusters);
    const rnd = seededRandom(99);
    const areas: AreaInput[] = Array.from({ length: 70 }, (_, k) => {
      const lat = 35 + (rnd() * 2 - 1) * 0.8;
      const lon = -97 + (rnd() * 2 - 1) * 0.8;
      const members = Array.from(
        { length: 5 + Math.floor(rnd() * 60) },
        () => (psaps[Math.floor(rnd() * psaps.length)] as IndexedPsap).id,
      );
      return area(
        k % 3 === 0 ? "boundary" : "county",
        `area${k}`,
        [square(lat, lon, 0.05 + rnd() * 0.5, 0.05 + rnd() * 0.5)],
        members,
      );
    });
    const dataset: PsapDataset = { dataVersion: "areas", psaps, areas };
    for (const resolution of [3, 4]) {
      resetPsapLookupCache();
      const check = reference(dataset, resolution);
      await fc.assert(
        fc.asyncProperty(fixArb(1.2), async (f) => {
          const q = placeFix(f, 35, -97, resolution);
          await check({ ...q, accuracy: f.accuracy }, f.limit);
          await check({ ...q, accuracy: 100_000 }, f.limit);
        }),
        { numRuns: 150 },
      );
    }
  });

  it("when fewer primaries than asked for are within 500 km, so secondaries fill in", async () => {
    const clusters: Cluster[] = [
      { lat: 45, lon: -110, spread: 0.05, count: 2_000 },
      { lat: 45.3, lon: -110.5, spread: 0.5, count: 500 },
    ];
    // Nearly all secondaries; three primaries 150, 420 and 520 km away.
    const psaps = clustered(31, clusters, 0);
    psaps.push(psap("prim-150", 46.35, -110, "primary"));
    psaps.push(psap("prim-420", 45, -104.7, "primary"));
    psaps.push(psap("prim-520", 40.3, -110, "primary"));
    psaps.push(psap("prim-near", 45.01, -110.01, "primary"));
    const areas: AreaInput[] = [
      area(
        "county",
        "sec-county",
        [square(45, -110, 0.04, 0.06)],
        [...psaps.filter((_, i) => i % 5 === 0).map((p) => p.id), "prim-near"],
      ),
    ];
    const dataset: PsapDataset = { dataVersion: "few-primaries", psaps, areas };
    for (const resolution of [3, 4]) {
      resetPsapLookupCache();
      const check = reference(dataset, resolution);
      await fc.assert(
        fc.asyncProperty(fixArb(0.8), async (f) => {
          const q = placeFix(f, 45, -110, resolution);
          await check({ ...q, accuracy: f.accuracy }, f.limit);
        }),
        { numRuns: 200 },
      );
    }
  });
});
