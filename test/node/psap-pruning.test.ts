// The lookup's pruned ranking (prepared.ts) against the brute-force reference where its bounds are
// tightest: dense clusters, exact distance ties, fixes on cell vertices and edges, the antimeridian
// and the poles, many large matched areas, and too few primaries within reach.
import fc from "fast-check";
import { cellToBoundary, cellToLatLng, latLngToCell } from "h3-js";
import { beforeEach, describe, expect, it } from "vitest";
import type { Ring } from "../../src/psap/area.ts";
import { decodeBucket, jsonNumber, scanBucket } from "../../src/psap/format.ts";
import {
  bruteForceLookup,
  buildIndex,
  type IndexedPsap,
  lookupPsaps,
  MemoryPsapStore,
  type PsapDataset,
  prepareReference,
  resetPsapLookupCache,
  type ServiceAreaInput,
  seededRandom,
} from "../../src/psap/index.ts";
import { prepareBucket, rankPrepared } from "../../src/psap/prepared.ts";
import { borderToleranceKm, rankPsaps } from "../../src/psap/rank.ts";
import { psap } from "../support/psap-fixtures.ts";

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

function reference(dataset: PsapDataset, resolution: number) {
  const store = MemoryPsapStore.fromIndex(buildIndex(dataset, { resolution }));
  const ref = prepareReference(dataset);
  return async (q: { latitude: number; longitude: number; accuracy?: number | null }, limit: number) => {
    const got = await lookupPsaps(store, q, { limit });
    expect(got.psaps).toEqual(bruteForceLookup(ref, q, limit));
  };
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
    const areas: ServiceAreaInput[] = [
      {
        id: "county-a",
        kind: "county",
        rings: [square(41.88, -87.63, 0.02, 0.03)],
        psapIds: psaps.filter((_, i) => i % 3 === 0).map((p) => p.id),
      },
      {
        id: "boundary-b",
        kind: "boundary",
        rings: [square(41.9, -87.7, 0.05, 0.05)],
        psapIds: psaps.filter((_, i) => i % 7 === 1).map((p) => p.id),
      },
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
        {
          id: "half",
          kind: "county",
          rings: [square(40, -100.04, 0.04, 0.04)],
          psapIds: psaps.filter((_, k) => k % 2 === 0).map((p) => p.id),
        },
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
    const areas: ServiceAreaInput[] = [
      {
        id: "aleutians",
        kind: "county",
        rings: [square(52, 180, 0.3, 0.5)],
        psapIds: psaps.filter((p, i) => i % 2 === 0 && Math.abs(p.latitude - 52) < 1).map((p) => p.id),
      },
      {
        id: "north-cap",
        kind: "boundary",
        rings: [square(89.5, 0, 0.45, 170)],
        psapIds: psaps.filter((p, i) => i % 3 === 0 && p.latitude > 89).map((p) => p.id),
      },
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
    const areas: ServiceAreaInput[] = Array.from({ length: 70 }, (_, k) => {
      const lat = 35 + (rnd() * 2 - 1) * 0.8;
      const lon = -97 + (rnd() * 2 - 1) * 0.8;
      const members = Array.from(
        { length: 5 + Math.floor(rnd() * 60) },
        () => (psaps[Math.floor(rnd() * psaps.length)] as IndexedPsap).id,
      );
      return {
        id: `area${k}`,
        kind: k % 3 === 0 ? "boundary" : "county",
        rings: [square(lat, lon, 0.05 + rnd() * 0.5, 0.05 + rnd() * 0.5)],
        psapIds: members,
      };
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
    const areas: ServiceAreaInput[] = [
      {
        id: "sec-county",
        kind: "county",
        rings: [square(45, -110, 0.04, 0.06)],
        psapIds: [...psaps.filter((_, i) => i % 5 === 0).map((p) => p.id), "prim-near"],
      },
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

describe("prepared buckets", () => {
  it("rank exactly as rankPsaps over the same bucket, for fixes anywhere in its cell", () => {
    const psaps = clustered(5, [
      { lat: 30, lon: 10, spread: 0.02, count: 1_500 },
      { lat: 30.3, lon: 10.4, spread: 0.3, count: 500 },
    ]);
    const dataset: PsapDataset = {
      dataVersion: "buckets",
      psaps,
      areas: [
        {
          id: "b",
          kind: "boundary",
          rings: [square(30, 10, 0.05, 0.05)],
          psapIds: psaps.filter((_, i) => i % 4 === 0).map((p) => p.id),
        },
        {
          id: "c",
          kind: "county",
          rings: [square(30.1, 10.1, 0.2, 0.2)],
          psapIds: psaps.filter((_, i) => i % 3 === 0).map((p) => p.id),
        },
      ],
    };
    const built = buildIndex(dataset, { resolution: 4, version: "t" });
    const prefix = "psap:v:t:";
    const cells = [...built.buckets.keys()].map((k) => k.slice(prefix.length));
    const rnd = seededRandom(3);
    let compared = 0;
    for (const cell of cells) {
      const [cLat, cLon] = cellToLatLng(cell);
      if (Math.abs(cLat - 30) > 1 || Math.abs(cLon - 10) > 1) continue;
      const pool = decodeBucket(built.buckets.get(prefix + cell) as string);
      const prepared = prepareBucket(pool, cell);
      const boundary = cellToBoundary(cell);
      const fixes: [number, number][] = [[cLat, cLon], ...boundary];
      for (let k = 0; k < 20; k++) {
        // Random points of the cell: between the centre and a vertex, kept only if H3 agrees.
        const [vLat, vLon] = boundary[Math.floor(rnd() * boundary.length)] as [number, number];
        const u = rnd();
        const lat = cLat + u * (vLat - cLat);
        const lon = cLon + u * (vLon - cLon);
        if (latLngToCell(lat, lon, 4) === cell) fixes.push([lat, lon]);
      }
      for (const [lat, lon] of fixes) {
        for (const accuracy of [0, 2_000, 100_000]) {
          const t = borderToleranceKm(accuracy);
          for (let limit = 1; limit <= 5; limit++) {
            expect(rankPrepared(prepared, lat, lon, t, limit)).toEqual(rankPsaps(pool, lat, lon, t, limit));
          }
        }
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });
});

describe("reading a bucket without parsing its PSAPs", () => {
  it("finds every tuple, coordinate and type as JSON.parse does, whatever the strings hold", () => {
    const names = [
      'Quote " inside',
      "Back\\slash \\",
      "Brackets ] [ and , commas",
      "Ünïcödé ☎ 𝄞",
      "",
      "null",
    ];
    const psaps = clustered(17, [{ lat: -33.9, lon: 151.2, spread: 0.5, count: 300 }]).map((p, i) => ({
      ...p,
      id: i % 7 === 0 ? `id "${i}" \\ ]` : p.id,
      name: names[i % names.length] as string,
      county: i % 3 === 0 ? null : `County, ${i}`,
      phone: i % 2 === 0 ? null : "+12025550100",
      latitude: i % 11 === 0 ? Math.round(p.latitude) : p.latitude,
      longitude: i % 13 === 0 ? -0 : p.longitude,
    }));
    const built = buildIndex(
      {
        dataVersion: "scan",
        psaps,
        areas: [
          {
            id: "a",
            kind: "boundary",
            rings: [square(-33.9, 151.2, 0.1, 0.1)],
            psapIds: [psaps[0]?.id ?? ""],
          },
        ],
      },
      { resolution: 3 },
    );
    expect(built.buckets.size).toBeGreaterThan(0);
    for (const text of built.buckets.values()) {
      const json = JSON.parse(text) as { p: unknown[][]; n: number[]; a: unknown[] };
      const scanned = scanBucket(text);
      expect(scanned).not.toBeNull();
      if (!scanned) continue;
      expect(scanned.count).toBe(json.p.length);
      json.p.forEach((t, i) => {
        expect(Object.is(scanned.latitude[i], t[7])).toBe(true);
        expect(Object.is(scanned.longitude[i], t[8])).toBe(true);
        expect(scanned.type[i]).toBe(t[2]);
        expect(JSON.parse(text.slice(scanned.tupleStart[i], scanned.tupleEnd[i]))).toEqual(t);
      });
      expect(scanned.nearest).toEqual(json.n);
      expect(scanned.areas).toEqual(json.a);
    }
    // Anything not in the builder's exact layout is left to JSON.parse.
    expect(scanBucket('{ "p": [], "n": [], "a": [] }')).toBeNull();
    expect(scanBucket('{"p":[],"n":[],"a":[],"x":1}')).toBeNull();
    expect(scanBucket('{"p":[["1","n",2,"s",null,null,null,1,2,1]],"n":[],"a":[]}')).toBeNull();
    expect(scanBucket('{"p":[],"n":[],"a":[]}')).toMatchObject({ count: 0 });
  });

  it("reads numbers exactly as JSON.parse", () => {
    const same = (s: string): void => {
      expect([s, jsonNumber(s, 0, s.length)]).toEqual([s, JSON.parse(s)]);
      expect(Object.is(jsonNumber(s, 0, s.length), JSON.parse(s))).toBe(true);
    };
    for (const s of [
      "0",
      "-0",
      "1e-7",
      "-1.5E+3",
      "9007199254740991",
      "9007199254740993",
      "0.1",
      "123.456",
    ]) {
      same(s);
    }
    same("12345678901234567890.123");
    same("0.00000000000000000000012345");
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => same(JSON.stringify(x))),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.double({ min: -180, max: 180, noNaN: true }), fc.integer({ min: 0, max: 17 }), (x, d) =>
        same(x.toFixed(d)),
      ),
      { numRuns: 20_000 },
    );
    expect(jsonNumber("1.2.3", 0, 5)).toBeNaN();
  });
});
