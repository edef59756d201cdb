// Simplifies a GeoJSON layer of areas for the bundle, keeping their topology: the areas become one
// TopoJSON topology (topojson-server), so a border two areas share is one arc and is simplified once,
// the same way for both (no gaps, no overlaps); each arc is simplified by Douglas-Peucker (simplify-js) in
// metres around its own latitude, so no border moves farther than the tolerance; a ring that would
// collapse keeps its arcs whole; the result is quantized (topojson-client). Deterministic: the same input
// gives the same bytes.
import type { Feature, FeatureCollection, Geometry } from "geojson";
import simplifyPolyline from "simplify-js";
import { quantize } from "topojson-client";
import { topology } from "topojson-server";
import type { GeometryObject, Objects, Topology } from "topojson-specification";

/** Metres per degree of latitude (and of longitude at the equator), for the local projection. */
const M_PER_DEG = 111_320;

export interface SimplifyOptions {
  /** Layer name in the topology. */
  layer: string;
  /** Properties kept on every feature; the rest are dropped. */
  fields: readonly string[];
  /** Douglas-Peucker tolerance, metres: no border moves farther than this. */
  toleranceM: number;
  /** Quantization of the output (points per axis over the layer's extent). */
  quantization: number;
}

export interface Simplified {
  topology: Topology;
  /** Points before and after, and the rings kept whole because they would have collapsed. */
  points: { before: number; after: number };
  ringsKeptWhole: number;
}

type Arc = [number, number][];

/** One arc by Douglas-Peucker in metres around its mean latitude; a closed arc keeps a ring's four points. */
function simplifyArc(arc: Arc, toleranceM: number): Arc {
  if (arc.length <= 2) return arc;
  const lat0 = arc.reduce((s, p) => s + p[1], 0) / arc.length;
  const kx = M_PER_DEG * Math.cos((lat0 * Math.PI) / 180);
  const projected = arc.map(([lon, lat], i) => ({ x: lon * kx, y: lat * M_PER_DEG, i }));
  const kept = simplifyPolyline(projected, toleranceM, true) as typeof projected;
  const closed = arc[0]?.[0] === arc[arc.length - 1]?.[0] && arc[0]?.[1] === arc[arc.length - 1]?.[1];
  if (closed && kept.length < 4) return arc;
  return kept.map((p) => arc[p.i] as [number, number]);
}

/** The arc indexes of every ring of every geometry of the object. */
function ringsOf(object: GeometryObject): number[][] {
  const g = object as { type: string; arcs?: unknown; geometries?: GeometryObject[] };
  if (g.type === "GeometryCollection") return (g.geometries ?? []).flatMap(ringsOf);
  if (g.type === "Polygon") return g.arcs as number[][];
  if (g.type === "MultiPolygon") return (g.arcs as number[][][]).flat();
  return [];
}

/** Distinct positions of a ring built from arcs (a negative index is the arc reversed, ~i). */
function ringPoints(ring: readonly number[], arcs: readonly Arc[]): number {
  let n = 0;
  for (const index of ring) n += Math.max(0, (arcs[index < 0 ? ~index : index] as Arc).length - 1);
  return n;
}

export function simplifyAreas(fc: FeatureCollection, options: SimplifyOptions): Simplified {
  const features: Feature[] = fc.features.map((f) => ({
    type: "Feature",
    properties: Object.fromEntries(options.fields.map((k) => [k, f.properties?.[k] ?? null])),
    geometry: f.geometry as Geometry,
  }));
  const layer: FeatureCollection = { type: "FeatureCollection", features };
  const topo = topology({ [options.layer]: layer as GeoJSON.GeoJsonObject }) as Topology;
  const original = topo.arcs as unknown as Arc[];
  const arcs = original.map((arc) => simplifyArc(arc, options.toleranceM));
  // Keep-shapes: a ring that would be left with fewer than three distinct points keeps its arcs whole.
  let ringsKeptWhole = 0;
  for (const ring of ringsOf(topo.objects[options.layer] as GeometryObject)) {
    if (ringPoints(ring, arcs) >= 3) continue;
    ringsKeptWhole++;
    for (const index of ring) {
      const i = index < 0 ? ~index : index;
      arcs[i] = original[i] as Arc;
    }
  }
  const count = (list: readonly Arc[]) => list.reduce((n, a) => n + a.length, 0);
  const simplified = { ...topo, arcs } as unknown as Topology<Objects<object>>;
  return {
    topology: quantize(simplified, options.quantization) as Topology,
    points: { before: count(original), after: count(arcs) },
    ringsKeptWhole,
  };
}
