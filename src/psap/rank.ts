// The ranking of SPEC section 4 over one index entry: the one rule the lookup applies.
//
// Sort key, in order: (1) group: boundary, city, county, then nearest; (2) within a group, areas that
// contain the fix before areas reached only through its accuracy; (3) primaries before secondaries,
// each secondary right after its `handled_by` primary when that primary is in the same part; (4) in
// the area groups, jurisdiction county, regional, state, municipal, special; (5) distance; then id,
// so that the order is total. The nearest group is sorted by type, then distance, then id.
import type { PsapMatch, PsapRecord } from "../../sdk/src/protocol.ts";
import { areasNear } from "./decode.ts";
import {
  AREA_BOUNDARY,
  AREA_CITY,
  AREA_COMMUNITY,
  AREA_COUNTY,
  type AreaKindCode,
  type IndexedPsap,
  jurisdictionRank,
} from "./format.ts";
import { haversineKm, KM_PER_DEGREE, roundKm } from "./geo.ts";
import { type AreaGeometry, areaLevel, decodeRings, INSIDE, OUTSIDE } from "./geometry.ts";

export interface EntryArea {
  kind: AreaKindCode;
  id: string;
  name: string;
  state: string | null;
  /** Bounding box, degrees (longitudes unwrapped like the rings). */
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
  /** Encoded rings, decoded into `geometry` the first time a fix comes near. */
  rings: readonly string[];
  geometry: AreaGeometry | null;
  /** Indexes into `RankableEntry.psaps`. */
  members: readonly number[];
}

/** An entry as the ranking reads it (decoded once when it is read, then cached). */
export interface RankableEntry {
  psaps: readonly IndexedPsap[];
  /** Jurisdiction rank of each PSAP (compared on every sort). */
  jurisdiction: Uint8Array;
  /** The leaf's centre [lat, lon]. */
  centre: readonly [number, number] | readonly number[];
  /** Nearest candidates: primaries, then secondaries, each nearest to the centre first... */
  nearest: readonly number[];
  /** ...with a lower bound of that distance, metres. */
  nearestBoundM: readonly number[];
  areas: readonly EntryArea[];
  /** Which areas can reach each cell of a grid over the entry (decode.ts): a fix tests only its cell's. */
  grid: AreaGrid;
}

/** A grid over an entry's areas, each cell listing (in entry order) the areas that can reach it. */
export interface AreaGrid {
  minLon: number;
  maxLon: number;
  minLat: number;
  maxLat: number;
  /** Longitude the grid's frame is unwrapped around. */
  refLon: number;
  cells: number[][];
}

export interface Ranked {
  psaps: PsapRecord[];
  /** The place and the county that contain the fix itself (for the result's `area`), if any. */
  place: EntryArea | null;
  county: EntryArea | null;
}

const GROUP_MATCH: readonly PsapMatch[] = ["boundary", "city", "county"];
const NO_PART = 255;

function groupOf(kind: AreaKindCode): number {
  return kind === AREA_BOUNDARY ? 0 : kind === AREA_CITY ? 1 : 2;
}

/** Quick test on the bounding box alone: can the fix be inside the area or within `tDeg` of it? */
function mayReach(area: EntryArea, lat: number, lon: number, tDeg: number, cosLat: number): boolean {
  if (lat < area.minLat - tDeg * 1.00001 - 1e-9 || lat > area.maxLat + tDeg * 1.00001 + 1e-9) return false;
  if (cosLat <= 1e-9) return true;
  const shift = -360 * Math.round(((area.minLon + area.maxLon) / 2 - lon) / 360);
  const tLon = (tDeg / cosLat) * 1.00001 + 1e-9;
  return lon >= area.minLon + shift - tLon && lon <= area.maxLon + shift + tLon;
}

export function rankEntry(
  entry: RankableEntry,
  lat: number,
  lon: number,
  toleranceKm: number,
  limit: number,
  maxDistanceKm: number,
): Ranked {
  let place: EntryArea | null = null;
  let county: EntryArea | null = null;
  const scratch = scratchFor(entry.psaps.length);
  // Best part (group * 2 + level) of each PSAP reached through an area; NO_PART for the others.
  const partOf = scratch.partOf;
  const touched: number[] = [];
  const tDeg = toleranceKm / KM_PER_DEGREE;
  const cosLat = Math.cos((lat * Math.PI) / 180);
  for (const a of areasNear(entry, lat, lon)) {
    const area = entry.areas[a] as EntryArea;
    if (!mayReach(area, lat, lon, tDeg, cosLat)) continue;
    area.geometry ??= decodeRings(area.rings);
    const level = areaLevel(area.geometry, lat, lon, toleranceKm);
    if (level === OUTSIDE) continue;
    if (level === INSIDE) {
      if (area.kind === AREA_COUNTY) county ??= area;
      else if (area.kind === AREA_CITY || area.kind === AREA_COMMUNITY) place ??= area;
    }
    if (area.kind === AREA_COMMUNITY) continue; // a community has no answering centre of its own
    const part = groupOf(area.kind) * 2 + level;
    for (const m of area.members) {
      const seen = partOf[m] as number;
      if (seen === NO_PART) touched.push(m);
      if (part < seen) partOf[m] = part;
    }
  }
  const stamp = scratch.nextStamp();
  const distance = (i: number): number => {
    if (scratch.kmStamp[i] === stamp) return scratch.km[i] as number;
    const p = entry.psaps[i] as IndexedPsap;
    const d = haversineKm(lat, lon, p.latitude, p.longitude);
    scratch.km[i] = d;
    scratch.kmStamp[i] = stamp;
    return d;
  };
  const out: PsapRecord[] = [];
  try {
    if (limit > 0) rankInto(entry, partOf, touched, distance, limit, maxDistanceKm, lat, lon, out);
  } finally {
    // The scratch buffers are shared by every lookup of the isolate: leave them as found.
    for (const m of touched) partOf[m] = NO_PART;
  }
  return { psaps: out, place, county };
}

/** Scratch buffers reused by every lookup (no allocation per PSAP of an entry on the hot path). */
interface Scratch {
  partOf: Uint8Array;
  km: Float64Array;
  kmStamp: Uint32Array;
  nextStamp(): number;
}

let shared: Scratch | null = null;

function scratchFor(size: number): Scratch {
  if (shared && shared.partOf.length >= size) return shared;
  const capacity = Math.max(size, (shared?.partOf.length ?? 0) * 2, 256);
  let stamp = 0;
  const kmStamp = new Uint32Array(capacity);
  shared = {
    partOf: new Uint8Array(capacity).fill(NO_PART),
    km: new Float64Array(capacity),
    kmStamp,
    nextStamp() {
      stamp = stamp === 0xffffffff ? 1 : stamp + 1;
      if (stamp === 1) kmStamp.fill(0);
      return stamp;
    },
  };
  return shared;
}

function rankInto(
  entry: RankableEntry,
  partOf: Uint8Array,
  touched: readonly number[],
  distance: (i: number) => number,
  limit: number,
  maxDistanceKm: number,
  lat: number,
  lon: number,
  out: PsapRecord[],
): void {
  const parts: number[][] = [[], [], [], [], [], []];
  for (const i of touched) {
    const part = partOf[i] as number;
    if (distance(i) <= maxDistanceKm) parts[part]?.push(i);
  }
  for (let part = 0; part < parts.length && out.length < limit; part++) {
    const members = parts[part] as number[];
    if (members.length === 0) continue;
    const match = GROUP_MATCH[part >> 1] as PsapMatch;
    const emit = (i: number) => out.push(toRecord(entry.psaps[i] as IndexedPsap, distance(i), match));
    emitPart(entry, members, distance, limit - out.length, emit);
  }
  if (out.length < limit) {
    // The nearest group, by type, then distance, then id. Candidates come by type, nearest to the centre
    // first; d(q, p) >= d(c, p) - d(c, q), so once that bound passes the worst kept distance (or the
    // cut-off) no later candidate of the type can be kept.
    const fromCentre = haversineKm(lat, lon, entry.centre[0] as number, entry.centre[1] as number);
    const wanted = limit - out.length;
    const best: number[] = [];
    const list = entry.nearest;
    for (let type = 0; type <= 1 && best.length < wanted; type++) {
      const kept: number[] = [];
      const room = wanted - best.length;
      for (let k = 0; k < list.length; k++) {
        const i = list[k] as number;
        if (typeRank(entry, i) !== type) continue;
        const bound = (entry.nearestBoundM[k] as number) / 1000 - fromCentre;
        if (bound > maxDistanceKm) break;
        if (kept.length === room && bound > distance(kept[room - 1] as number)) break;
        if (partOf[i] !== NO_PART || distance(i) > maxDistanceKm) continue;
        // Insert in (distance, id) order, keeping only `room`.
        let at = kept.length;
        while (at > 0 && byDistanceThenId(entry, distance, i, kept[at - 1] as number) < 0) at--;
        if (at < room) {
          kept.splice(at, 0, i);
          if (kept.length > room) kept.pop();
        }
      }
      best.push(...kept);
    }
    for (const i of best) out.push(toRecord(entry.psaps[i] as IndexedPsap, distance(i), "nearest"));
  }
}

function typeRank(entry: RankableEntry, i: number): number {
  return entry.psaps[i]?.type === "primary" ? 0 : 1;
}

function byDistanceThenId(
  entry: RankableEntry,
  distance: (i: number) => number,
  a: number,
  b: number,
): number {
  const da = distance(a);
  const db = distance(b);
  if (da !== db) return da < db ? -1 : 1;
  const ia = (entry.psaps[a] as IndexedPsap).id;
  const ib = (entry.psaps[b] as IndexedPsap).id;
  return ia < ib ? -1 : ia > ib ? 1 : 0;
}

/**
 * Emits the first `wanted` PSAPs of one part of an area group: primaries by (jurisdiction, distance,
 * id), each followed by its own secondaries in the same order, then the secondaries that follow no
 * primary of the part. Selection, not a full sort: a part can hold every PSAP of a big county, and
 * only a handful are wanted.
 */
function emitPart(
  entry: RankableEntry,
  members: number[],
  distance: (i: number) => number,
  wanted: number,
  emit: (i: number) => void,
): void {
  const before = (a: number, b: number) =>
    (entry.jurisdiction[a] as number) - (entry.jurisdiction[b] as number) ||
    byDistanceThenId(entry, distance, a, b);
  const takeMin = (list: number[]): number => {
    let best = 0;
    for (let k = 1; k < list.length; k++) if (before(list[k] as number, list[best] as number) < 0) best = k;
    const i = list[best] as number;
    list[best] = list[list.length - 1] as number;
    list.pop();
    return i;
  };
  const primaries: number[] = [];
  const secondaries: number[] = [];
  for (const i of members) (typeRank(entry, i) === 0 ? primaries : secondaries).push(i);
  const primaryIds = new Set<string>();
  for (const i of primaries) primaryIds.add((entry.psaps[i] as IndexedPsap).id);
  let left = wanted;
  while (left > 0 && primaries.length > 0) {
    const p = takeMin(primaries);
    emit(p);
    left--;
    const id = (entry.psaps[p] as IndexedPsap).id;
    const followers = secondaries.filter((i) => (entry.psaps[i] as IndexedPsap).handled_by === id);
    while (left > 0 && followers.length > 0) {
      emit(takeMin(followers));
      left--;
    }
  }
  if (left <= 0) return;
  const others = secondaries.filter((i) => {
    const lead = (entry.psaps[i] as IndexedPsap).handled_by;
    return lead === null || !primaryIds.has(lead);
  });
  while (left > 0 && others.length > 0) {
    emit(takeMin(others));
    left--;
  }
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

/** Jurisdiction ranks of an entry's PSAPs, in one typed array. */
export function jurisdictionRanks(psaps: readonly IndexedPsap[]): Uint8Array {
  return Uint8Array.from(psaps, (p) => jurisdictionRank(p.jurisdiction));
}
