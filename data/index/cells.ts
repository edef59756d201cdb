// H3 cell geometry the entry proofs rely on: how far any point a tree node covers can be from its centre.
import { cellToBoundary, cellToLatLng } from "h3-js";
import { haversineKm } from "../../lib/psap-index/geo.ts";

/**
 * Upper bound, km, on the great-circle distance from a cell's centre to any point that
 * `latLngToCell` assigns to the cell. The cell's edges are great-circle arcs (straight in H3's
 * gnomonic face projection; `cellToBoundary` adds the extra vertices where a cell crosses an
 * icosahedron face), and a spherical cap of radius below 90 degrees is convex, so the farthest
 * point is a vertex. The 2 % + 100 m slack absorbs floating point; a test samples the globe.
 */
export function cellRadiusKm(cell: string): number {
  const [lat, lon] = cellToLatLng(cell);
  let max = 0;
  for (const [vLat, vLon] of cellToBoundary(cell)) {
    const d = haversineKm(lat, lon, vLat, vLon);
    if (d > max) max = d;
  }
  return max * 1.02 + 0.1;
}

/** Largest `cellRadiusKm` of any cell, per resolution (res 2 to 4 checked over every cell, 5 to 7 over samples and pentagons). */
export const MAX_CELL_RADIUS_KM: Readonly<Record<number, number>> = {
  2: 206,
  3: 78,
  4: 29.5,
  5: 11.2,
  6: 4.3,
  7: 1.7,
};

/**
 * Largest distance from a cell's centre to one of its children's centres, per resolution of the
 * parent, km (res 2 and 3 checked over every cell, 4 to 6 over samples and pentagons; +2 %).
 */
export const MAX_CHILD_OFFSET_KM: Readonly<Record<number, number>> = {
  2: 134,
  3: 50.7,
  4: 19.2,
  5: 7.3,
  6: 2.8,
};

/**
 * Upper bound, km, on the distance from a tree node's centre to any fix the node covers, when fixes
 * are placed by their cell at `maxResolution` and walked up with cellToParent: the fix is within its
 * cell's radius of that cell's centre, and each centre on the way up is within one child offset of
 * its parent's centre (an H3 child's centre lies inside its parent), so the offsets add up.
 */
export function nodeRadiusKm(cell: string, resolution: number, maxResolution: number): number {
  if (resolution === maxResolution) return cellRadiusKm(cell);
  let r = MAX_CELL_RADIUS_KM[maxResolution] ?? Number.NaN;
  for (let k = resolution; k < maxResolution; k++) r += MAX_CHILD_OFFSET_KM[k] ?? Number.NaN;
  if (!Number.isFinite(r))
    throw new RangeError(`no radius bound between resolutions ${resolution} and ${maxResolution}`);
  return r;
}
