// The lookup's ranking over one bucket: the same answer as `rankPsaps` (SPEC section 4), record for
// record and bit for bit, but without a haversine for every candidate of a dense bucket.
//
// A bucket is prepared once, when it is decoded and cached (the KV format is unchanged):
// - the `nearest` candidates of each type go into a small k-d tree over their unit vectors in
//   3-D (chord length is monotone in great-circle distance, and a box gives a lower bound on it);
// - each area's members, by type, are sorted by their distance to the cell centre c;
// - each area's bounding box goes into flat arrays, for a cheap first rejection.
//
// Exactness. Every decision that `rankPsaps` makes on a candidate (within maxDistance, its rank
// by type, distance and id) is made here with the very same `haversineKm(lat, lon, p.lat, p.lon)`
// value; the index structures only skip candidates that provably cannot enter the answer:
// - tree: a node is skipped when the chord from the fix to its box exceeds the chord of
//   (bound + SLACK_KM), where the bound is maxDistance, or the current k-th best distance once k
//   are kept. The chord from the fix to any point of the box is at least that, so the point's
//   great-circle distance exceeds bound + SLACK_KM (up to floating-point error around 1e-12 km),
//   and its haversine exceeds the bound: it would be rejected, or ranked after the k kept (a
//   distance equal to the bound is never skipped, so ties are still decided by id).
// - area lists: with delta = d(q, c), the triangle inequality gives d(q, p) >= |d(c, p) - delta|;
//   a member is skipped when that bound, minus SLACK_KM, exceeds the same bound as above. Every
//   distance involved is under about 1,000 km (the bucket keeps nothing farther from c than
//   maxDistance plus the cell radius), where haversine is accurate to about 1e-11 km, far inside
//   SLACK_KM. A fix unexpectedly far from the centre falls back to the plain ranking.
import { cellToLatLng } from "h3-js";
import type { PsapMatch, PsapRecord } from "../../sdk/src/protocol.ts";
import { PSAP_LIMITS } from "../config.ts";
import { type AreaGeometry, isWithinArea } from "./area.ts";
import { EARTH_RADIUS_KM, haversineKm, KM_PER_DEGREE } from "./geo.ts";
import { type RankPool, rankPsaps, toRecord } from "./rank.ts";
import type { IndexedPsap } from "./types.ts";

/** Absolute slack, km, on every distance bound (floating-point error is below 1e-10 km here). */
export const SLACK_KM = 1e-7;
/** Beyond this distance between the fix and the cell centre, the bounds are not used. */
const MAX_DELTA_KM = 2_000;
const LEAF_SIZE = 8;
const RAD = Math.PI / 180;
/** Degrees added to the area box test before the exact test (it only has to reject less). */
const BOX_SLACK_DEG = 1e-7;

/** A static k-d tree over unit vectors; nodes in preorder (the left child follows its parent). */
interface PointTree {
  /** Pool indexes in tree order, and their unit vectors. */
  index: Int32Array;
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
  /** Per node: first and end position in the arrays above, and the right child (-1: a leaf). */
  lo: Int32Array;
  hi: Int32Array;
  right: Int32Array;
  /** Per node: minX, maxX, minY, maxY, minZ, maxZ of its points. */
  box: Float64Array;
}

/** An area's members of one type, ascending by distance from the cell centre. */
interface SortedMembers {
  index: Int32Array;
  centreKm: Float64Array;
}

interface PreparedArea {
  boundary: boolean;
  geometry: AreaGeometry;
  /** [primaries, secondaries]. */
  members: [SortedMembers, SortedMembers];
}

export interface PreparedBucket {
  pool: RankPool;
  centreLat: number;
  centreLon: number;
  /** Trees of the `nearest` candidates: [primaries, secondaries]. */
  trees: [PointTree | null, PointTree | null];
  areas: PreparedArea[];
  areaMinLat: Float64Array;
  areaMaxLat: Float64Array;
  /** Set to the query's stamp when the area matches the fix. */
  areaStamp: Float64Array;
  /** Areas each PSAP belongs to (CSR: areasOf[areaStart[i] .. areaStart[i + 1]]). */
  areaStart: Int32Array;
  areasOf: Int32Array;
}

function typeOf(p: IndexedPsap): 0 | 1 {
  return p.type === "primary" ? 0 : 1;
}

function unitVector(lat: number, lon: number): [number, number, number] {
  const la = lat * RAD;
  const lo = lon * RAD;
  const c = Math.cos(la);
  return [c * Math.cos(lo), c * Math.sin(lo), Math.sin(la)];
}

function buildTree(psaps: readonly IndexedPsap[], indexes: readonly number[]): PointTree | null {
  const n = indexes.length;
  if (n === 0) return null;
  const index = Int32Array.from(indexes);
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  const z = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const p = psaps[index[i] as number] as IndexedPsap;
    const v = unitVector(p.latitude, p.longitude);
    x[i] = v[0];
    y[i] = v[1];
    z[i] = v[2];
  }
  const maxNodes = 2 * Math.ceil(n / (LEAF_SIZE / 2)) + 1;
  const lo = new Int32Array(maxNodes);
  const hi = new Int32Array(maxNodes);
  const right = new Int32Array(maxNodes);
  const box = new Float64Array(6 * maxNodes);
  const coords = [x, y, z] as const;
  let nodes = 0;

  const swap = (i: number, j: number) => {
    const t = index[i] as number;
    index[i] = index[j] as number;
    index[j] = t;
    for (const a of coords) {
      const v = a[i] as number;
      a[i] = a[j] as number;
      a[j] = v;
    }
  };
  // Quickselect: afterwards a[k] has its sorted-order value, smaller ones before, larger after.
  const select = (a: Float64Array, left: number, rightEnd: number, k: number) => {
    let l = left;
    let r = rightEnd;
    while (r > l) {
      const m = (l + r) >> 1;
      // Median of three as the pivot, moved to r.
      if ((a[m] as number) < (a[l] as number)) swap(m, l);
      if ((a[r] as number) < (a[l] as number)) swap(r, l);
      if ((a[m] as number) < (a[r] as number)) swap(m, r);
      const pivot = a[r] as number;
      let store = l;
      for (let i = l; i < r; i++) {
        if ((a[i] as number) < pivot) swap(i, store++);
      }
      swap(store, r);
      if (store === k) return;
      if (store < k) l = store + 1;
      else r = store - 1;
    }
  };

  const build = (from: number, to: number): number => {
    const node = nodes++;
    lo[node] = from;
    hi[node] = to;
    let b = 6 * node;
    for (const a of coords) {
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (let i = from; i < to; i++) {
        const v = a[i] as number;
        if (v < min) min = v;
        if (v > max) max = v;
      }
      box[b++] = min;
      box[b++] = max;
    }
    if (to - from <= LEAF_SIZE) {
      right[node] = -1;
      return node;
    }
    const o = 6 * node;
    const ex = (box[o + 1] as number) - (box[o] as number);
    const ey = (box[o + 3] as number) - (box[o + 2] as number);
    const ez = (box[o + 5] as number) - (box[o + 4] as number);
    const axis = ex >= ey && ex >= ez ? x : ey >= ez ? y : z;
    const mid = (from + to) >> 1;
    select(axis, from, to - 1, mid);
    build(from, mid);
    right[node] = build(mid, to);
    return node;
  };
  build(0, n);
  return { index, x, y, z, lo, hi, right, box };
}

function sortedMembers(
  psaps: readonly IndexedPsap[],
  members: readonly number[],
  lat: number,
  lon: number,
): SortedMembers {
  const list = members.map((i) => {
    const p = psaps[i] as IndexedPsap;
    return { i, km: haversineKm(lat, lon, p.latitude, p.longitude) };
  });
  list.sort((a, b) => a.km - b.km);
  return {
    index: Int32Array.from(list, (e) => e.i),
    centreKm: Float64Array.from(list, (e) => e.km),
  };
}

/** Prepares a decoded bucket for `rankPrepared` (once, when it is cached). `cell` is the bucket's H3 cell. */
export function prepareBucket(pool: RankPool, cell: string): PreparedBucket {
  const [centreLat, centreLon] = cellToLatLng(cell);
  const psaps = pool.psaps;
  const valid = (i: number) => Number.isInteger(i) && i >= 0 && i < psaps.length;
  const dedupe = (list: Iterable<number>) => [...new Set(list)].filter(valid);

  const nearest = dedupe(pool.nearest ?? psaps.keys());
  const byType: [number[], number[]] = [[], []];
  for (const i of nearest) byType[typeOf(psaps[i] as IndexedPsap)].push(i);

  const memberLists: number[][] = psaps.map(() => []);
  const areas: PreparedArea[] = pool.areas.map((a, k) => {
    const split: [number[], number[]] = [[], []];
    for (const i of dedupe(a.members)) {
      split[typeOf(psaps[i] as IndexedPsap)].push(i);
      (memberLists[i] as number[]).push(k);
    }
    return {
      boundary: a.kind === "boundary",
      geometry: a.geometry,
      members: [
        sortedMembers(psaps, split[0], centreLat, centreLon),
        sortedMembers(psaps, split[1], centreLat, centreLon),
      ],
    };
  });
  const areaStart = new Int32Array(psaps.length + 1);
  memberLists.forEach((l, i) => {
    areaStart[i + 1] = (areaStart[i] as number) + l.length;
  });

  return {
    pool,
    centreLat,
    centreLon,
    trees: [buildTree(psaps, byType[0]), buildTree(psaps, byType[1])],
    areas,
    areaMinLat: Float64Array.from(areas, (a) => a.geometry.minLat),
    areaMaxLat: Float64Array.from(areas, (a) => a.geometry.maxLat),
    areaStamp: new Float64Array(areas.length),
    areaStart,
    areasOf: Int32Array.from(memberLists.flat()),
  };
}

// Per-query scratch (a ranking runs synchronously, so one set serves every call).
let stamp = 0;
let bucket: PreparedBucket;
let qLat = 0;
let qLon = 0;
let qx = 0;
let qy = 0;
let qz = 0;
let maxKm = 0;
/** How many to keep, how many are kept (ascending by distance, then id), and the squared-chord bound. */
let need = 0;
let kept = 0;
let bound2 = 0;
const keptIndex: number[] = [];
const keptKm: number[] = [];
const keptPsap: IndexedPsap[] = [];

/** Squared chord (unit sphere) of a great-circle distance, capped at the antipode. */
function chord2(km: number): number {
  const half = km / (2 * EARTH_RADIUS_KM);
  const c = half >= Math.PI / 2 ? 2 : 2 * Math.sin(half);
  return c * c;
}

/** The distance no candidate may exceed to be kept: maxDistance, or the k-th best once k are kept. */
function boundKm(): number {
  if (kept < need) return maxKm;
  const worst = keptKm[kept - 1] as number;
  return Math.min(worst, maxKm);
}

/** True when PSAP i belongs to an area that matched this query. */
function isMatched(i: number): boolean {
  const b = bucket;
  for (let k = b.areaStart[i] as number, end = b.areaStart[i + 1] as number; k < end; k++) {
    if (b.areaStamp[b.areasOf[k] as number] === stamp) return true;
  }
  return false;
}

/** Offers candidate i; keeps the best `need` by (distance, id), each PSAP once. */
function offer(i: number): void {
  const p = bucket.pool.psaps[i] as IndexedPsap;
  const km = haversineKm(qLat, qLon, p.latitude, p.longitude);
  if (km > maxKm) return;
  let at = kept;
  if (kept === need) {
    const worst = keptKm[kept - 1] as number;
    if (km > worst || (km === worst && !(p.id < (keptPsap[kept - 1] as IndexedPsap).id))) return;
    at = kept - 1;
  }
  for (let k = 0; k < kept; k++) if (keptIndex[k] === i) return;
  // Insertion: shift worse ones up (the last one drops out when full).
  while (at > 0) {
    const km2 = keptKm[at - 1] as number;
    if (km2 < km || (km2 === km && (keptPsap[at - 1] as IndexedPsap).id < p.id)) break;
    keptIndex[at] = keptIndex[at - 1] as number;
    keptKm[at] = km2;
    keptPsap[at] = keptPsap[at - 1] as IndexedPsap;
    at--;
  }
  keptIndex[at] = i;
  keptKm[at] = km;
  keptPsap[at] = p;
  if (kept < need) kept++;
  if (kept === need) bound2 = chord2(boundKm() + SLACK_KM);
}

function boxDistance2(box: Float64Array, node: number): number {
  const o = 6 * node;
  let d = 0;
  let v = (box[o] as number) - qx;
  if (v > 0) d += v * v;
  else {
    v = qx - (box[o + 1] as number);
    if (v > 0) d += v * v;
  }
  v = (box[o + 2] as number) - qy;
  if (v > 0) d += v * v;
  else {
    v = qy - (box[o + 3] as number);
    if (v > 0) d += v * v;
  }
  v = (box[o + 4] as number) - qz;
  if (v > 0) d += v * v;
  else {
    v = qz - (box[o + 5] as number);
    if (v > 0) d += v * v;
  }
  return d;
}

/** Depth first, nearer child first; `excludeMatched` for the nearest group. */
function searchTree(t: PointTree, node: number, excludeMatched: boolean): void {
  const right = t.right[node] as number;
  if (right < 0) {
    for (let k = t.lo[node] as number, end = t.hi[node] as number; k < end; k++) {
      const dx = (t.x[k] as number) - qx;
      const dy = (t.y[k] as number) - qy;
      const dz = (t.z[k] as number) - qz;
      if (dx * dx + dy * dy + dz * dz > bound2) continue;
      const i = t.index[k] as number;
      if (excludeMatched && isMatched(i)) continue;
      offer(i);
    }
    return;
  }
  const left = node + 1;
  const dl = boxDistance2(t.box, left);
  const dr = boxDistance2(t.box, right);
  if (dl <= dr) {
    if (dl <= bound2) searchTree(t, left, excludeMatched);
    if (dr <= bound2) searchTree(t, right, excludeMatched);
  } else {
    if (dr <= bound2) searchTree(t, right, excludeMatched);
    if (dl <= bound2) searchTree(t, left, excludeMatched);
  }
}

/** Scans one area's members by distance from the centre, within the annulus that can still count. */
function scanMembers(list: SortedMembers, delta: number): void {
  const { index, centreKm } = list;
  for (let k = 0; k < index.length; k++) {
    const dc = centreKm[k] as number;
    const limit = boundKm() + SLACK_KM;
    if (dc - delta > limit) break;
    if (delta - dc > limit) continue;
    offer(index[k] as number);
  }
}

function startGroup(n: number): void {
  need = n;
  kept = 0;
  bound2 = chord2(maxKm + SLACK_KM);
}

/**
 * `rankPsaps(prepared.pool, ...)`, record for record: area matches first, then the nearest
 * others; within each group primaries, then distance, then id; nothing beyond `maxDistanceKm`.
 */
export function rankPrepared(
  prepared: PreparedBucket,
  lat: number,
  lon: number,
  toleranceKm: number,
  limit: number,
  maxDistanceKm: number = PSAP_LIMITS.maxDistanceKm,
): PsapRecord[] {
  if (limit <= 0) return [];
  const delta = haversineKm(lat, lon, prepared.centreLat, prepared.centreLon);
  if (!(delta <= MAX_DELTA_KM)) return rankPsaps(prepared.pool, lat, lon, toleranceKm, limit, maxDistanceKm);
  bucket = prepared;
  stamp++;
  qLat = lat;
  qLon = lon;
  [qx, qy, qz] = unitVector(lat, lon);
  maxKm = maxDistanceKm;

  // Areas containing the fix (or within the tolerance of it): box rejection, then the exact test.
  const matched: number[] = [];
  const areas = prepared.areas;
  const tLat = (toleranceKm / KM_PER_DEGREE) * 1.000001 + 1e-9 + BOX_SLACK_DEG;
  const minLat = prepared.areaMinLat;
  const maxLat = prepared.areaMaxLat;
  for (let a = 0; a < areas.length; a++) {
    if (lat < (minLat[a] as number) - tLat || lat > (maxLat[a] as number) + tLat) continue;
    if (!isWithinArea((areas[a] as PreparedArea).geometry, lat, lon, toleranceKm)) continue;
    prepared.areaStamp[a] = stamp;
    matched.push(a);
  }

  const out: PsapRecord[] = [];
  const take = (match: PsapMatch | null) => {
    for (let k = 0; k < kept; k++) {
      const i = keptIndex[k] as number;
      let m = match;
      if (m === null) {
        m = "county";
        for (let j = prepared.areaStart[i] as number; j < (prepared.areaStart[i + 1] as number); j++) {
          const a = prepared.areasOf[j] as number;
          if (prepared.areaStamp[a] === stamp && (areas[a] as PreparedArea).boundary) m = "boundary";
        }
      }
      out.push(toRecord(keptPsap[k] as IndexedPsap, keptKm[k] as number, m));
    }
  };
  // The matched group: its primaries, then (if short) its secondaries.
  if (matched.length > 0) {
    for (const t of [0, 1] as const) {
      if (out.length >= limit) break;
      startGroup(limit - out.length);
      for (const a of matched) scanMembers((areas[a] as PreparedArea).members[t], delta);
      take(null);
    }
  }
  // The nearest others, by type in the same way.
  for (const t of [0, 1] as const) {
    if (out.length >= limit) break;
    const tree = prepared.trees[t];
    if (!tree) continue;
    startGroup(limit - out.length);
    if (boxDistance2(tree.box, 0) <= bound2) searchTree(tree, 0, matched.length > 0);
    take("nearest");
  }
  keptPsap.length = 0;
  return out;
}
