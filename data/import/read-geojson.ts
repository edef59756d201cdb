// Reads service-boundary polygons (GeoJSON, NENA-style properties) that give the `boundary` match.

import { geojsonRings } from "./geojson-rings.ts";
import type { BoundaryFeature, FileReport } from "./model.ts";

/** Properties that name the PSAP a polygon belongs to (the registry's PSAP ID, or a project id). */
export const PSAP_ID_PROPERTIES = ["PSAP_ID", "psap_id", "FCC_PSAP_ID", "fcc_psap_id"] as const;
/** NENA NG911 GIS data model: the polygon's own unique id. */
export const AREA_ID_PROPERTIES = ["ES_NGUID", "es_nguid", "Agency_ID"] as const;

interface Feature {
  type?: unknown;
  properties?: Record<string, unknown> | null;
  geometry?: { type?: unknown; coordinates?: unknown } | null;
}

export function isGeoJson(json: unknown): boolean {
  const t = (json as { type?: unknown } | null)?.type;
  return t === "FeatureCollection" || t === "Feature";
}

/** `line` is the feature's position (1-based). */
export function readGeoJson(
  path: string,
  json: unknown,
): { features: BoundaryFeature[]; report: FileReport } {
  const root = json as { type?: unknown; features?: unknown };
  const list: Feature[] =
    root.type === "Feature" ? [root as Feature] : Array.isArray(root.features) ? root.features : [];
  const report: FileReport = {
    path,
    kind: "geojson",
    rowsRead: list.length,
    kept: 0,
    dropped: [],
    notes: [],
  };
  const features: BoundaryFeature[] = [];
  list.forEach((f, k) => {
    const line = k + 1;
    const props = f?.properties ?? {};
    const idProp = PSAP_ID_PROPERTIES.find(
      (p) => props[p] !== undefined && props[p] !== null && props[p] !== "",
    );
    if (!idProp) {
      report.dropped.push({ line, reason: `bad feature: no ${PSAP_ID_PROPERTIES.join(" / ")} property` });
      return;
    }
    const rings = geojsonRings(f?.geometry, true);
    if (!rings) {
      report.dropped.push({ line, reason: "bad feature: geometry is not a valid Polygon or MultiPolygon" });
      return;
    }
    const areaProp = AREA_ID_PROPERTIES.find((p) => typeof props[p] === "string" && props[p] !== "");
    features.push({
      line,
      psapId: String(props[idProp]),
      areaId: areaProp ? String(props[areaProp]) : `${path}#${line}`,
      rings,
    });
  });
  report.kept = features.length;
  return { features, report };
}
