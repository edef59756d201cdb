// The exact ranking of SPEC section 4, shared by the lookup (over one bucket) and the brute-force
// reference (over the whole data set), so that both make the same floating-point decisions.
import type { PsapMatch, PsapRecord } from "../../sdk/src/protocol.ts";
import { PSAP_LIMITS } from "../config.ts";
import { type AreaGeometry, type AreaKind, isWithinArea } from "./area.ts";
import { haversineKm, roundKm } from "./geo.ts";
import type { IndexedPsap } from "./types.ts";

export interface RankArea {
  kind: AreaKind;
  geometry: AreaGeometry;
  /** Indexes into `RankPool.psaps`. */
  members: readonly number[];
}

export interface RankPool {
  psaps: readonly IndexedPsap[];
  areas: readonly RankArea[];
  /** Indexes of the `nearest` candidates; null means every PSAP of the pool. */
  nearest: readonly number[] | null;
}

/** The border tolerance for a fix: its accuracy, at least 500 m, at most 100 km; in km. */
export function borderToleranceKm(accuracyM: number | null | undefined): number {
  const a = typeof accuracyM === "number" && Number.isFinite(accuracyM) ? accuracyM : 0;
  const m = Math.min(Math.max(a, PSAP_LIMITS.minBorderToleranceM), PSAP_LIMITS.maxBorderToleranceM);
  return m / 1000;
}

interface Scored {
  index: number;
  km: number;
  match: PsapMatch;
}

function typeRank(p: IndexedPsap): number {
  return p.type === "primary" ? 0 : 1;
}

/** Within a match group: primaries first, then distance, then id (a total order, so ties are stable). */
export function compareCandidates(a: IndexedPsap, aKm: number, b: IndexedPsap, bKm: number): number {
  const t = typeRank(a) - typeRank(b);
  if (t !== 0) return t;
  if (aKm !== bKm) return aKm < bKm ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function sortScored(pool: RankPool, list: Scored[]): void {
  list.sort((x, y) => {
    const a = pool.psaps[x.index];
    const b = pool.psaps[y.index];
    return a && b ? compareCandidates(a, x.km, b, y.km) : 0;
  });
}

/**
 * Ranks a pool for one fix: area matches (boundary or county) first, then the nearest others;
 * within each group primaries, then distance. Nothing beyond `maxDistanceKm` is returned.
 */
export function rankPsaps(
  pool: RankPool,
  lat: number,
  lon: number,
  toleranceKm: number,
  limit: number,
  maxDistanceKm: number = PSAP_LIMITS.maxDistanceKm,
): PsapRecord[] {
  if (limit <= 0) return [];
  const matchOf = new Map<number, PsapMatch>();
  for (const area of pool.areas) {
    if (!isWithinArea(area.geometry, lat, lon, toleranceKm)) continue;
    const match: PsapMatch = area.kind === "boundary" ? "boundary" : "county";
    for (const m of area.members) {
      if (match === "boundary" || !matchOf.has(m)) matchOf.set(m, match);
    }
  }
  const matched: Scored[] = [];
  for (const [index, match] of matchOf) {
    const p = pool.psaps[index];
    if (!p) continue;
    const km = haversineKm(lat, lon, p.latitude, p.longitude);
    if (km <= maxDistanceKm) matched.push({ index, km, match });
  }
  sortScored(pool, matched);
  const out = matched.slice(0, limit);
  if (out.length < limit) {
    const rest: Scored[] = [];
    const consider = (index: number) => {
      if (matchOf.has(index)) return;
      const p = pool.psaps[index];
      if (!p) return;
      const km = haversineKm(lat, lon, p.latitude, p.longitude);
      if (km <= maxDistanceKm) rest.push({ index, km, match: "nearest" });
    };
    if (pool.nearest) for (const i of pool.nearest) consider(i);
    else for (let i = 0; i < pool.psaps.length; i++) consider(i);
    sortScored(pool, rest);
    out.push(...rest.slice(0, limit - out.length));
  }
  return out.map(({ index, km, match }) => toRecord(pool.psaps[index] as IndexedPsap, km, match));
}

/** The delivered record of a ranked PSAP. */
export function toRecord(p: IndexedPsap, km: number, match: PsapMatch): PsapRecord {
  return {
    id: p.id,
    name: p.name,
    type: p.type,
    state: p.state,
    county: p.county,
    city: p.city,
    phone: p.phone,
    phone_kind: p.phone_kind,
    jurisdiction: p.jurisdiction,
    handled_by: p.handled_by,
    latitude: p.latitude,
    longitude: p.longitude,
    location_precision: p.location_precision,
    distance_km: roundKm(km),
    match,
  };
}
