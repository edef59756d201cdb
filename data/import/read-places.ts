// Reads Census places (city limits and census-designated communities): the project's gzipped GeoJSON of
// every place, a plain GeoJSON, or the Census Bureau's own shapefile ZIP (tl_YYYY_SS_place.zip).
import shp, { type ShapefileLayer } from "shpjs";
import { feature } from "topojson-client";
import type { GeometryObject, Topology } from "topojson-specification";
import { ImportError } from "./errors.ts";
import { geojsonRings } from "./geojson-rings.ts";
import type { FileReport, Place } from "./model.ts";
import { printable } from "./printable.ts";
import { STATE_BY_FIPS } from "./states.ts";

interface PlaceFeature {
  properties?: Record<string, unknown> | null;
  geometry?: { type?: unknown; coordinates?: unknown } | null;
}

const REQUIRED = ["GEOID", "STATEFP", "NAME", "CLASSFP"] as const;

/** A TopoJSON topology (the bundle's places) as the FeatureCollection of its first object; other JSON as it is. */
export function fromTopology(json: unknown): unknown {
  const topo = json as { type?: unknown; objects?: Record<string, GeometryObject> } | null;
  if (topo?.type !== "Topology" || !topo.objects) return json;
  const first = Object.values(topo.objects)[0];
  return first ? feature(topo as unknown as Topology, first) : json;
}

/** The properties of a FeatureCollection's first feature, or null when it is not a non-empty one. */
export function firstProperties(json: unknown): Record<string, unknown> | null {
  const fc = json as { type?: unknown; features?: PlaceFeature[] } | null;
  if (fc?.type !== "FeatureCollection" || !Array.isArray(fc.features) || fc.features.length === 0)
    return null;
  return fc.features[0]?.properties ?? {};
}

/**
 * True for a FeatureCollection whose features carry the Census PLACE layer's properties (a county
 * subdivision layer has a CLASSFP too, and a COUSUBFP: it is read as towns, read-towns.ts).
 */
export function isCensusPlaces(json: unknown): boolean {
  const props = firstProperties(json);
  return props !== null && REQUIRED.every((k) => k in props) && !("COUSUBFP" in props);
}

/** The parts of a shapefile layer an archive may hold: the ZIP entries worth inflating (others are skipped). */
export function isShapefilePart(name: string): boolean {
  return !name.includes("__MACOSX") && /\.(shp|dbf|prj|cpg)$/i.test(name);
}

/**
 * The shapefile layers of a ZIP's (already bounded and inflated) entries as GeoJSON, through shpjs (it
 * reads the .shp, .dbf, .cpg and .prj and projects to WGS84): one layer as a FeatureCollection; of several,
 * the first that `isLayer` recognises (a Census PLACE or county-subdivision layer, a NENA PsapPolygon layer).
 */
export async function readShapefileZip(
  path: string,
  entries: ReadonlyMap<string, Buffer>,
  isLayer: (json: unknown) => boolean,
): Promise<unknown> {
  try {
    const layers = shapefileLayers(entries);
    if (layers.length === 0) throw new Error("no .shp layer in the archive");
    const out = await Promise.all(layers.map((layer) => shp(layer)));
    if (out.length === 1) return out[0];
    const layer = out.find((fc) => isLayer(fc));
    if (!layer)
      throw new Error("no Census PLACE, county-subdivision or NENA PsapPolygon layer in the archive");
    return layer;
  } catch (err) {
    throw new ImportError(`${printable(path)}: not a readable shapefile ZIP (${(err as Error).message})`, {
      cause: err,
    });
  }
}

/** Each `.shp` with the `.dbf`, `.cpg` and `.prj` of the same name (any case), as shpjs takes a layer. */
function shapefileLayers(entries: ReadonlyMap<string, Buffer>): ShapefileLayer[] {
  const byLowerName = new Map([...entries].map(([name, bytes]) => [name.toLowerCase(), bytes]));
  const layers: ShapefileLayer[] = [];
  for (const [name, bytes] of byLowerName) {
    if (!name.endsWith(".shp")) continue;
    const base = name.slice(0, -4);
    const text = (ext: string) => byLowerName.get(`${base}.${ext}`)?.toString("utf8");
    layers.push({ shp: bytes, dbf: byLowerName.get(`${base}.dbf`), cpg: text("cpg"), prj: text("prj") });
  }
  return layers;
}

export function number(v: unknown): number | null {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : null;
}

/** Every place of a PLACE layer; `line` is the feature's position (1-based). */
export function readCensusPlaces(path: string, json: unknown): { places: Place[]; report: FileReport } {
  const features = (json as { features: PlaceFeature[] }).features;
  const report: FileReport = {
    path,
    kind: "census-places",
    rowsRead: features.length,
    kept: 0,
    dropped: [],
    notes: [],
  };
  const places: Place[] = [];
  const seen = new Set<string>();
  features.forEach((f, k) => {
    const line = k + 1;
    const p = f.properties ?? {};
    const geoid = String(p.GEOID ?? "");
    const state = STATE_BY_FIPS[String(p.STATEFP ?? "")];
    const classFp = String(p.CLASSFP ?? "");
    const name = typeof p.NAME === "string" ? dispatcherName(p.NAME.trim(), classFp) : "";
    if (!/^\d{7}$/.test(geoid) || !state || !name || !/^[A-Z]\d$/.test(classFp)) {
      report.dropped.push({
        line,
        reason: "bad feature: GEOID, STATEFP, NAME or CLASSFP missing or unknown",
      });
      return;
    }
    if (seen.has(geoid)) {
      report.dropped.push({ line, reason: `duplicate GEOID ${geoid}` });
      return;
    }
    const rings = geojsonRings(f.geometry, false);
    if (!rings) {
      report.dropped.push({ line, reason: "bad feature: geometry is not a valid Polygon or MultiPolygon" });
      return;
    }
    const lat = number(p.INTPTLAT);
    const lon = number(p.INTPTLON);
    const first = rings[0]?.[0] as [number, number];
    seen.add(geoid);
    // C9 marks an inactive or nonfunctioning incorporated place: no government, so no city limits to answer
    // for. A consolidated city's balance (C8) is "fictitious" (FUNCSTAT F) only as a Census unit: it is the
    // city itself (Indianapolis, Nashville) outside the towns within it, and its government answers there.
    const incorporated =
      classFp.startsWith("C") &&
      classFp !== "C9" &&
      (p.FUNCSTAT !== "F" || classFp === BALANCE) &&
      p.FUNCSTAT !== "I";
    places.push({
      geoid,
      state,
      name,
      nameLsad: typeof p.NAMELSAD === "string" ? p.NAMELSAD : name,
      kind: incorporated ? "city" : "community",
      incorporated,
      countyFips: null,
      rings,
      interior: lat !== null && lon !== null ? [lon, lat] : first,
    });
  });
  report.kept = places.length;
  const noInterior = features.length > 0 && places.some((pl) => pl.interior === pl.rings[0]?.[0]);
  if (noInterior) report.notes.push("some places have no INTPTLAT/INTPTLON: their first vertex stands in");
  const oneByName = onePlacePerName(places);
  if (oneByName) report.notes.push(oneByName);
  return { places, report };
}

/** A file this big with no two places of one state sharing a name has lost some (the Census has many such pairs). */
export const SAME_NAME_CHECK_MIN_PLACES = 1_000;

/**
 * A note when the places look deduplicated by state and name: the Census Bureau's own files hold many
 * places that share a name with another of their state (a city and a census-designated place far away),
 * and a copy keyed by name keeps only one of each pair, so some cities have no city limits.
 */
export function onePlacePerName(places: readonly Place[]): string | null {
  if (places.length < SAME_NAME_CHECK_MIN_PLACES) return null;
  const names = new Set<string>();
  for (const p of places) {
    const key = `${p.state}|${p.name}`;
    if (names.has(key)) return null;
    names.add(key);
  }
  return (
    `no two of these ${places.length} places of one state share a name, as no Census place file of this size does: ` +
    "the file looks keyed by name, and a city sharing its name with another place of its state may be missing " +
    "(load the Census Bureau's own place file of that state to add it)"
  );
}

/** CLASSFP of the balance of a consolidated city: the part outside the incorporated places within it. */
const BALANCE = "C8";

/**
 * The name a dispatcher uses. A balance's Census NAME carries its kind of government and "(balance)"
 * ("Indianapolis city (balance)", "Nashville-Davidson metropolitan government (balance)"): both go, and
 * the city's name stays ("Indianapolis", "Nashville-Davidson", "Louisville/Jefferson County").
 */
export function dispatcherName(name: string, classFp: string): string {
  if (classFp !== BALANCE) return name;
  const plain = name
    .replace(/\s*\(balance\)\s*$/i, "")
    .replace(/\s+(city|town|village|borough|(metropolitan|metro|consolidated|unified) government)$/i, "")
    .trim();
  return plain === "" ? name : plain;
}
