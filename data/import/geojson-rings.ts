// The rings of a GeoJSON Polygon or MultiPolygon, checked: every position a finite [lon, lat] pair.
import type { Ring } from "../../lib/psap-index/geometry.ts";

export interface GeoJsonGeometry {
  type?: unknown;
  coordinates?: unknown;
}

/**
 * Every ring of the geometry (holes and islands alike: the even-odd rule decides), or null when it is
 * not a valid Polygon or MultiPolygon. A ring of fewer than 4 positions (not closed) is null when
 * `strict`, skipped otherwise (simplified Census shapes can leave a degenerate sliver).
 */
export function geojsonRings(geometry: GeoJsonGeometry | null | undefined, strict: boolean): Ring[] | null {
  if (!geometry) return null;
  const polys =
    geometry.type === "Polygon"
      ? [geometry.coordinates]
      : geometry.type === "MultiPolygon"
        ? geometry.coordinates
        : null;
  if (!Array.isArray(polys)) return null;
  const rings: Ring[] = [];
  for (const poly of polys) {
    if (!Array.isArray(poly)) return null;
    for (const ring of poly) {
      if (!Array.isArray(ring)) return null;
      if (ring.length < 4) {
        if (strict) return null;
        continue;
      }
      const out: [number, number][] = [];
      for (const pos of ring) {
        const [lon, lat] = Array.isArray(pos) ? pos : [];
        if (typeof lon !== "number" || typeof lat !== "number" || Math.abs(lat) > 90 || Math.abs(lon) > 360) {
          return null;
        }
        out.push([lon, lat]);
      }
      rings.push(out);
    }
  }
  return rings.length > 0 ? rings : null;
}
