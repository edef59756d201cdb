// H3 cell geometry the bucket proofs rely on: a bound on how far any point of a cell is from its centre.
import { cellToBoundary, cellToLatLng } from "h3-js";
import { haversineKm } from "./geo.ts";

/**
 * Upper bound, km, on the great-circle distance from a cell's centre to any point that
 * `latLngToCell` assigns to the cell. The cell's edges are great-circle arcs (straight in H3's
 * gnomonic face projection; `cellToBoundary` adds the extra vertices where a cell crosses an
 * icosahedron face), and a spherical cap of radius below 90 degrees is convex, so the farthest
 * point is a vertex. The 2 % + 100 m slack absorbs floating point and is checked by a test that
 * samples points in cells all over the globe.
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

/** Largest `cellRadiusKm` of any cell, per resolution (a test checks every cell against it). */
export const MAX_CELL_RADIUS_KM: Readonly<Record<number, number>> = { 2: 206, 3: 78, 4: 29.5 };
