// The geometric facts the index's exactness rests on: cell and tree-node radius bounds, the area test
// (inside, near a border, outside), border tolerances, haversine.
import fc from "fast-check";
import { cellToChildren, cellToLatLng, cellToParent, getRes0Cells, isPentagon, latLngToCell } from "h3-js";
import { describe, expect, it } from "vitest";
import {
  cellRadiusKm,
  MAX_CELL_RADIUS_KM,
  MAX_CHILD_OFFSET_KM,
  nodeRadiusKm,
} from "../../data/index/cells.ts";
import { PSAP_LIMITS } from "../../lib/config.ts";
import { haversineKm, KM_PER_DEGREE, roundKm } from "../../lib/psap-index/geo.ts";
import {
  type AreaGeometry,
  type AreaLevel,
  areaLevel,
  decodeRings,
  encodeRings,
  encodeRingsWithBox,
  INSIDE,
  NEAR_BORDER,
  OUTSIDE,
  type Ring,
  storageBox,
  toleranceKm,
} from "../../lib/psap-index/geometry.ts";

const isWithinArea = (area: AreaGeometry, lat: number, lon: number, t: number) =>
  areaLevel(area, lat, lon, t) !== OUTSIDE;
const borderToleranceKm = (accuracy: number | null | undefined) =>
  toleranceKm(accuracy, PSAP_LIMITS.minBorderToleranceM, PSAP_LIMITS.maxBorderToleranceKm);

/**
 * The same test written plainly, with no boxes and no runs of edges: even-odd crossings of a ray to
 * the east, and the distance to every edge in the fix's local equirectangular plane.
 */
function plainAreaLevel(rings: readonly Ring[], lat: number, lon: number, t: number): AreaLevel {
  const kx = Math.cos((lat * Math.PI) / 180) * KM_PER_DEGREE;
  let inside = false;
  let near = false;
  for (const ring of rings) {
    const pts = ring.map(([x, y]) => [
      (Math.round(x * 1e5) / 1e5 - lon) * kx,
      (Math.round(y * 1e5) / 1e5 - lat) * KM_PER_DEGREE,
    ]);
    for (let i = 0; i < pts.length; i++) {
      const [ax, ay] = pts[i === 0 ? pts.length - 1 : i - 1] as number[];
      const [bx, by] = pts[i] as number[];
      if ((ay as number) > 0 !== (by as number) > 0) {
        const x =
          (ax as number) +
          ((0 - (ay as number)) * ((bx as number) - (ax as number))) / ((by as number) - (ay as number));
        if (x > 0) inside = !inside;
      }
      const ex = (bx as number) - (ax as number);
      const ey = (by as number) - (ay as number);
      const len2 = ex * ex + ey * ey;
      const u = len2 > 0 ? Math.min(1, Math.max(0, -((ax as number) * ex + (ay as number) * ey) / len2)) : 0;
      const px = (ax as number) + u * ex;
      const py = (ay as number) + u * ey;
      if (px * px + py * py <= t * t) near = true;
    }
  }
  return inside ? INSIDE : near ? NEAR_BORDER : OUTSIDE;
}

describe("H3 cell radius bound", () => {
  it("holds for every point H3 puts in a cell, all over the globe (resolutions 2 to 4)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -90, max: 90, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.integer({ min: 2, max: 4 }),
        (lat, lon, res) => {
          const cell = latLngToCell(lat, lon, res);
          const [cLat, cLon] = cellToLatLng(cell);
          expect(haversineKm(lat, lon, cLat, cLon)).toBeLessThanOrEqual(cellRadiusKm(cell));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it("holds near pentagons and icosahedron face edges, where cells are most distorted", () => {
    for (const base of getRes0Cells().filter((c) => isPentagon(c))) {
      for (const cell of cellToChildren(base, 3).slice(0, 40)) {
        const [cLat, cLon] = cellToLatLng(cell);
        const r = cellRadiusKm(cell);
        for (let k = 0; k < 24; k++) {
          const a = (2 * Math.PI * k) / 24;
          for (const f of [0.9, 1.0, 1.02]) {
            const lat = cLat + ((r * f) / 111.2) * Math.sin(a);
            const lon =
              cLon + (((r * f) / 111.2) * Math.cos(a)) / Math.max(0.05, Math.cos((cLat * Math.PI) / 180));
            if (Math.abs(lat) > 90) continue;
            const q = latLngToCell(lat, ((((lon + 180) % 360) + 360) % 360) - 180, 3);
            if (q !== cell) continue;
            expect(haversineKm(lat, lon, cLat, cLon)).toBeLessThanOrEqual(r);
          }
        }
      }
    }
  });

  it("never exceeds the per-resolution maximum the builder uses to skip empty cells", () => {
    for (const res of [2, 3, 4]) {
      let max = 0;
      for (const base of getRes0Cells())
        for (const c of cellToChildren(base, res)) max = Math.max(max, cellRadiusKm(c));
      expect(max).toBeLessThanOrEqual(MAX_CELL_RADIUS_KM[res] as number);
    }
  });
});

describe("tree node radius bound", () => {
  it("never exceeds the per-resolution child offsets the builder relies on", () => {
    for (const res of [2, 3]) {
      let max = 0;
      for (const base of getRes0Cells())
        for (const c of cellToChildren(base, res)) {
          const [pLat, pLon] = cellToLatLng(c);
          for (const child of cellToChildren(c, res + 1)) {
            const [cLat, cLon] = cellToLatLng(child);
            max = Math.max(max, haversineKm(pLat, pLon, cLat, cLon));
          }
        }
      expect(max).toBeLessThanOrEqual(MAX_CHILD_OFFSET_KM[res] as number);
    }
  });

  it("bounds the distance from a node's centre to every fix whose deepest cell lies under it", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -90, max: 90, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.integer({ min: 2, max: 7 }),
        fc.integer({ min: 2, max: 7 }),
        (lat, lon, a, b) => {
          const [res, maxRes] = a <= b ? [a, b] : [b, a];
          const node = cellToParent(latLngToCell(lat, lon, maxRes), res);
          const [nLat, nLon] = cellToLatLng(node);
          expect(haversineKm(lat, lon, nLat, nLon)).toBeLessThanOrEqual(nodeRadiusKm(node, res, maxRes));
        },
      ),
      { numRuns: 20_000 },
    );
  });
});

describe("area test (inside, or within the tolerance of the border)", () => {
  const square: Ring = [
    [-88, 41],
    [-87, 41],
    [-87, 42],
    [-88, 42],
    [-88, 41],
  ];
  /** A hole in the square. */
  const hole: Ring = [
    [-87.8, 41.2],
    [-87.2, 41.2],
    [-87.2, 41.8],
    [-87.8, 41.8],
    [-87.8, 41.2],
  ];
  const area = decodeRings(encodeRings([square]));
  const kmPerDegLon = haversineKm(41.5, -87, 41.5, -86);

  it("is true inside, false outside, true within the tolerance of an edge", () => {
    expect(isWithinArea(area, 41.5, -87.5, 0.5)).toBe(true);
    expect(isWithinArea(area, 41.5, -86.5, 0.5)).toBe(false);
    expect(isWithinArea(area, 41.5, -87 + 0.49 / kmPerDegLon, 0.5)).toBe(true);
    expect(isWithinArea(area, 41.5, -87 + 0.51 / kmPerDegLon, 0.5)).toBe(false);
    expect(isWithinArea(area, 41.5, -87 + 9.9 / kmPerDegLon, 10)).toBe(true);
    expect(isWithinArea(area, 41.5, -87 + 10.1 / kmPerDegLon, 10)).toBe(false);
    // Corner: distance to the vertex, not to the extended edges.
    const d = 0.45 / Math.SQRT2;
    expect(isWithinArea(area, 42 + d / 111.2, -87 + d / kmPerDegLon, 0.5)).toBe(true);
    expect(isWithinArea(area, 42 + 0.45 / 111.2, -87 + 0.45 / kmPerDegLon, 0.5)).toBe(false);
  });

  it("handles holes (even-odd) and an area split at the antimeridian", () => {
    const donut = decodeRings(encodeRings([square, hole]));
    expect(isWithinArea(donut, 41.5, -87.5, 0.5)).toBe(false);
    expect(isWithinArea(donut, 41.1, -87.5, 0.5)).toBe(true);
    const split = decodeRings(
      encodeRings([
        [
          [179, 50],
          [180, 50],
          [180, 51],
          [179, 51],
          [179, 50],
        ],
        [
          [-180, 50],
          [-179, 50],
          [-179, 51],
          [-180, 51],
          [-180, 50],
        ],
      ]),
    );
    for (const lon of [179.5, 179.999, -179.999, -179.5, 180, -180])
      expect(isWithinArea(split, 50.5, lon, 0.5)).toBe(true);
    expect(isWithinArea(split, 50.5, -178.5, 0.5)).toBe(false);
    expect(isWithinArea(split, 50.5, 178.5, 0.5)).toBe(false);
    expect(isWithinArea(split, 50.5, 0, 0.5)).toBe(false);
  });

  it("drops a ring of fewer than 3 vertices wherever it sits, and reads the rings after it right", () => {
    const [outer, inner] = encodeRings([square, hole]) as [string, string];
    // "?" encodes 0: "??" is one vertex, "????" two. The builder never writes such rings; a decoder meets them only in a hand-made entry.
    const withShort = decodeRings([outer, "??", "????", inner]);
    const plain = decodeRings([outer, inner]);
    expect(withShort.rings).toEqual(plain.rings);
    for (const [lat, lon] of [
      [41.5, -87.5], // in the hole
      [41.1, -87.5], // between the rings
      [41.5, -87.2 + 0.001], // near the hole's edge
      [41.5, -86.5], // outside
    ] as const)
      expect(areaLevel(withShort, lat, lon, 0.5)).toBe(areaLevel(plain, lat, lon, 0.5));
    expect(areaLevel(withShort, 41.5, -87.5, 0.5)).toBe(OUTSIDE);
    expect(areaLevel(withShort, 41.1, -87.5, 0.5)).toBe(INSIDE);
  });

  it("tells inside from near the border: a fix just outside is NEAR_BORDER, never INSIDE", () => {
    expect(areaLevel(area, 41.5, -87.5, 0.5)).toBe(INSIDE);
    expect(areaLevel(area, 41.5, -87 - 0.1 / kmPerDegLon, 0.5)).toBe(INSIDE);
    expect(areaLevel(area, 41.5, -87 + 0.1 / kmPerDegLon, 0.5)).toBe(NEAR_BORDER);
    expect(areaLevel(area, 41.5, -86, 0.5)).toBe(OUTSIDE);
  });

  it("equals a plain even-odd and edge-distance scan on many-edged shapes (the runs of edges skip nothing)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.2, max: 1, noNaN: true }), { minLength: 3, maxLength: 120 }),
        fc.double({ min: -1.5, max: 1.5, noNaN: true }),
        fc.double({ min: -1.5, max: 1.5, noNaN: true }),
        fc.double({ min: 0.5, max: 10, noNaN: true }),
        fc.constantFrom(41, 64, 0, -33),
        (radii, dLat, dLon, t, lat0) => {
          const ring: [number, number][] = radii.map((r, k) => {
            const a = (2 * Math.PI * k) / radii.length;
            return [-100 + r * Math.cos(a), lat0 + r * Math.sin(a)];
          });
          ring.push(ring[0] as [number, number]);
          const decoded = decodeRings(encodeRings([ring]));
          const lat = lat0 + dLat;
          const lon = -100 + dLon;
          const got = areaLevel(decoded, lat, lon, t);
          const want = plainAreaLevel([ring], lat, lon, t);
          // Floating point may differ only for a fix within a hair of the tolerance circle.
          if (got !== want) expect(Math.abs(got - want)).toBe(1);
          if (got !== want) {
            const edge = plainAreaLevel([ring], lat, lon, t * (1 + 1e-9));
            const inner = plainAreaLevel([ring], lat, lon, t * (1 - 1e-9));
            expect(edge !== inner).toBe(true);
          }
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it("agrees with itself after the encoding round trip (the index and the reference decode alike)", () => {
    const a = encodeRings([square]);
    expect(decodeRings(JSON.parse(JSON.stringify(a)))).toEqual(decodeRings(a));
  });
});

describe("distances", () => {
  it("uses the mean Earth radius 6371.0088 km and one decimal", () => {
    // A quarter of a great circle.
    expect(haversineKm(0, 0, 90, 0)).toBeCloseTo((Math.PI / 2) * 6371.0088, 9);
    expect(haversineKm(0, 179.5, 0, -179.5)).toBeCloseTo((Math.PI / 180) * 6371.0088, 9);
    expect(roundKm(3.249)).toBe(3.2);
    expect(roundKm(3.25)).toBe(3.3);
  });

  it("turns accuracy into a border tolerance of at least 500 m and at most 10 km", () => {
    expect(borderToleranceKm(undefined)).toBe(0.5);
    expect(borderToleranceKm(null)).toBe(0.5);
    expect(borderToleranceKm(20)).toBe(0.5);
    expect(borderToleranceKm(1500)).toBe(1.5);
    expect(borderToleranceKm(250_000)).toBe(10);
    expect(borderToleranceKm(Number.NaN)).toBe(0.5);
  });
});

describe("the storage box given with the encoded rings", () => {
  it("is the box of the rings decoded again, or null when no ring is left", () => {
    const vertex = fc.tuple(
      fc.double({ min: -200, max: 200, noNaN: true }),
      fc.double({ min: -89, max: 89, noNaN: true }),
    );
    // Rings near each other, across the antimeridian, tiny (dropped once rounded) and with repeated vertices.
    const ring = fc.oneof(
      fc.array(vertex, { minLength: 0, maxLength: 12 }),
      fc.array(fc.constantFrom<[number, number]>([179.99999, 10], [-179.99999, 10.00001], [180, 10.00002]), {
        maxLength: 6,
      }),
    );
    fc.assert(
      fc.property(fc.array(ring, { maxLength: 4 }), (rings) => {
        const encoded = encodeRingsWithBox(rings);
        expect(encoded.rings).toEqual(encodeRings(rings));
        if (encoded.rings.length === 0) expect(encoded.box).toBeNull();
        else expect(encoded.box).toEqual(storageBox(decodeRings(encoded.rings)));
      }),
      { numRuns: 2000 },
    );
  });
});
