// Service areas (county polygons, or operator boundary polygons): canonical encoding and the
// "is this fix inside the area, or within the tolerance of its border" test.
//
// Geometry convention (the same in the index, the lookup and the brute-force reference):
// vertices are rounded to micro-degrees; edges are straight in longitude/latitude (as GeoJSON
// says); each area's longitudes are unwrapped around its first vertex, so an area split at the
// antimeridian (Aleutians West) is one continuous shape. Distances to a border are measured in
// the local equirectangular plane of the fix (x = dLon * cos(lat), y = dLat, in km). That map is
// affine in lon/lat, so edges stay straight and point-in-polygon is unchanged; at the tolerances
// used here (0.5 to 100 km) it differs from great-circle distance by well under 2 %.

import { KM_PER_DEGREE } from "./geo.ts";

export type AreaKind = "county" | "boundary";

/** A ring as the importer hands it over: [longitude, latitude] pairs in degrees. */
export type Ring = ReadonlyArray<readonly [number, number]>;

/** Rings in storage form: per ring [lon0, lat0, dLon1, dLat1, ...] in integer micro-degrees. */
export type EncodedRings = number[][];

/** A decoded area, ready for tests. Coordinates in degrees; longitudes unwrapped. */
export interface AreaGeometry {
  /** Interleaved lon, lat per ring. */
  rings: Float64Array[];
  refLon: number;
  minLon: number;
  maxLon: number;
  minLat: number;
  maxLat: number;
}

const MICRO = 1e6;
const FULL_TURN = 360 * MICRO;

/** Rounds, unwraps and delta-encodes rings (even-odd rule: holes and islands are just more rings). */
export function encodeRings(rings: readonly Ring[]): EncodedRings {
  let ref: number | undefined;
  const out: EncodedRings = [];
  for (const ring of rings) {
    const enc: number[] = [];
    let prevLon = 0;
    let prevLat = 0;
    let count = 0;
    for (const [lon, lat] of ring) {
      if (!Number.isFinite(lon) || !Number.isFinite(lat)) continue;
      let x = Math.round(lon * MICRO);
      const y = Math.round(lat * MICRO);
      if (ref === undefined) ref = x;
      x -= FULL_TURN * Math.round((x - ref) / FULL_TURN);
      if (count > 0 && x === prevLon && y === prevLat) continue;
      enc.push(x - prevLon, y - prevLat);
      prevLon = x;
      prevLat = y;
      count++;
    }
    if (count >= 3) out.push(enc);
  }
  return out;
}

/** Decodes the storage form. The index and the reference both decode, so both see identical floats. */
export function decodeRings(encoded: EncodedRings): AreaGeometry {
  const rings: Float64Array[] = [];
  let minLon = Number.POSITIVE_INFINITY;
  let maxLon = Number.NEGATIVE_INFINITY;
  let minLat = Number.POSITIVE_INFINITY;
  let maxLat = Number.NEGATIVE_INFINITY;
  let refLon = 0;
  for (const enc of encoded) {
    const ring = new Float64Array(enc.length);
    let x = 0;
    let y = 0;
    for (let i = 0; i + 1 < enc.length; i += 2) {
      x += enc[i] ?? 0;
      y += enc[i + 1] ?? 0;
      const lon = x / MICRO;
      const lat = y / MICRO;
      ring[i] = lon;
      ring[i + 1] = lat;
      if (lon < minLon) minLon = lon;
      if (lon > maxLon) maxLon = lon;
      if (lat < minLat) minLat = lat;
      if (lat > maxLat) maxLat = lat;
    }
    if (rings.length === 0) refLon = ring[0] ?? 0;
    rings.push(ring);
  }
  return { rings, refLon, minLon, maxLon, minLat, maxLat };
}

/** Degrees to add to the area's longitudes so they sit within 180 degrees of `lon`. */
export function lonShiftToward(area: AreaGeometry, lon: number): number {
  return -360 * Math.round((area.refLon - lon) / 360);
}

/**
 * True when the fix is inside the area or within `toleranceKm` of its border (the SPEC's "a
 * location closer to a border than its accuracy is treated as inside every area the border
 * separates"). Exact for the convention above: no approximation beyond floating point.
 */
export function isWithinArea(area: AreaGeometry, lat: number, lon: number, toleranceKm: number): boolean {
  const shift = lonShiftToward(area, lon);
  const cosLat = Math.cos((lat * Math.PI) / 180);
  const tDeg = toleranceKm / KM_PER_DEGREE;
  // Cheap rejection by bounding box, in the same metric (with a hair of slack for rounding).
  if (lat < area.minLat - tDeg * 1.000001 - 1e-9 || lat > area.maxLat + tDeg * 1.000001 + 1e-9) return false;
  if (cosLat > 1e-9) {
    const tLon = (tDeg / cosLat) * 1.000001 + 1e-9;
    if (lon < area.minLon + shift - tLon || lon > area.maxLon + shift + tLon) return false;
  }
  const kx = cosLat * KM_PER_DEGREE;
  const t2 = toleranceKm * toleranceKm;
  let inside = false;
  for (const ring of area.rings) {
    const n = ring.length;
    let bx = ((ring[n - 2] ?? 0) + shift - lon) * kx;
    let by = ((ring[n - 1] ?? 0) - lat) * KM_PER_DEGREE;
    for (let i = 0; i < n; i += 2) {
      const ax = bx;
      const ay = by;
      bx = ((ring[i] ?? 0) + shift - lon) * kx;
      by = ((ring[i + 1] ?? 0) - lat) * KM_PER_DEGREE;
      if (ay > 0 !== by > 0) {
        const xCross = ax + ((0 - ay) * (bx - ax)) / (by - ay);
        if (xCross > 0) inside = !inside;
      }
      const dx = bx - ax;
      const dy = by - ay;
      const len2 = dx * dx + dy * dy;
      let u = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0;
      if (u < 0) u = 0;
      else if (u > 1) u = 1;
      const px = ax + u * dx;
      const py = ay + u * dy;
      if (px * px + py * py <= t2) return true;
    }
  }
  return inside;
}
