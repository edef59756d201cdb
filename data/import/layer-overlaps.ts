// The pairs of polygons of one service-boundary layer whose areas overlap: the NENA data model wants a
// PSAP layer without gaps or overlaps, and where two service areas overlap, a fix there is answered by
// both. Candidates come from a bounding-box index (flatbush); each pair is first clipped to the box the two
// share (lineclip), which keeps only the stretch of border between them, then intersected exactly
// (polygon-clipping). An overlap counts when it holds a point more than OVERLAP_DEPTH_M inside both
// polygons (polylabel's pole of inaccessibility of each piece, in metres): a sliver along a shared
// border, where two sources drew one line a few metres apart, is within the data's precision and is not
// reported however long it is.
import Flatbush from "flatbush";
import { clipPolygon } from "lineclip";
import polygonClipping, { type MultiPolygon, type Polygon } from "polygon-clipping";
import polylabel from "polylabel";

/**
 * Half the precision docs/contract.md, section 4 gives service areas (100 m): an overlap that holds a disc 100 m
 * across is more than the border's own uncertainty.
 */
export const OVERLAP_DEPTH_M = 50;

/** One polygon of the layer: its GeoJSON MultiPolygon coordinates, [lon, lat]. */
export interface LayerPolygon {
  polygons: MultiPolygon;
}

export interface OverlapPair {
  /** Indexes into the polygons given. */
  a: number;
  b: number;
  areaKm2: number;
  depthM: number;
}

const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;
/** The smallest area that can hold a disc OVERLAP_DEPTH_M in radius: a smaller piece cannot count. */
const MIN_AREA_M2 = Math.PI * OVERLAP_DEPTH_M * OVERLAP_DEPTH_M;

type Box = [number, number, number, number];

/** Every overlapping pair, and the pairs whose overlap could not be computed (clipping failed on them). */
export function findOverlaps(layer: readonly LayerPolygon[]): {
  pairs: OverlapPair[];
  failed: [number, number][];
} {
  const pairs: OverlapPair[] = [];
  const failed: [number, number][] = [];
  if (layer.length < 2) return { pairs, failed };
  const boxes = layer.map((p) => boxOf(p.polygons));
  const index = new Flatbush(layer.length);
  for (const [w, s, e, n] of boxes) index.add(w, s, e, n);
  index.finish();
  boxes.forEach((box, a) => {
    for (const b of index.search(...box)) {
      if (b <= a) continue;
      try {
        const overlap = overlapOf(layer[a] as LayerPolygon, layer[b] as LayerPolygon, box, boxes[b] as Box);
        if (overlap) pairs.push({ a, b, ...overlap });
      } catch {
        failed.push([a, b]);
      }
    }
  });
  pairs.sort((x, y) => y.areaKm2 - x.areaKm2 || x.a - y.a || x.b - y.b);
  return { pairs, failed };
}

function overlapOf(
  a: LayerPolygon,
  b: LayerPolygon,
  boxA: Box,
  boxB: Box,
): { areaKm2: number; depthM: number } | null {
  const shared: Box = [
    Math.max(boxA[0], boxB[0]),
    Math.max(boxA[1], boxB[1]),
    Math.min(boxA[2], boxB[2]),
    Math.min(boxA[3], boxB[3]),
  ];
  const lat0 = (shared[1] + shared[3]) / 2;
  const clippedA = clipToBox(a.polygons, shared);
  const clippedB = clipToBox(b.polygons, shared);
  if (areaM2(clippedA, lat0) < MIN_AREA_M2 || areaM2(clippedB, lat0) < MIN_AREA_M2) return null;
  const pieces = polygonClipping.intersection(clippedA, clippedB);
  let total = 0;
  let depth = 0;
  for (const piece of pieces) {
    const area = areaM2([piece], lat0);
    total += area;
    if (area < MIN_AREA_M2) continue;
    depth = Math.max(depth, polylabel(inMetres(piece, lat0), 1).distance);
  }
  if (depth <= OVERLAP_DEPTH_M) return null;
  return { areaKm2: Math.round(total / 1e3) / 1e3, depthM: Math.round(depth) };
}

function boxOf(polygons: MultiPolygon): Box {
  const box: Box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const polygon of polygons) {
    for (const ring of polygon) {
      for (const [x, y] of ring) {
        if (x < box[0]) box[0] = x;
        if (y < box[1]) box[1] = y;
        if (x > box[2]) box[2] = x;
        if (y > box[3]) box[3] = y;
      }
    }
  }
  return box;
}

/**
 * The polygons cut to `box` (Sutherland-Hodgman, per ring: the cut edges run along the box, where they
 * add no area and lie on the same line for both polygons of a pair).
 */
function clipToBox(polygons: MultiPolygon, box: Box): MultiPolygon {
  const out: MultiPolygon = [];
  for (const polygon of polygons) {
    const rings: Polygon = [];
    for (const ring of polygon) {
      const clipped = clipPolygon(ring, box) as [number, number][];
      if (clipped.length < 3) {
        if (rings.length === 0) break; // the outer ring lies outside: so do its holes
        continue;
      }
      const first = clipped[0] as [number, number];
      const last = clipped[clipped.length - 1] as [number, number];
      if (first[0] !== last[0] || first[1] !== last[1]) clipped.push([first[0], first[1]]);
      rings.push(clipped);
    }
    if (rings.length > 0) out.push(rings);
  }
  return out;
}

/** Area in m², the outer rings less their holes, on a plane true to scale at latitude `lat0`. */
function areaM2(polygons: MultiPolygon, lat0: number): number {
  const scale = Math.cos(lat0 * RAD) * (EARTH_RADIUS_M * RAD) ** 2;
  let total = 0;
  for (const polygon of polygons) {
    polygon.forEach((ring, i) => {
      let twice = 0;
      for (let k = 0, j = ring.length - 1; k < ring.length; j = k++) {
        const p = ring[k] as [number, number];
        const q = ring[j] as [number, number];
        twice += (q[0] + p[0]) * (q[1] - p[1]);
      }
      total += (i === 0 ? 1 : -1) * Math.abs(twice / 2);
    });
  }
  return Math.max(0, total * scale);
}

/** A polygon in metres on the same plane, for polylabel. */
function inMetres(polygon: Polygon, lat0: number): [number, number][][] {
  const kx = Math.cos(lat0 * RAD) * EARTH_RADIUS_M * RAD;
  const ky = EARTH_RADIUS_M * RAD;
  return polygon.map((ring) => ring.map(([x, y]): [number, number] => [x * kx, y * ky]));
}
