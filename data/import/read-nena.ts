// Reads a NENA GIS data model `PsapPolygon` layer (NENA-STA-006, v2 or v3 field names), whichever file
// it came in (GeoJSON, a shapefile ZIP through shpjs, a GeoPackage through read-geopackage.ts): every
// feature is kept or dropped with its reason. Kept: a PSAP's boundary (ServiceURN urn:service:sos or
// urn:emergency:service:sos.psap) in force at the import (Effective not after it, Expire after it),
// with an NGUID, a display name and a valid polygon. The pairs of kept polygons that overlap are
// reported (layer-overlaps.ts). Which PSAP each polygon belongs to is decided later, once the registry
// is read (nena-match.ts).
import type { MultiPolygon } from "polygon-clipping";
import { type GeoJsonGeometry, geojsonRings } from "./geojson-rings.ts";
import { findOverlaps } from "./layer-overlaps.ts";
import type { FileReport, NenaFeature } from "./model.ts";
import {
  dayOf,
  EXPLICIT_ID_FIELDS,
  NenaProperties,
  NGUID_FIELDS,
  PSAP_SERVICE_URNS,
  readNenaDate,
} from "./nena-fields.ts";
import { interiorPoint } from "./read-towns.ts";
import { STATE_BY_FIPS } from "./states.ts";

interface LayerFeature {
  properties?: Record<string, unknown> | null;
  geometry?: GeoJsonGeometry | null;
  /** Why a GeoPackage row's geometry could not be read (read-geopackage.ts). */
  error?: string;
}

const STATES = new Set(Object.values(STATE_BY_FIPS));

/** `line` is the feature's position in its layer (1-based); `now` decides what is in force. */
export function readNenaLayer(
  path: string,
  list: readonly LayerFeature[],
  options: { now: Date; source?: string },
): { features: NenaFeature[]; report: FileReport } {
  const report: FileReport = {
    path,
    kind: "nena-psap-polygons",
    rowsRead: list.length,
    kept: 0,
    dropped: [],
    notes: options.source ? [options.source] : [],
    boundaryMatches: [],
    overlaps: [],
  };
  const features: NenaFeature[] = [];
  const polygons: MultiPolygon[] = [];
  const firstWith = new Map<string, number>();
  let withoutUrn = 0;
  list.forEach((f, k) => {
    const line = k + 1;
    const read = readFeature(f, options.now);
    if ("reason" in read) {
      report.dropped.push({ line, reason: read.reason });
      return;
    }
    const key = read.feature.nguid.toLowerCase();
    if (firstWith.has(key)) {
      report.dropped.push({ line, reason: "duplicate NGUID: the layer's first feature with it is kept" });
      return;
    }
    firstWith.set(key, line);
    if (read.withoutUrn) withoutUrn++;
    features.push({ ...read.feature, line });
    polygons.push(read.polygons);
  });
  if (withoutUrn > 0) {
    report.notes.push(
      `${withoutUrn} feature${withoutUrn > 1 ? "s" : ""} without a ServiceURN: read as PSAP boundaries, the layer's default (urn:emergency:service:sos.psap)`,
    );
  }
  const { pairs, failed } = findOverlaps(polygons.map((p) => ({ polygons: p })));
  for (const pair of pairs) {
    const a = features[pair.a] as NenaFeature;
    const b = features[pair.b] as NenaFeature;
    report.overlaps?.push({
      lines: [a.line, b.line],
      nguids: [a.nguid, b.nguid],
      names: [a.displayName, b.displayName],
      areaKm2: pair.areaKm2,
      depthM: pair.depthM,
    });
  }
  for (const [a, b] of failed) {
    report.notes.push(
      `items ${features[a]?.line} and ${features[b]?.line}: their overlap could not be computed (polygon clipping failed)`,
    );
  }
  report.kept = features.length;
  return { features, report };
}

type ReadFeature =
  | { reason: string }
  | { feature: Omit<NenaFeature, "line">; polygons: MultiPolygon; withoutUrn: boolean };

/** One feature: what the layer says of it, or why it is not used. */
function readFeature(f: LayerFeature, now: Date): ReadFeature {
  const p = new NenaProperties(f?.properties);
  if (f?.error) return { reason: `bad feature: ${f.error}` };
  const rings = geojsonRings(f?.geometry, true);
  if (!rings) return { reason: "bad feature: geometry is not a valid Polygon or MultiPolygon" };
  const nguid = p.text(...NGUID_FIELDS);
  if (!nguid) return { reason: "bad feature: no NGUID (or ES_NGUID)" };
  const displayName = p.text("DsplayName");
  if (!displayName) return { reason: "bad feature: no DsplayName" };
  const urn = p.text("ServiceURN");
  if (urn !== null && !PSAP_SERVICE_URNS.includes(urn.toLowerCase()))
    return { reason: `another service's boundary (ServiceURN ${urn}), not a PSAP's` };
  const effective = readNenaDate(p.value("Effective"));
  const expire = readNenaDate(p.value("Expire"));
  if (effective === "bad") return { reason: "bad feature: Effective is not a date" };
  if (expire === "bad") return { reason: "bad feature: Expire is not a date" };
  if (expire !== null && expire.getTime() <= now.getTime())
    return { reason: `expired (Expire on or before the import, ${dayOf(now)})` };
  if (effective !== null && effective.getTime() > now.getTime())
    return { reason: `not yet in effect (Effective after the import, ${dayOf(now)})` };
  const stateText = p.text("State");
  const state = stateText === null ? null : stateText.toUpperCase();
  if (state !== null && !STATES.has(state))
    return { reason: "bad feature: State is not a US state or territory code" };
  const geometry = f.geometry as GeoJsonGeometry;
  const coordinates = (
    geometry.type === "Polygon" ? [geometry.coordinates] : geometry.coordinates
  ) as number[][][][];
  return {
    feature: {
      nguid,
      displayName,
      agencyId: p.text("Agency_ID"),
      serviceUri: p.text("ServiceURI"),
      avcardUri: p.text("AVcard_URI"),
      serviceNumber: p.text("ServiceNum"),
      explicitId: p.text(...EXPLICIT_ID_FIELDS),
      state,
      rings,
      interior: interiorPoint(rings),
    },
    polygons: coordinates.map((polygon) =>
      polygon.map((ring) => ring.map((pos): [number, number] => [pos[0] as number, pos[1] as number])),
    ),
    withoutUrn: urn === null,
  };
}
