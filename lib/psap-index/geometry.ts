// Area geometry (places, counties, operator boundaries): the storage encoding of rings and the one
// test the ranking needs, "is the fix inside this area, or only within the tolerance of its border?".
//
// Convention, the same in the index, the lookup and the brute-force reference: vertices are integers
// in units of 1e-5 degree (about 1.1 m; the Census places come rounded to 5 decimals); edges are
// straight in longitude/latitude, as GeoJSON says; each ring is unwrapped around its first vertex and
// shifted toward the fix, so a shape split at the antimeridian (Aleutians West) stays continuous.
// Distances to a border are measured in the local equirectangular plane of the fix (x = dLon·cos(lat),
// y = dLat, in km): that map is affine in longitude/latitude, so edges stay straight and the inside
// test is unchanged; at the tolerances used (0.5 to 10 km) it is within 0.1 % of great-circle distance.

import { KM_PER_DEGREE } from "./geo.ts";

/** Storage units per degree. */
export const QUANTUM = 1e5;
const FULL_TURN = 360 * QUANTUM;

/** A ring as an importer hands it over: [longitude, latitude] pairs in degrees. */
export type Ring = ReadonlyArray<readonly [number, number]>;

/** A decoded ring set: interleaved lon, lat in degrees per ring, and the bounding box. */
export interface AreaGeometry {
  /** Views of the rings' vertices in `flat`. */
  rings: Float64Array[];
  /**
   * Everything the area test reads, in one array (one allocation, read front to back, no pointer to
   * follow per ring): a header of 1 + 4 × rings values [the ring count, then per ring: its first and
   * past-last vertex value, its first and past-last box value], then per ring the box of each run of CHUNK edges
   * [minLon, maxLon, minLat, maxLat, ...] (a fix tests only the runs that can cross its ray or come
   * within its tolerance: exact, a skipped run could do neither), then the vertices.
   */
  flat: Float64Array;
  refLon: number;
  minLon: number;
  maxLon: number;
  minLat: number;
  maxLat: number;
}

/**
 * Rounds, unwraps and encodes rings, one string per ring: the encoded-polyline scheme (zigzag
 * varints in 5-bit groups, each written as a character from '?' up), longitude first, the first
 * vertex absolute and the others as deltas. About half the size of a JSON array of the same integers.
 * Even-odd rule: holes and islands are just more rings.
 */
export function encodeRings(rings: readonly Ring[]): string[] {
  return encodeRingsWithBox(rings).rings;
}

/**
 * `encodeRings`, and the storage box of what it encoded ([minLon, minLat, maxLon, maxLat] in storage
 * units: `storageBox(decodeRings(rings))`, without decoding the rings again). Empty rings: no box.
 */
export function encodeRingsWithBox(rings: readonly Ring[]): { rings: string[]; box: number[] | null } {
  let ref: number | undefined;
  const out: string[] = [];
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const ring of rings) {
    const codes: number[] = [];
    const ringBox = [Infinity, Infinity, -Infinity, -Infinity];
    let prevX = 0;
    let prevY = 0;
    let count = 0;
    for (const [lon, lat] of ring) {
      if (!Number.isFinite(lon) || !Number.isFinite(lat)) continue;
      let x = Math.round(lon * QUANTUM);
      const y = Math.round(lat * QUANTUM);
      if (ref === undefined) ref = x;
      x -= FULL_TURN * Math.round((x - ref) / FULL_TURN);
      if (count > 0 && x === prevX && y === prevY) continue;
      pushVarint(codes, x - prevX);
      pushVarint(codes, y - prevY);
      widen(ringBox, x, y);
      prevX = x;
      prevY = y;
      count++;
    }
    if (count < 3) continue;
    out.push(charsOf(codes));
    widen(box, ringBox[0] as number, ringBox[1] as number);
    widen(box, ringBox[2] as number, ringBox[3] as number);
  }
  // `+ 0` turns a -0 (Math.round of a tiny negative) into the 0 a decoded vertex would have.
  return { rings: out, box: out.length > 0 ? box.map((v) => v + 0) : null };
}

function widen(box: number[], x: number, y: number): void {
  if (x < (box[0] as number)) box[0] = x;
  if (y < (box[1] as number)) box[1] = y;
  if (x > (box[2] as number)) box[2] = x;
  if (y > (box[3] as number)) box[3] = y;
}

/** Appends one value's characters (as char codes: a ring's string is made once, at its end). */
function pushVarint(codes: number[], value: number): void {
  let v = value < 0 ? -2 * value - 1 : 2 * value;
  while (v >= 0x20) {
    codes.push((0x20 | (v & 0x1f)) + 63);
    v = Math.floor(v / 32);
  }
  codes.push(v + 63);
}

/** The string of `codes`, in slices small enough for one call's arguments. */
function charsOf(codes: readonly number[]): string {
  const SLICE = 8192;
  if (codes.length <= SLICE) return String.fromCharCode(...codes);
  let s = "";
  for (let i = 0; i < codes.length; i += SLICE) s += String.fromCharCode(...codes.slice(i, i + SLICE));
  return s;
}

/** Thrown for a ring string that is not in the encoding above. */
export class MalformedRingError extends Error {
  constructor() {
    super("PSAP index ring is malformed");
    this.name = "MalformedRingError";
  }
}

/** Decodes the storage form; the index and the reference both decode, so both see identical doubles. */
export function decodeRings(encoded: readonly string[]): AreaGeometry {
  const bounds = [0];
  for (const ring of encoded) bounds.push((bounds[bounds.length - 1] as number) + ring.length);
  return decodeRingsAt(encoded.join(""), 0, bounds);
}

/**
 * Decodes rings stored back to back in `text` (an index entry's ring section): with bounds [start,
 * end 1, ..., end k] at `bounds[from..to)`, ring j runs from `base + end j-1` (`start` for the first) to
 * `base + end j`. Reads the text in place: no ring string is copied.
 */
export function decodeRingsAt(
  text: string,
  base: number,
  bounds: readonly number[],
  from = 0,
  to: number = bounds.length,
): AreaGeometry {
  // One allocation for the area: count each ring's values first (a ring of fewer than 3 vertices is dropped).
  const counts: number[] = [];
  let values = 0;
  let boxes = 0;
  let kept = 0;
  for (let k = from + 1; k < to; k++) {
    const count = countValues(text, base + (bounds[k - 1] as number), base + (bounds[k] as number));
    counts.push(count);
    if (count < 6) continue;
    values += count;
    boxes += Math.ceil(count / 2 / CHUNK) * 4;
    kept++;
  }
  const header = 1 + 4 * kept;
  const flat = new Float64Array(header + boxes + values);
  flat[0] = kept;
  const rings: Float64Array[] = [];
  let boxAt = header;
  let vertexAt = header + boxes;
  for (let k = from + 1, r = 0; k < to; k++) {
    const count = counts[k - from - 1] as number;
    if (count < 6) continue;
    decodeRing(text, base + (bounds[k - 1] as number), base + (bounds[k] as number), flat, vertexAt);
    const boxEnd = boxAt + Math.ceil(count / 2 / CHUNK) * 4;
    flat[1 + 4 * r] = vertexAt;
    flat[2 + 4 * r] = vertexAt + count;
    flat[3 + 4 * r] = boxAt;
    flat[4 + 4 * r] = boxEnd;
    rings.push(flat.subarray(vertexAt, vertexAt + count));
    vertexAt += count;
    boxAt = boxEnd;
    r++;
  }
  return assemble(rings, flat);
}

/** How many values a ring holds (each ends on a character below '?' + 32); throws if it is malformed. */
function countValues(text: string, from: number, to: number): number {
  if (from < 0 || to > text.length || to < from) throw new MalformedRingError();
  let count = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i) - 63;
    if (c < 0 || c > 63) throw new MalformedRingError();
    if (c < 0x20) count++;
  }
  if (count % 2 !== 0 || (to > from && text.charCodeAt(to - 1) - 63 >= 0x20)) throw new MalformedRingError();
  return count;
}

/** Decodes a ring (checked by countValues) into `ring` from `at` on. */
function decodeRing(text: string, from: number, to: number, ring: Float64Array, at: number): void {
  let v = 0;
  let shift = 1;
  let k = 0;
  let x = 0;
  let y = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i) - 63;
    v += (c & 0x1f) * shift;
    if (c >= 0x20) {
      shift *= 32;
      continue;
    }
    const value = v % 2 === 1 ? -(v + 1) / 2 : v / 2;
    v = 0;
    shift = 1;
    if (k % 2 === 0) {
      x += value;
      ring[at + k] = x / QUANTUM;
    } else {
      y += value;
      ring[at + k] = y / QUANTUM;
    }
    k++;
  }
}

function assemble(rings: Float64Array[], flat: Float64Array): AreaGeometry {
  for (let r = 0; r < rings.length; r++)
    chunkBoxes(rings[r] as Float64Array, flat, flat[3 + 4 * r] as number);
  // The chunk boxes of a ring cover every vertex of it: their union is the area's box.
  let minLon = Number.POSITIVE_INFINITY;
  let maxLon = Number.NEGATIVE_INFINITY;
  let minLat = Number.POSITIVE_INFINITY;
  let maxLat = Number.NEGATIVE_INFINITY;
  const boxesEnd = rings.length > 0 ? (flat[4 * rings.length] as number) : 0;
  for (let c = 1 + 4 * rings.length; c < boxesEnd; c += 4) {
    minLon = Math.min(minLon, flat[c] as number);
    maxLon = Math.max(maxLon, flat[c + 1] as number);
    minLat = Math.min(minLat, flat[c + 2] as number);
    maxLat = Math.max(maxLat, flat[c + 3] as number);
  }
  return { rings, flat, refLon: rings[0]?.[0] ?? 0, minLon, maxLon, minLat, maxLat };
}

/** Edges per chunk of a ring (edge e runs from vertex e - 1 to vertex e, the first from the last vertex). */
export const CHUNK = 16;

/** Writes the ring's chunk boxes into `boxes` from `at` on. */
function chunkBoxes(ring: Float64Array, boxes: Float64Array, at: number): void {
  const n = ring.length / 2;
  const count = Math.ceil(n / CHUNK);
  for (let c = 0; c < count; c++) {
    let minX = Number.POSITIVE_INFINITY;
    let maxX = Number.NEGATIVE_INFINITY;
    let minY = Number.POSITIVE_INFINITY;
    let maxY = Number.NEGATIVE_INFINITY;
    const end = Math.min((c + 1) * CHUNK, n);
    for (let v = c * CHUNK - 1; v < end; v++) {
      const k = ((v + n) % n) * 2;
      const x = ring[k] as number;
      const y = ring[k + 1] as number;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
    boxes[at + c * 4] = minX;
    boxes[at + c * 4 + 1] = maxX;
    boxes[at + c * 4 + 2] = minY;
    boxes[at + c * 4 + 3] = maxY;
  }
}

/** The bounding box of encoded rings in storage units [minLon, minLat, maxLon, maxLat] (for an entry's area tuple). */
export function storageBox(geometry: AreaGeometry): number[] {
  return [
    Math.round(geometry.minLon * QUANTUM),
    Math.round(geometry.minLat * QUANTUM),
    Math.round(geometry.maxLon * QUANTUM),
    Math.round(geometry.maxLat * QUANTUM),
  ];
}

/** Degrees to add to the area's longitudes so they sit within 180 degrees of `lon`. */
export function lonShiftToward(area: AreaGeometry, lon: number): number {
  return -360 * Math.round((area.refLon - lon) / 360);
}

/** Where a fix stands with an area: inside it, only within the tolerance of its border, or neither. */
export const INSIDE = 0;
export const NEAR_BORDER = 1;
export const OUTSIDE = -1;
export type AreaLevel = typeof INSIDE | typeof NEAR_BORDER | typeof OUTSIDE;

/**
 * The contract's "a fix closer to a border than its accuracy counts as inside every area the border
 * separates", split in two: INSIDE when the area contains the fix, NEAR_BORDER when it does not but a
 * border of it is within `toleranceKm`. Exact for the convention above, up to floating point.
 */
export function areaLevel(area: AreaGeometry, lat: number, lon: number, toleranceKm: number): AreaLevel {
  const shift = lonShiftToward(area, lon);
  const cosLat = Math.cos((lat * Math.PI) / 180);
  const tDeg = toleranceKm / KM_PER_DEGREE;
  // Cheap rejection by bounding box, in the same metric (with a hair of slack for rounding).
  if (lat < area.minLat - tDeg * 1.000001 - 1e-9 || lat > area.maxLat + tDeg * 1.000001 + 1e-9)
    return OUTSIDE;
  if (cosLat > 1e-9) {
    const tLon = (tDeg / cosLat) * 1.000001 + 1e-9;
    if (lon < area.minLon + shift - tLon || lon > area.maxLon + shift + tLon) return OUTSIDE;
  }
  const kx = cosLat * KM_PER_DEGREE;
  const t = toleranceKm;
  const t2 = t * t;
  // Chunk boxes are skipped conservatively: a hair of slack on the distance, and a crossing is only
  // ruled out when the whole run lies left of the fix by more than rounding could move it.
  const slack = t * 1e-9 + 1e-9;
  let inside = false;
  let near = false;
  const ring = area.flat;
  const rings = ring[0] as number;
  for (let r = 0; r < rings; r++) {
    const start = ring[1 + 4 * r] as number;
    const end = ring[2 + 4 * r] as number;
    const boxEnd = ring[4 + 4 * r] as number;
    for (let b = ring[3 + 4 * r] as number, c = 0; b < boxEnd; b += 4, c++) {
      const x0 = ((ring[b] as number) + shift - lon) * kx;
      const x1 = ((ring[b + 1] as number) + shift - lon) * kx;
      const y0 = ((ring[b + 2] as number) - lat) * KM_PER_DEGREE;
      const y1 = ((ring[b + 3] as number) - lat) * KM_PER_DEGREE;
      const mayCross = y0 <= 0 && y1 > 0 && x1 > -slack;
      const dx = x0 > 0 ? x0 : x1 < 0 ? -x1 : 0;
      const dy = y0 > 0 ? y0 : y1 < 0 ? -y1 : 0;
      const mayNear = !near && dx * dx + dy * dy <= t2 + slack;
      if (!mayCross && !mayNear) continue;
      const first = start + c * CHUNK * 2;
      const last = Math.min(first + CHUNK * 2, end);
      const prev = first === start ? end - 2 : first - 2;
      let bx = ((ring[prev] as number) + shift - lon) * kx;
      let by = ((ring[prev + 1] as number) - lat) * KM_PER_DEGREE;
      for (let i = first; i < last; i += 2) {
        const ax = bx;
        const ay = by;
        bx = ((ring[i] as number) + shift - lon) * kx;
        by = ((ring[i + 1] as number) - lat) * KM_PER_DEGREE;
        if (ay > 0 !== by > 0) {
          const xCross = ax + ((0 - ay) * (bx - ax)) / (by - ay);
          if (xCross > 0) inside = !inside;
        }
        // Distance to the edge only when its box comes within the tolerance (most edges are far).
        if (near || (ay > t && by > t) || (ay < -t && by < -t) || (ax > t && bx > t) || (ax < -t && bx < -t))
          continue;
        const ex = bx - ax;
        const ey = by - ay;
        const len2 = ex * ex + ey * ey;
        let u = len2 > 0 ? -(ax * ex + ay * ey) / len2 : 0;
        if (u < 0) u = 0;
        else if (u > 1) u = 1;
        const px = ax + u * ex;
        const py = ay + u * ey;
        if (px * px + py * py <= t2) near = true;
      }
    }
  }
  return inside ? INSIDE : near ? NEAR_BORDER : OUTSIDE;
}

/** The border tolerance for a fix, km: its accuracy, at least `minM`, at most `maxKm`. */
export function toleranceKm(accuracyM: number | null | undefined, minM: number, maxKm: number): number {
  const a = typeof accuracyM === "number" && Number.isFinite(accuracyM) ? accuracyM : 0;
  return Math.min(Math.max(a, minM) / 1000, maxKm);
}
