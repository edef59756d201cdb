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
import { PSAP_LIMITS } from "../../lib/config.ts";
import { EMERGENCY_NUMBERS } from "./numbers.ts";

export interface CountryLocation {
  /** ISO 3166-1 alpha-2 (or XK), `null` at sea or where no country claims the land. */
  country: string | null;
  /**
   * A US territory's USPS code (PR, GU, VI, AS, MP, UM), or AK or HI (the library's own features); `null`
   * elsewhere, the contiguous states and DC included (their counties tell them apart).
   */
  state: string | null;
}

/** The US territories and their USPS codes, which are also their ISO 3166-1 codes. */
export const US_TERRITORIES: ReadonlySet<string> = new Set(["PR", "GU", "VI", "AS", "MP", "UM"]);

/**
 * The two states the library draws as features of their own, by Wikidata id: a fix in the far Aleutians or
 * on an islet the county shapes miss (they are coarser than the library's coastlines) is still in Alaska.
 */
const US_STATE_FEATURES: Readonly<Record<string, string>> = { Q797: "AK", Q782: "HI" };

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
    const territory = iso1A2 !== undefined && US_TERRITORIES.has(iso1A2) ? iso1A2 : null;
    return { country: "US", state: territory ?? US_STATE_FEATURES[id] ?? null };
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
  /**
   * The box of each run of RUN segments [minLon, maxLon, minLat, maxLat, ...], run r being the segments
   * that end at points r·RUN + 1 to (r + 1)·RUN (its first segment's start included): a fix measures only
   * the runs that come within its reach (the contiguous US's outline alone has thousands of points).
   */
  runs: Float64Array;
}

/** Segments per run of a ring. */
const RUN = 32;

function runBoxes(coords: Float64Array): Float64Array {
  const segments = coords.length / 2 - 1;
  const count = Math.max(0, Math.ceil(segments / RUN));
  const boxes = new Float64Array(count * 4);
  for (let r = 0; r < count; r++) {
    let minLon = Number.POSITIVE_INFINITY;
    let maxLon = Number.NEGATIVE_INFINITY;
    let minLat = Number.POSITIVE_INFINITY;
    let maxLat = Number.NEGATIVE_INFINITY;
    const last = Math.min((r + 1) * RUN, segments);
    for (let p = r * RUN; p <= last; p++) {
      const lon = coords[2 * p] as number;
      const lat = coords[2 * p + 1] as number;
      if (lon < minLon) minLon = lon;
      if (lon > maxLon) maxLon = lon;
      if (lat < minLat) minLat = lat;
      if (lat > maxLat) maxLat = lat;
    }
    boxes.set([minLon, maxLon, minLat, maxLat], r * 4);
  }
  return boxes;
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
      runs: runBoxes(coords),
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
 * be in the US, so US PSAPs apply (the contract (docs/contract.md): "a fix closer to the border than its accuracy counts for both sides").
 * The distance is measured exactly against the library's borders, in a flat local projection around the fix (within 2 % of
 * the great-circle distance up to 100 km); what limits the answer is those borders' own precision (a few hundred
 * metres at the crossings tested), so the lookup should also count a fix inside a US county as in the US.
 * `located`: the fix's `locateCountry`, when the caller has it already.
 */
export function withinReachOfUs(
  latitude: number,
  longitude: number,
  accuracyM: number | null,
  located: CountryLocation = locateCountry(latitude, longitude),
): boolean {
  if (located.country === "US") return true;
  const radiusM = Math.max(accuracyM ?? 0, PSAP_LIMITS.minBorderToleranceM);
  return nearestUsBorderM(latitude, longitude, radiusM) <= radiusM;
}

/**
 * Distance in metres from the fix to the nearest US border, in the flat local projection above, when one is
 * within `withinM`; otherwise some distance beyond `withinM`, or Infinity (exported for its test).
 */
export function nearestUsBorderM(latitude: number, longitude: number, withinM: number): number {
  // Longitude degrees shrink with latitude; never let them shrink to nothing near the poles.
  const metresPerLonDegree = METRES_PER_DEGREE * Math.max(Math.cos((latitude * Math.PI) / 180), 0.01);
  const reachLat = withinM / METRES_PER_DEGREE;
  const reachLon = withinM / metresPerLonDegree;
  // Squared distances (a square root at the end only): nothing is allocated per segment.
  let nearest2 = Number.POSITIVE_INFINITY;
  for (const ring of US_RINGS) {
    if (!ringMayBeWithin(ring, latitude, longitude, reachLat, reachLon)) continue;
    const c = ring.coords;
    // Runs are skipped by their boxes only where longitudes compare plainly (not across the antimeridian).
    const plain = !crossesAntimeridian(ring, longitude, reachLon);
    const runs = ring.runs;
    for (let r = 0; r * 4 < runs.length; r++) {
      if (
        plain &&
        (latitude + reachLat < (runs[r * 4 + 2] as number) ||
          latitude - reachLat > (runs[r * 4 + 3] as number) ||
          longitude + reachLon < (runs[r * 4] as number) ||
          longitude - reachLon > (runs[r * 4 + 1] as number))
      )
        continue;
      // Points in metres east and north of the fix. The library's segments are straight lines in longitude and
      // latitude, so a segment keeps its own longitude span: only its first point is moved by a whole turn, when
      // that brings it nearer the fix (across the antimeridian).
      const first = r * RUN * 2;
      const end = Math.min((r + 1) * RUN * 2 + 2, c.length);
      let aLon = c[first] as number;
      let ax = wrapDegrees(aLon - longitude) * metresPerLonDegree;
      let ay = ((c[first + 1] as number) - latitude) * METRES_PER_DEGREE;
      for (let i = first + 2; i < end; i += 2) {
        const bLon = c[i] as number;
        const bx = ax + (bLon - aLon) * metresPerLonDegree;
        const by = ((c[i + 1] as number) - latitude) * METRES_PER_DEGREE;
        const d2 = squaredDistanceToSegment(ax, ay, bx, by);
        if (d2 < nearest2) nearest2 = d2;
        aLon = bLon;
        ax = wrapDegrees(bLon - longitude) * metresPerLonDegree;
        ay = by;
      }
    }
  }
  return Math.sqrt(nearest2);
}

/** The ring touches the antimeridian, or the reach crosses it (ringMayBeWithin then measures it whole). */
function crossesAntimeridian(ring: Ring, lon: number, reachLon: number): boolean {
  return ring.minLon <= -180 + reachLon || ring.maxLon >= 180 - reachLon || Math.abs(lon) + reachLon >= 180;
}

function ringMayBeWithin(ring: Ring, lat: number, lon: number, reachLat: number, reachLon: number): boolean {
  if (lat + reachLat < ring.minLat || lat - reachLat > ring.maxLat) return false;
  // A ring that touches the antimeridian, or a reach that crosses it, is always measured.
  if (crossesAntimeridian(ring, lon, reachLon)) return true;
  return lon + reachLon >= ring.minLon && lon - reachLon <= ring.maxLon;
}

function wrapDegrees(delta: number): number {
  return delta > 180 ? delta - 360 : delta < -180 ? delta + 360 : delta;
}

/** Squared distance from the origin to the segment from (ax, ay) to (bx, by). */
function squaredDistanceToSegment(ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const lengthSquared = dx * dx + dy * dy;
  const t = lengthSquared === 0 ? 0 : Math.min(1, Math.max(0, -(ax * dx + ay * dy) / lengthSquared));
  const px = ax + t * dx;
  const py = ay + t * dy;
  return px * px + py * py;
}
