// Reads towns and townships (Census county subdivisions): the project's town-boundaries GeoJSON of the
// ten states where towns govern, or the Census Bureau's own county-subdivision files (tl_YYYY_SS_cousub.zip,
// cb_YYYY_SS_cousub_500k.zip), so an operator can add Pennsylvania, Michigan or a newer vintage.
import polylabel from "polylabel";
import type { Ring } from "../../lib/psap-index/geometry.ts";
import { geojsonRings } from "./geojson-rings.ts";
import type { FileReport, Place, TownFeature } from "./model.ts";
import { firstProperties, number } from "./read-places.ts";
import { STATE_BY_FIPS } from "./states.ts";

interface Feature {
  properties?: Record<string, unknown> | null;
  geometry?: { type?: unknown; coordinates?: unknown } | null;
}

/**
 * The Census's legal/statistical area description codes of county subdivisions (LSAD), as the kind of
 * subdivision they name. Codes not listed (census county divisions, barrios, districts, precincts...)
 * are statistical or have no town government of their own.
 */
const LSAD_KIND: Readonly<Record<string, string>> = {
  "21": "borough",
  "25": "city",
  "37": "municipality",
  "39": "plantation",
  "43": "town",
  "44": "township",
  "45": "township",
  "46": "unorganized",
  "47": "village",
  "49": "township", // charter township (Michigan)
  "86": "reservation",
};

/** Subdivisions that are towns with a government of their own (New England towns, townships, plantations). */
const TOWN_KINDS = new Set(["town", "township", "plantation", "municipality"]);
/** Subdivisions that are also incorporated Census places in every state that has them. */
export const CITY_KINDS = new Set(["city", "borough", "village"]);

/** True for a FeatureCollection of county subdivisions: the project's town boundaries or a Census COUSUB layer. */
export function isTownBoundaries(json: unknown): boolean {
  const p = firstProperties(json);
  return p !== null && "STATEFP" in p && "COUNTYFP" in p && "NAME" in p && ("COUSUBFP" in p || "kind" in p);
}

/** The subdivision's kind: the project file's `kind`, else the Census LSAD code (or its text in NAMELSAD). */
function kindOf(p: Record<string, unknown>): string | null {
  if (typeof p.kind === "string" && p.kind.trim() !== "") return p.kind.trim().toLowerCase();
  const code = typeof p.LSAD === "string" ? p.LSAD.trim() : "";
  const byCode = LSAD_KIND[code];
  if (byCode) return byCode;
  const lsad = typeof p.NAMELSAD === "string" ? p.NAMELSAD : "";
  const word = /\b(town|township|city|borough|village|plantation|reservation)$/i.exec(lsad.trim())?.[1];
  return word ? word.toLowerCase() : null;
}

function ringArea(ring: Ring): number {
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const p = ring[i] as readonly [number, number];
    const q = ring[j] as readonly [number, number];
    a += (q[0] + p[0]) * (q[1] - p[1]);
  }
  return Math.abs(a / 2);
}

/**
 * A point well inside the largest polygon: its pole of inaccessibility (mapbox's polylabel), with the
 * polygon's other rings lying inside it taken as its holes. Where the source has an internal point
 * (Census INTPTLAT/INTPTLON), that one is used instead.
 */
export function interiorPoint(rings: readonly Ring[]): [number, number] {
  let outer = rings[0] as Ring;
  for (const r of rings) if (ringArea(r) > ringArea(outer)) outer = r;
  const holes = rings.filter((r) => r !== outer && ringArea(r) < ringArea(outer) && inside(r[0], outer));
  const polygon = [outer, ...holes].map((r) => r.map(([x, y]): [number, number] => [x, y]));
  // A point found to within about 100 m: a town is kilometres wide, and only its inside matters.
  const [x, y] = polylabel(polygon, 1e-3);
  return [x as number, y as number];
}

function inside(point: readonly [number, number] | undefined, ring: Ring): boolean {
  if (!point) return false;
  const [x, y] = point;
  let hit = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i] as readonly [number, number];
    const [xj, yj] = ring[j] as readonly [number, number];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) hit = !hit;
  }
  return hit;
}

/**
 * Every subdivision of the layer, with its kind: a town or township with a government of its own is a
 * municipality (`town`); a city, borough or village is one too (the import keeps it only where no Census
 * place stands for it); a reservation is a named community; an unorganized area, a statistical division
 * or one without a functioning government is not read (the county answers there). `line` is the feature's
 * position (1-based).
 */
export function readTowns(path: string, json: unknown): { towns: TownFeature[]; report: FileReport } {
  const features = (json as { features: Feature[] }).features;
  const report: FileReport = {
    path,
    kind: "towns",
    rowsRead: features.length,
    kept: 0,
    dropped: [],
    notes: [],
  };
  const towns: TownFeature[] = [];
  const seen = new Set<string>();
  features.forEach((f, k) => {
    const line = k + 1;
    const p = f.properties ?? {};
    const stateFp = String(p.STATEFP ?? "");
    const countyFp = String(p.COUNTYFP ?? "");
    const state = STATE_BY_FIPS[stateFp];
    const name = typeof p.NAME === "string" ? p.NAME.trim() : "";
    if (!state || !/^\d{3}$/.test(countyFp) || !name) {
      report.dropped.push({ line, reason: "bad feature: STATEFP, COUNTYFP or NAME missing or unknown" });
      return;
    }
    const kind = kindOf(p);
    const active = p.FUNCSTAT === undefined || p.FUNCSTAT === null || p.FUNCSTAT === "A";
    if (kind === null || kind === "unorganized" || !active) {
      report.dropped.push({
        line,
        reason: "no town government of its own (unorganized or statistical): the county answers there",
      });
      return;
    }
    const rings = geojsonRings(f.geometry, false);
    if (!rings) {
      report.dropped.push({ line, reason: "bad feature: geometry is not a valid Polygon or MultiPolygon" });
      return;
    }
    const census = typeof p.GEOID === "string" && /^\d{10}$/.test(p.GEOID) ? p.GEOID : null;
    // Where the source has no Census code, the state, county, kind and name stand for one: a Minnesota
    // county can hold a township and a city of one name.
    const geoid = census ?? `${stateFp}${countyFp}:${kind}:${name}`;
    if (seen.has(geoid)) {
      report.dropped.push({
        line,
        reason: "duplicate town (the same Census code, or state, county, kind and name)",
      });
      return;
    }
    seen.add(geoid);
    const lat = number(p.INTPTLAT);
    const lon = number(p.INTPTLON);
    const municipal = TOWN_KINDS.has(kind) || CITY_KINDS.has(kind);
    const place: Place = {
      geoid,
      state,
      name,
      nameLsad: typeof p.NAMELSAD === "string" && p.NAMELSAD.trim() !== "" ? p.NAMELSAD.trim() : name,
      kind: municipal ? (CITY_KINDS.has(kind) ? "city" : "town") : "community",
      incorporated: municipal,
      countyFips: `${stateFp}${countyFp}`,
      rings,
      interior: lat !== null && lon !== null ? [lon, lat] : interiorPoint(rings),
    };
    towns.push({ line, place, subdivision: kind });
  });
  report.kept = towns.length;
  return { towns, report };
}
