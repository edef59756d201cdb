// Which country (and which US territory) a fix is in, and whether the US is within reach of it, from offline borders.
//
// The borders are @rapideditor/country-coder's own (its src/data/borders.json, under the package's ISC licence,
// kept in the rapideditor/country-coder repository, where contributors move vertices so that towns fall on the
// right side): land borders simplified by hand, good to a few hundred metres at the US crossings tested;
// coastlines replaced by coarse lines some kilometres out to sea (not territorial-water limits); Antarctic claims
// left out. Its coding rules, which we keep:
// - disputed areas get the country that controls them de facto (Crimea: RU, Western Sahara: MA, the Golan: IL,
//   Kashmir split along the Line of Control, Taiwan: TW, Kosovo: XK), which is also whose emergency service
//   answers a call there;
// - ISO 3166-1 territories are coded as themselves (GL, FO, HK, MO, AW, GI, IM, JE, AX, RE, ...), and their
//   country is kept only where the territory has no ISO code of its own (Ceuta and Melilla: ES; the Canaries: ES);
// - at sea beyond those polygons, and in Bir Tawil (claimed by no one), there is no country: `null`.
// Two choices of ours: the US territories count as the US with their USPS code as the state (PR, GU, VI, AS, MP,
// and UM for the minor outlying islands, which the library codes); and Northern Cyprus, which the library leaves
// without a code, is CY, the ISO 3166-1 code for the whole island (and 112 answers there too).
import { borders, feature } from "@rapideditor/country-coder";
import type { Geometry } from "geojson";
import { PSAP_LIMITS } from "../config.ts";
import { EMERGENCY_NUMBERS } from "./numbers.ts";

export interface CountryLocation {
  /** ISO 3166-1 alpha-2 (or XK), `null` at sea or where no country claims the land. */
  country: string | null;
  /** A US territory's USPS code (PR, GU, VI, AS, MP, UM); `null` elsewhere, the 50 states and DC included. */
  state: string | null;
}

/** The US territories and their USPS codes, which are also their ISO 3166-1 codes. */
export const US_TERRITORIES: ReadonlySet<string> = new Set(["PR", "GU", "VI", "AS", "MP", "UM"]);

/** Features the library leaves without a country code, and the ISO code that covers them. */
const UNCODED_LAND: Readonly<Record<string, string>> = { Q23681: "CY" }; // Northern Cyprus

export function locateCountry(latitude: number, longitude: number): CountryLocation {
  // The smallest feature at the territory level: PR, GL, HK, ... or a part of a country (England, the contiguous
  // US, Mainland India) whose `country` names the country.
  const found = feature([longitude, latitude], { level: "territory" });
  if (found === null) return { country: null, state: null };
  const { id, iso1A2, country } = found.properties;
  const nation = country ?? iso1A2 ?? UNCODED_LAND[id] ?? null;
  if (nation === "US") {
    return { country: "US", state: iso1A2 !== undefined && US_TERRITORIES.has(iso1A2) ? iso1A2 : null };
  }
  if (iso1A2 !== undefined && Object.hasOwn(EMERGENCY_NUMBERS, iso1A2))
    return { country: iso1A2, state: null };
  return { country: nation, state: null };
}

// ---------------------------------------------------------------------------
// Is the US within reach of a fix?

/** One ring of a US polygon, as flat [lon, lat, lon, lat, ...] with its bounding box. */
interface Ring {
  coords: Float64Array;
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

/** Metres per degree of latitude on the mean Earth radius (6371.0088 km, as the PSAP distances use). */
const METRES_PER_DEGREE = (6_371_008.8 * Math.PI) / 180;

function ringsOf(coordinates: number[][][]): Ring[] {
  return coordinates.map((ring) => {
    const coords = new Float64Array(ring.flat());
    const lons = ring.map((p) => p[0] ?? 0);
    const lats = ring.map((p) => p[1] ?? 0);
    return {
      coords,
      minLon: Math.min(...lons),
      minLat: Math.min(...lats),
      maxLon: Math.max(...lons),
      maxLat: Math.max(...lats),
    };
  });
}

/** Every ring (outer and holes) of every polygon of the US and its territories, read once per isolate. */
const US_RINGS: readonly Ring[] = borders.features.flatMap((f) => {
  const { country, iso1A2 } = f.properties;
  // Group features (the US as a whole) come without geometry, though the library's types do not say so.
  const geometry: Geometry | null = f.geometry;
  if ((country !== "US" && iso1A2 !== "US") || geometry === null) return [];
  if (geometry.type === "Polygon") return ringsOf(geometry.coordinates);
  if (geometry.type === "MultiPolygon") return geometry.coordinates.flatMap(ringsOf);
  return [];
});

/**
 * True when the fix is in the US or one of its territories, or closer to one of their borders than its accuracy
 * (at least PSAP_LIMITS.minBorderToleranceM, the tolerance the PSAP lookup uses at every border): such a fix may
 * be in the US, so US PSAPs apply (SPEC: "a fix closer to the border than its accuracy counts for both sides").
 * The distance is measured exactly against the library's borders, in a flat local projection around the fix (within 2 % of
 * the great-circle distance up to 100 km); what limits the answer is those borders' own precision (a few hundred
 * metres at the crossings tested), so the lookup should also count a fix inside a US county as in the US.
 */
export function withinReachOfUs(latitude: number, longitude: number, accuracyM: number | null): boolean {
  if (locateCountry(latitude, longitude).country === "US") return true;
  const radiusM = Math.max(accuracyM ?? 0, PSAP_LIMITS.minBorderToleranceM);
  return nearestUsBorderM(latitude, longitude, radiusM) <= radiusM;
}

/** Distance in metres from the fix to the nearest US border closer than `withinM`, else Infinity. */
function nearestUsBorderM(latitude: number, longitude: number, withinM: number): number {
  // Longitude degrees shrink with latitude; never let them shrink to nothing near the poles.
  const metresPerLonDegree = METRES_PER_DEGREE * Math.max(Math.cos((latitude * Math.PI) / 180), 0.01);
  const reachLat = withinM / METRES_PER_DEGREE;
  const reachLon = withinM / metresPerLonDegree;
  let nearest = Number.POSITIVE_INFINITY;
  for (const ring of US_RINGS) {
    if (!ringMayBeWithin(ring, latitude, longitude, reachLat, reachLon)) continue;
    const c = ring.coords;
    // Points in metres east and north of the fix. The library's segments are straight lines in longitude and
    // latitude, so a segment keeps its own longitude span: only its first point is moved by a whole turn, when that
    // brings it nearer the fix (across the antimeridian).
    let aLon = c[0] ?? 0;
    let ax = wrapDegrees(aLon - longitude) * metresPerLonDegree;
    let ay = ((c[1] ?? 0) - latitude) * METRES_PER_DEGREE;
    for (let i = 2; i < c.length; i += 2) {
      const bLon = c[i] ?? 0;
      const bx = ax + (bLon - aLon) * metresPerLonDegree;
      const by = ((c[i + 1] ?? 0) - latitude) * METRES_PER_DEGREE;
      nearest = Math.min(nearest, distanceToSegment(ax, ay, bx, by));
      aLon = bLon;
      ax = wrapDegrees(bLon - longitude) * metresPerLonDegree;
      ay = by;
    }
  }
  return nearest;
}

function ringMayBeWithin(ring: Ring, lat: number, lon: number, reachLat: number, reachLon: number): boolean {
  if (lat + reachLat < ring.minLat || lat - reachLat > ring.maxLat) return false;
  // A ring that touches the antimeridian, or a reach that crosses it, is always measured.
  if (ring.minLon <= -180 + reachLon || ring.maxLon >= 180 - reachLon) return true;
  if (Math.abs(lon) + reachLon >= 180) return true;
  return lon + reachLon >= ring.minLon && lon - reachLon <= ring.maxLon;
}

function wrapDegrees(delta: number): number {
  return delta > 180 ? delta - 360 : delta < -180 ? delta + 360 : delta;
}

/** Distance from the origin to the segment from (ax, ay) to (bx, by). */
function distanceToSegment(ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const lengthSquared = dx * dx + dy * dy;
  const t = lengthSquared === 0 ? 0 : Math.min(1, Math.max(0, -(ax * dx + ay * dy) / lengthSquared));
  return Math.hypot(ax + t * dx, ay + t * dy);
}
