// The geometric facts the index's exactness rests on: cell radius bounds, border distances, haversine.
import fc from "fast-check";
import { cellToChildren, cellToLatLng, getRes0Cells, isPentagon, latLngToCell } from "h3-js";
import { describe, expect, it } from "vitest";
import { decodeRings, encodeRings, isWithinArea, type Ring } from "../../src/psap/area.ts";
import { cellRadiusKm, MAX_CELL_RADIUS_KM } from "../../src/psap/cells.ts";
import { haversineKm, roundKm } from "../../src/psap/geo.ts";
import { borderToleranceKm } from "../../src/psap/rank.ts";

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

describe("area test (inside, or within the tolerance of the border)", () => {
  const square: Ring = [
    [-88, 41],
    [-87, 41],
    [-87, 42],
    [-88, 42],
    [-88, 41],
  ];
  const area = decodeRings(encodeRings([square]));
  const kmPerDegLon = haversineKm(41.5, -87, 41.5, -86);

  it("is true inside, false outside, true within the tolerance of an edge", () => {
    expect(isWithinArea(area, 41.5, -87.5, 0.5)).toBe(true);
    expect(isWithinArea(area, 41.5, -86.5, 0.5)).toBe(false);
    expect(isWithinArea(area, 41.5, -87 + 0.49 / kmPerDegLon, 0.5)).toBe(true);
    expect(isWithinArea(area, 41.5, -87 + 0.51 / kmPerDegLon, 0.5)).toBe(false);
    expect(isWithinArea(area, 41.5, -87 + 99 / kmPerDegLon, 100)).toBe(true);
    // Corner: distance to the vertex, not to the extended edges.
    const d = 0.45 / Math.SQRT2;
    expect(isWithinArea(area, 42 + d / 111.2, -87 + d / kmPerDegLon, 0.5)).toBe(true);
    expect(isWithinArea(area, 42 + 0.45 / 111.2, -87 + 0.45 / kmPerDegLon, 0.5)).toBe(false);
  });

  it("handles holes (even-odd) and an area split at the antimeridian", () => {
    const hole: Ring = [
      [-87.8, 41.2],
      [-87.2, 41.2],
      [-87.2, 41.8],
      [-87.8, 41.8],
      [-87.8, 41.2],
    ];
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

  it("turns accuracy into a border tolerance of at least 500 m and at most 100 km", () => {
    expect(borderToleranceKm(undefined)).toBe(0.5);
    expect(borderToleranceKm(null)).toBe(0.5);
    expect(borderToleranceKm(20)).toBe(0.5);
    expect(borderToleranceKm(1500)).toBe(1.5);
    expect(borderToleranceKm(250_000)).toBe(100);
    expect(borderToleranceKm(Number.NaN)).toBe(0.5);
  });
});
