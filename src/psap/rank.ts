// The ranking of docs/contract.md, section 4 over one index entry: the one rule the lookup applies.
//
// First of all, a statewide centre (jurisdiction `state`: it answers every 911 call of its state) reached
// through an area that contains the fix. Then the sort key, in order: (1) containment: areas that contain
// the fix, then areas reached only through its accuracy, then the nearest group; (2) group: boundary,
// city (the smallest municipality around the fix that has centres: a village's before its town's), county;
// (3) primaries before secondaries, each secondary right after its `handled_by` primary when that primary
// is in the same part; (4) in the area groups, jurisdiction county, regional, state, municipal, special;
// (5) distance; then id, so that the order is total. The nearest group is sorted by type, then distance,
// then id.

import {
  AREA_BOUNDARY,
  AREA_CITY,
  AREA_COMMUNITY,
  AREA_COUNTY,
  AREA_TOWN,
  type AreaKindCode,
  jurisdictionRank,
  type PsapTuple,
  recordOf,
} from "../../lib/psap-index/format.ts";
import {
  cosOfLatitude,
  haversineKm,
  haversineKmWithCos,
  KM_PER_DEGREE,
  roundKm,
} from "../../lib/psap-index/geo.ts";
import { areaLevel, decodeRingsAt, INSIDE, OUTSIDE } from "../../lib/psap-index/geometry.ts";
import type { PsapMatch, PsapRecord } from "../../sdk/src/protocol.ts";
import { gridCellOf, type RankableEntry } from "./decode.ts";
import { IntList } from "./int-list.ts";

/** An area that holds the fix, as the result's `area` names it. */
export interface NamedArea {
  kind: AreaKindCode;
  name: string;
  state: string | null;
}

export interface Ranked {
  psaps: PsapRecord[];
  /** The place and the county that contain the fix itself (for the result's `area`), if any. */
  place: NamedArea | null;
  county: NamedArea | null;
  /**
   * When no county contains the fix, the one county its reach (accuracy, at least 500 m) touches, if just
   * one does: the 1:10M county coastlines can leave a harbour town outside its county (St. Paul, Alaska).
   */
  nearCounty: NamedArea | null;
}

const GROUP_MATCH: readonly PsapMatch[] = ["boundary", "city", "county"];
const NO_PART = 255;
/** Parts: 0 the statewide centres, then (containment, group): 1-3 inside, 4-6 reached only through the accuracy. */
const STATEWIDE_PART = 0;
const PARTS = 7;
const STATE_RANK = jurisdictionRank("state");

function groupOf(kind: AreaKindCode): number {
  return kind === AREA_BOUNDARY ? 0 : kind === AREA_COUNTY ? 2 : 1;
}

/** The part of a member reached through an area of this group at this level (0 inside, 1 through the accuracy). */
function partOfArea(group: number, level: number): number {
  return 1 + level * 3 + group;
}

function matchOfPart(part: number): PsapMatch {
  return GROUP_MATCH[(part - 1) % 3] as PsapMatch;
}

/** Quick test on the bounding box alone: can the fix be inside area `a` or within `tDeg` of it? */
function mayReach(
  boxes: Float64Array,
  a: number,
  lat: number,
  lon: number,
  tDeg: number,
  cosLat: number,
): boolean {
  const minLon = boxes[a * 4] as number;
  const minLat = boxes[a * 4 + 1] as number;
  const maxLon = boxes[a * 4 + 2] as number;
  const maxLat = boxes[a * 4 + 3] as number;
  if (lat < minLat - tDeg * 1.00001 - 1e-9 || lat > maxLat + tDeg * 1.00001 + 1e-9) return false;
  if (cosLat <= 1e-9) return true;
  const shift = -360 * Math.round(((minLon + maxLon) / 2 - lon) / 360);
  const tLon = (tDeg / cosLat) * 1.00001 + 1e-9;
  return lon >= minLon + shift - tLon && lon <= maxLon + shift + tLon;
}

function named(entry: RankableEntry, a: number): NamedArea {
  return {
    kind: entry.areaKind[a] as AreaKindCode,
    name: entry.areaNames[2 * a] as string,
    state: entry.areaNames[2 * a + 1] as string | null,
  };
}

export function rankEntry(
  entry: RankableEntry,
  lat: number,
  lon: number,
  toleranceKm: number,
  limit: number,
  maxDistanceKm: number,
): Ranked {
  const scratch = scratchFor(entry.psaps.length);
  // Best part (statewide, then containment and group: partOfArea) of each PSAP reached through an area;
  // NO_PART for the others.
  const partOf = scratch.partOf;
  const touched = TOUCHED;
  touched.clear();
  // The scratch buffers are shared by every lookup of the isolate: leave them as found, also when a
  // ring turns out corrupt halfway through the areas (a mark left behind would hide its PSAP from the
  // area groups and the nearest group of every later lookup that reads the same index).
  try {
    const found = reachedAreas(entry, lat, lon, toleranceKm);
    markMembers(entry, partOf, touched, found.insideCity);
    const out: PsapRecord[] = [];
    if (limit > 0) rankInto(entry, scratch, touched, limit, maxDistanceKm, lat, lon, out);
    return { psaps: out, place: found.place, county: found.county, nearCounty: found.nearCounty };
  } finally {
    for (let k = 0; k < touched.size; k++) partOf[touched.items[k] as number] = NO_PART;
  }
}

interface Found {
  place: NamedArea | null;
  county: NamedArea | null;
  nearCounty: NamedArea | null;
  /** A city with centres of its own contains the fix: the town around it does not answer in the city group. */
  insideCity: boolean;
}

/**
 * The areas that reach the fix, as pairs (area, level) in REACHED, and what the fix's area is named: the
 * municipality around it (a city, else its town), else its community; the county containing it, or the
 * one county its reach touches when none contains it.
 */
function reachedAreas(entry: RankableEntry, lat: number, lon: number, toleranceKm: number): Found {
  const found: Found = { place: null, county: null, nearCounty: null, insideCity: false };
  let town: NamedArea | null = null;
  let community: NamedArea | null = null;
  let nearCounties = 0;
  const reached = REACHED;
  reached.clear();
  const tDeg = toleranceKm / KM_PER_DEGREE;
  const cosLat = Math.cos((lat * Math.PI) / 180);
  const cell = gridCellOf(entry.grid, lat, lon);
  const from = cell < 0 ? 0 : (entry.grid.starts[cell] as number);
  const to = cell < 0 ? 0 : (entry.grid.starts[cell + 1] as number);
  for (let k = from; k < to; k++) {
    const a = entry.grid.items[k] as number;
    if (!mayReach(entry.boxes, a, lat, lon, tDeg, cosLat)) continue;
    let geometry = entry.geometry[a];
    if (geometry === undefined) {
      const bounds = entry.ringBoundsAt;
      geometry = decodeRingsAt(entry.text, entry.ringsAt, entry.ringBounds, bounds[a], bounds[a + 1]);
      entry.geometry[a] = geometry;
    }
    const level = areaLevel(geometry, lat, lon, toleranceKm);
    if (level === OUTSIDE) continue;
    const kind = entry.areaKind[a] as AreaKindCode;
    if (level === INSIDE) {
      if (kind === AREA_COUNTY) found.county ??= named(entry, a);
      else if (kind === AREA_CITY) found.place ??= named(entry, a);
      else if (kind === AREA_TOWN) town ??= named(entry, a);
      else if (kind === AREA_COMMUNITY) community ??= named(entry, a);
      const hasMembers = (entry.membersAt[a + 1] as number) > (entry.membersAt[a] as number);
      if (kind === AREA_CITY && hasMembers) found.insideCity = true;
    } else if (kind === AREA_COUNTY && nearCounties++ === 0) {
      found.nearCounty = named(entry, a);
    }
    reached.push(a);
    reached.push(level);
  }
  found.place ??= town ?? community;
  if (found.county !== null || nearCounties !== 1) found.nearCounty = null;
  return found;
}

/** Marks each member of a reached area with its best part; a town's are left out where a city answers. */
function markMembers(entry: RankableEntry, partOf: Uint8Array, touched: IntList, insideCity: boolean): void {
  const reached = REACHED.items;
  for (let r = 0; r < REACHED.size; r += 2) {
    const a = reached[r] as number;
    const level = reached[r + 1] as number;
    const kind = entry.areaKind[a] as AreaKindCode;
    if (kind === AREA_TOWN && level === INSIDE && insideCity) continue;
    const part = partOfArea(groupOf(kind), level);
    const end = entry.membersAt[a + 1] as number;
    for (let k = entry.membersAt[a] as number; k < end; k++) {
      const m = entry.members[k] as number;
      const seen = partOf[m] as number;
      if (seen === NO_PART) touched.push(m);
      if (part < seen) partOf[m] = part;
    }
  }
}

/**
 * Scratch buffers reused by every lookup (no allocation per PSAP of an entry on the hot path). A PSAP's
 * distance to the fix is computed once per lookup, into `km`, before anything compares it: comparisons
 * read the typed array (no closure, no number boxed on the way).
 */
interface Scratch {
  partOf: Uint8Array;
  km: Float64Array;
}

let shared: Scratch | null = null;

function scratchFor(size: number): Scratch {
  if (shared && shared.partOf.length >= size) return shared;
  const capacity = Math.max(size, (shared?.partOf.length ?? 0) * 2, 256);
  shared = { partOf: new Uint8Array(capacity).fill(NO_PART), km: new Float64Array(capacity) };
  return shared;
}

// Lists reused by every lookup: the ranking runs start to end without awaiting, so one lookup at a
// time uses them, and a hot lookup allocates little beyond its answer.
const TOUCHED = new IntList();
/** Pairs (area, level) of the areas that reach the fix. */
const REACHED = new IntList();
const PART_LISTS: IntList[] = Array.from({ length: PARTS }, () => new IntList());
/** The part each statewide centre was reached through (its `match`), by PSAP position. */
const STATEWIDE_FROM = new Map<number, number>();
const PRIMARIES = new IntList();
const SECONDARIES = new IntList();
const FOLLOWERS = new IntList();
const KEPT = new IntList();
const BEST = new IntList();
const PRIMARY_IDS = new Set<string>();

function rankInto(
  entry: RankableEntry,
  scratch: Scratch,
  touched: IntList,
  limit: number,
  maxDistanceKm: number,
  lat: number,
  lon: number,
  out: PsapRecord[],
): void {
  const { partOf, km } = scratch;
  const cosLat = cosOfLatitude(lat);
  const lats = entry.latitude;
  const lons = entry.longitude;
  const coss = entry.cosLatitude;
  for (const list of PART_LISTS) list.clear();
  STATEWIDE_FROM.clear();
  for (let t = 0; t < touched.size; t++) {
    const i = touched.items[t] as number;
    const d = haversineKmWithCos(lat, lon, cosLat, lats[i] as number, lons[i] as number, coss[i] as number);
    km[i] = d;
    if (d > maxDistanceKm) continue;
    const part = partOf[i] as number;
    // A statewide centre reached through an area that contains the fix: the fix is in its state.
    if (part <= 3 && entry.jurisdiction[i] === STATE_RANK) {
      PART_LISTS[STATEWIDE_PART]?.push(i);
      STATEWIDE_FROM.set(i, part);
    } else PART_LISTS[part]?.push(i);
  }
  const statewide = PART_LISTS[STATEWIDE_PART] as IntList;
  if (statewide.size > 0) emitStatewide(entry, statewide, km, limit, out);
  for (let part = 1; part < PART_LISTS.length && out.length < limit; part++) {
    const members = PART_LISTS[part] as IntList;
    if (members.size === 0) continue;
    emitPart(entry, members, km, limit - out.length, matchOfPart(part), out);
  }
  if (out.length < limit) {
    // The nearest group, by type, then distance, then id. Candidates come by type, nearest to the centre
    // first; d(q, p) >= d(c, p) - d(c, q), so once that bound passes the worst kept distance (or the
    // cut-off) no later candidate of the type can be kept.
    const fromCentre = haversineKm(lat, lon, entry.centre[0] as number, entry.centre[1] as number);
    const wanted = limit - out.length;
    const best = BEST;
    best.clear();
    const list = entry.nearest;
    for (let type = 0; type <= 1 && best.size < wanted; type++) {
      const kept = KEPT;
      kept.clear();
      const room = wanted - best.size;
      for (let k = 0; k < list.length; k++) {
        const i = list[k] as number;
        if (entry.secondary[i] !== type) continue;
        const bound = (entry.nearestBoundM[k] as number) / 1000 - fromCentre;
        if (bound > maxDistanceKm) break;
        if (kept.size === room && bound > (km[kept.items[room - 1] as number] as number)) break;
        // A PSAP an area reached is in an area group, and its distance already known.
        if (partOf[i] !== NO_PART) continue;
        km[i] = haversineKmWithCos(lat, lon, cosLat, lats[i] as number, lons[i] as number, coss[i] as number);
        if ((km[i] as number) > maxDistanceKm) continue;
        // Insert in (distance, id) order, keeping only `room`.
        const held = kept.items;
        let at = kept.size;
        while (at > 0 && byDistanceThenId(entry, km, i, held[at - 1] as number) < 0) at--;
        if (at < room) {
          // Shift the farther ones up by one, dropping the last past `room`.
          if (kept.size < room) kept.push(i);
          const moved = kept.items;
          for (let j = kept.size - 1; j > at; j--) moved[j] = moved[j - 1] as number;
          moved[at] = i;
        }
      }
      for (let k = 0; k < kept.size; k++) best.push(kept.items[k] as number);
    }
    for (let k = 0; k < best.size; k++) pushRecord(out, entry, best.items[k] as number, km, "nearest");
  }
}

function byDistanceThenId(entry: RankableEntry, km: Float64Array, a: number, b: number): number {
  const da = km[a] as number;
  const db = km[b] as number;
  if (da !== db) return da < db ? -1 : 1;
  const ia = (entry.psaps[a] as PsapTuple)[0];
  const ib = (entry.psaps[b] as PsapTuple)[0];
  return ia < ib ? -1 : ia > ib ? 1 : 0;
}

/** Removes and returns the first of `list` by (jurisdiction, distance, id). */
function takeFirst(entry: RankableEntry, km: Float64Array, list: IntList): number {
  const items = list.items;
  let best = 0;
  for (let k = 1; k < list.size; k++) {
    const a = items[k] as number;
    const b = items[best] as number;
    const order =
      (entry.jurisdiction[a] as number) - (entry.jurisdiction[b] as number) ||
      byDistanceThenId(entry, km, a, b);
    if (order < 0) best = k;
  }
  return list.swapRemove(best);
}

/**
 * Appends the first `wanted` PSAPs of one part of an area group to `out`: primaries by (jurisdiction,
 * distance, id), each followed by its own secondaries in the same order, then the secondaries that
 * follow no primary of the part. Selection, not a full sort: a part can hold every PSAP of a big
 * county, and only a handful are wanted.
 */
function emitPart(
  entry: RankableEntry,
  members: IntList,
  km: Float64Array,
  wanted: number,
  match: PsapMatch,
  out: PsapRecord[],
): void {
  const primaries = PRIMARIES;
  const secondaries = SECONDARIES;
  primaries.clear();
  secondaries.clear();
  for (let k = 0; k < members.size; k++) {
    const i = members.items[k] as number;
    (entry.secondary[i] === 0 ? primaries : secondaries).push(i);
  }
  let left = wanted;
  while (left > 0 && primaries.size > 0) {
    const p = takeFirst(entry, km, primaries);
    pushRecord(out, entry, p, km, match);
    left--;
    if (secondaries.size === 0) continue;
    const id = (entry.psaps[p] as PsapTuple)[0];
    const followers = FOLLOWERS;
    followers.clear();
    for (let k = 0; k < secondaries.size; k++) {
      const i = secondaries.items[k] as number;
      if ((entry.psaps[i] as PsapTuple)[8] === id) followers.push(i);
    }
    while (left > 0 && followers.size > 0) {
      pushRecord(out, entry, takeFirst(entry, km, followers), km, match);
      left--;
    }
  }
  if (left <= 0 || secondaries.size === 0) return;
  // The secondaries whose primary is not in this part (or who have none), in the same order.
  const primaryIds = PRIMARY_IDS;
  primaryIds.clear();
  for (let k = 0; k < members.size; k++) {
    const i = members.items[k] as number;
    if (entry.secondary[i] === 0) primaryIds.add((entry.psaps[i] as PsapTuple)[0]);
  }
  const others = FOLLOWERS;
  others.clear();
  for (let k = 0; k < secondaries.size; k++) {
    const i = secondaries.items[k] as number;
    const lead = (entry.psaps[i] as PsapTuple)[8];
    if (lead === null || !primaryIds.has(lead)) others.push(i);
  }
  while (left > 0 && others.size > 0) {
    pushRecord(out, entry, takeFirst(entry, km, others), km, match);
    left--;
  }
}

/**
 * Appends the statewide centres first: primaries by (distance, id), each followed by its own secondaries,
 * each record with the match of the area it was reached through.
 */
function emitStatewide(
  entry: RankableEntry,
  members: IntList,
  km: Float64Array,
  limit: number,
  out: PsapRecord[],
): void {
  const start = out.length;
  emitPart(entry, members, km, limit - out.length, "county", out);
  for (let k = start; k < out.length; k++) {
    const record = out[k] as PsapRecord;
    for (const [i, part] of STATEWIDE_FROM) {
      if ((entry.psaps[i] as PsapTuple)[0] === record.id) record.match = matchOfPart(part);
    }
  }
}

/** Appends PSAP `i`'s record (a function of its own, not a closure: nothing allocated but the record). */
function pushRecord(
  out: PsapRecord[],
  entry: RankableEntry,
  i: number,
  km: Float64Array,
  match: PsapMatch,
): void {
  out.push(toRecord(entry.psaps[i] as PsapTuple, km[i] as number, match));
}

/** The delivered record of a ranked PSAP. */
export function toRecord(t: PsapTuple, km: number, match: PsapMatch): PsapRecord {
  return recordOf(t, roundKm(km), match);
}
