// The lookup's ranking over one bucket: the same answer as `rankPsaps` (SPEC section 4), record for
// record and bit for bit, but without a haversine for every candidate of a dense bucket.
//
// A bucket is prepared once, when it is read and cached (the KV format is unchanged):
// - its text is scanned, not parsed in full (format.ts `scanBucket`): coordinates and types are
//   read in place, a PSAP tuple is parsed only for an id in a tie or a returned record;
// - the `nearest` candidates of each type go into a small k-d tree over their unit vectors in
//   3-D (chord length is monotone in great-circle distance, and a box gives a lower bound on it);
// - each area's members, by type, are sorted by their distance to the cell centre c;
// - each area's latitude range goes into flat arrays, for a cheap first rejection before the
//   exact `isWithinArea` (which decides, as in `rankPsaps`).
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
import { decodeAreas, decodeBucket, type PsapTuple, scanBucket, tupleToPsap } from "./format.ts";
import { EARTH_RADIUS_KM, haversineKm, KM_PER_DEGREE } from "./geo.ts";
import { type RankArea, type RankPool, rankPsaps, toRecord } from "./rank.ts";
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
  /** Pool indexes in tree order. */
  index: Int32Array;
  /** Per point, in tree order: x, y, z (unit vector), latitude, longitude. */
  pts: Float64Array;
  /** Per node: first and end point, and the right child (-1: a leaf). */
  nodes: Int32Array;
  /** Per node: minX, maxX, minY, maxY, minZ, maxZ of its points. */
  box: Float64Array;
}

const STRIDE = 5;

/** An area's members of one type, ascending by distance from the cell centre. */
interface SortedMembers {
  index: Int32Array;
  centreKm: Float64Array;
  /** Latitude, longitude per member, in the same order. */
  pos: Float64Array;
}

interface PreparedArea {
  boundary: boolean;
  geometry: AreaGeometry;
  /** [primaries, secondaries]. */
  members: [SortedMembers, SortedMembers];
}

export interface PreparedBucket {
  centreLat: number;
  centreLon: number;
  /** The id of the PSAP at a pool index (needed for ties only). */
  id: (i: number) => string;
  /** The PSAP at a pool index (built for the returned records only). */
  psap: (i: number) => IndexedPsap;
  /** The plain pool, for a fix the bounds do not cover (built on first use). */
  pool: () => RankPool;
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

function unitVector(lat: number, lon: number): [number, number, number] {
  const la = lat * RAD;
  const lo = lon * RAD;
  const c = Math.cos(la);
  return [c * Math.cos(lo), c * Math.sin(lo), Math.sin(la)];
}

function buildTree(
  lat: ArrayLike<number>,
  lon: ArrayLike<number>,
  indexes: readonly number[],
): PointTree | null {
  const n = indexes.length;
  if (n === 0) return null;
  const index = Int32Array.from(indexes);
  const pts = new Float64Array(STRIDE * n);
  for (let k = 0; k < n; k++) {
    const i = index[k] as number;
    const la = lat[i] as number;
    const lo = lon[i] as number;
    // The same arithmetic as unitVector (the query's side).
    const c = Math.cos(la * RAD);
    const o = STRIDE * k;
    pts[o] = c * Math.cos(lo * RAD);
    pts[o + 1] = c * Math.sin(lo * RAD);
    pts[o + 2] = Math.sin(la * RAD);
    pts[o + 3] = la;
    pts[o + 4] = lo;
  }
  const maxNodes = 2 * Math.ceil(n / (LEAF_SIZE / 2)) + 1;
  const nodes = new Int32Array(3 * maxNodes);
  const box = new Float64Array(6 * maxNodes);
  let count = 0;

  const swap = (i: number, j: number) => {
    const t = index[i] as number;
    index[i] = index[j] as number;
    index[j] = t;
    for (let c = 0; c < STRIDE; c++) {
      const v = pts[STRIDE * i + c] as number;
      pts[STRIDE * i + c] = pts[STRIDE * j + c] as number;
      pts[STRIDE * j + c] = v;
    }
  };
  // Quickselect on coordinate `axis`: afterwards point k has its sorted-order value, smaller ones before.
  const select = (axis: number, left: number, rightEnd: number, k: number) => {
    const at = (i: number) => pts[STRIDE * i + axis] as number;
    let l = left;
    let r = rightEnd;
    while (r > l) {
      const m = (l + r) >> 1;
      // Median of three as the pivot, moved to r.
      if (at(m) < at(l)) swap(m, l);
      if (at(r) < at(l)) swap(r, l);
      if (at(m) < at(r)) swap(m, r);
      const pivot = at(r);
      let store = l;
      for (let i = l; i < r; i++) {
        if (at(i) < pivot) swap(i, store++);
      }
      swap(store, r);
      if (store === k) return;
      if (store < k) l = store + 1;
      else r = store - 1;
    }
  };

  const build = (from: number, to: number): number => {
    const node = count++;
    nodes[3 * node] = from;
    nodes[3 * node + 1] = to;
    const o = 6 * node;
    for (let c = 0; c < 3; c++) {
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (let i = from; i < to; i++) {
        const v = pts[STRIDE * i + c] as number;
        if (v < min) min = v;
        if (v > max) max = v;
      }
      box[o + 2 * c] = min;
      box[o + 2 * c + 1] = max;
    }
    if (to - from <= LEAF_SIZE) {
      nodes[3 * node + 2] = -1;
      return node;
    }
    const ex = (box[o + 1] as number) - (box[o] as number);
    const ey = (box[o + 3] as number) - (box[o + 2] as number);
    const ez = (box[o + 5] as number) - (box[o + 4] as number);
    const axis = ex >= ey && ex >= ez ? 0 : ey >= ez ? 1 : 2;
    const mid = (from + to) >> 1;
    select(axis, from, to - 1, mid);
    build(from, mid);
    nodes[3 * node + 2] = build(mid, to);
    return node;
  };
  build(0, n);
  return { index, pts, nodes, box };
}

function sortedMembers(
  members: readonly number[],
  lat: ArrayLike<number>,
  lon: ArrayLike<number>,
  cLat: number,
  cLon: number,
): SortedMembers {
  const km = members.map((i) => haversineKm(cLat, cLon, lat[i] as number, lon[i] as number));
  const order = members.map((_, k) => k).sort((a, b) => (km[a] as number) - (km[b] as number));
  const pos = new Float64Array(2 * order.length);
  order.forEach((k, j) => {
    const i = members[k] as number;
    pos[2 * j] = lat[i] as number;
    pos[2 * j + 1] = lon[i] as number;
  });
  return {
    index: Int32Array.from(order, (k) => members[k] as number),
    centreKm: Float64Array.from(order, (k) => km[k] as number),
    pos,
  };
}

interface PrepareInput {
  count: number;
  id: (i: number) => string;
  lat: ArrayLike<number>;
  lon: ArrayLike<number>;
  /** 0 primary, 1 secondary. */
  types: ArrayLike<number>;
  nearest: Iterable<number>;
  areas: readonly RankArea[];
  psap: (i: number) => IndexedPsap;
  pool: () => RankPool;
}

function prepare(input: PrepareInput, cell: string): PreparedBucket {
  const [centreLat, centreLon] = cellToLatLng(cell);
  const { count, lat, lon, types } = input;
  // Each valid index once per list (a well-formed bucket has no repeats; this is cheap insurance).
  const seen = new Uint32Array(count);
  let list = 0;
  const dedupe = (from: Iterable<number>): number[] => {
    list++;
    const out: number[] = [];
    for (const i of from) {
      if (Number.isInteger(i) && i >= 0 && i < count && seen[i] !== list) {
        seen[i] = list;
        out.push(i);
      }
    }
    return out;
  };

  const byType: [number[], number[]] = [[], []];
  for (const i of dedupe(input.nearest)) byType[types[i] === 0 ? 0 : 1].push(i);

  // Areas of each member, as CSR arrays: counted first, then filled.
  const areaStart = new Int32Array(count + 1);
  const areaMembers = input.areas.map((a) => dedupe(a.members));
  for (const members of areaMembers) {
    for (const i of members) areaStart[i + 1] = (areaStart[i + 1] as number) + 1;
  }
  for (let i = 0; i < count; i++) areaStart[i + 1] = (areaStart[i + 1] as number) + (areaStart[i] as number);
  const areasOf = new Int32Array(areaStart[count] as number);
  const fill = areaStart.slice(0, count);
  const areas: PreparedArea[] = input.areas.map((a, k) => {
    const split: [number[], number[]] = [[], []];
    for (const i of areaMembers[k] as number[]) {
      split[types[i] === 0 ? 0 : 1].push(i);
      areasOf[(fill[i] as number)++] = k;
    }
    return {
      boundary: a.kind === "boundary",
      geometry: a.geometry,
      members: [
        sortedMembers(split[0], lat, lon, centreLat, centreLon),
        sortedMembers(split[1], lat, lon, centreLat, centreLon),
      ],
    };
  });
  return {
    centreLat,
    centreLon,
    id: input.id,
    psap: input.psap,
    pool: input.pool,
    trees: [buildTree(lat, lon, byType[0]), buildTree(lat, lon, byType[1])],
    areas,
    areaMinLat: Float64Array.from(areas, (a) => a.geometry.minLat),
    areaMaxLat: Float64Array.from(areas, (a) => a.geometry.maxLat),
    areaStamp: new Float64Array(areas.length),
    areaStart,
    areasOf,
  };
}

/** Prepares a decoded pool for `rankPrepared`. `cell` is the bucket's H3 cell. */
export function prepareBucket(pool: RankPool, cell: string): PreparedBucket {
  const psaps = pool.psaps;
  return prepare(
    {
      count: psaps.length,
      id: (i) => (psaps[i] as IndexedPsap).id,
      lat: Float64Array.from(psaps, (p) => p.latitude),
      lon: Float64Array.from(psaps, (p) => p.longitude),
      types: Uint8Array.from(psaps, (p) => (p.type === "primary" ? 0 : 1)),
      nearest: pool.nearest ?? psaps.keys(),
      areas: pool.areas,
      psap: (i) => psaps[i] as IndexedPsap,
      pool: () => pool,
    },
    cell,
  );
}

/** Memoises a per-index value (ids and records are read from the text only when needed; few are). */
function lazy<T>(read: (i: number) => T): (i: number) => T {
  const seen = new Map<number, T>();
  return (i) => {
    let v = seen.get(i);
    if (v === undefined) {
      v = read(i);
      seen.set(i, v);
    }
    return v;
  };
}

/**
 * Parses and prepares a bucket as the lookup caches it. The PSAP tuples are located in the text,
 * not parsed (`scanBucket`): a tuple is parsed only for an id in a tie or a returned record, so a
 * cold lookup allocates little (and the hot one after it finds the CPU caches less disturbed).
 */
export function prepareBucketText(text: string, cell: string): PreparedBucket {
  const scanned = scanBucket(text);
  if (!scanned) return prepareBucket(decodeBucket(text), cell);
  const { tupleStart, tupleEnd } = scanned;
  const tuple = (i: number) =>
    JSON.parse(text.slice(tupleStart[i] as number, tupleEnd[i] as number)) as PsapTuple;
  let pool: RankPool | undefined;
  return prepare(
    {
      count: scanned.count,
      id: lazy((i) => tuple(i)[0]),
      lat: scanned.latitude,
      lon: scanned.longitude,
      types: scanned.type,
      nearest: scanned.nearest,
      areas: decodeAreas(scanned.areas),
      psap: lazy((i) => tupleToPsap(tuple(i))),
      pool: () => {
        pool ??= decodeBucket(text);
        return pool;
      },
    },
    cell,
  );
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

/** Offers candidate i at (pLat, pLon); keeps the best `need` by (distance, id), each PSAP once. */
function offer(i: number, pLat: number, pLon: number): void {
  // The very call rankPsaps makes: haversineKm(fix, PSAP), with the same doubles.
  const km = haversineKm(qLat, qLon, pLat, pLon);
  if (km > maxKm) return;
  let at = kept;
  if (kept === need) {
    const worst = keptKm[kept - 1] as number;
    if (km > worst) return;
    if (km === worst && !(bucket.id(i) < bucket.id(keptIndex[kept - 1] as number))) return;
    at = kept - 1;
  }
  for (let k = 0; k < kept; k++) if (keptIndex[k] === i) return;
  // Insertion: shift worse ones up (the last one drops out when full).
  while (at > 0) {
    const km2 = keptKm[at - 1] as number;
    if (km2 < km || (km2 === km && bucket.id(keptIndex[at - 1] as number) < bucket.id(i))) break;
    keptIndex[at] = keptIndex[at - 1] as number;
    keptKm[at] = km2;
    at--;
  }
  keptIndex[at] = i;
  keptKm[at] = km;
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
  const nodes = t.nodes;
  const right = nodes[3 * node + 2] as number;
  if (right < 0) {
    const pts = t.pts;
    for (let k = nodes[3 * node] as number, end = nodes[3 * node + 1] as number; k < end; k++) {
      const o = STRIDE * k;
      const dx = (pts[o] as number) - qx;
      const dy = (pts[o + 1] as number) - qy;
      const dz = (pts[o + 2] as number) - qz;
      if (dx * dx + dy * dy + dz * dz > bound2) continue;
      const i = t.index[k] as number;
      if (excludeMatched && isMatched(i)) continue;
      offer(i, pts[o + 3] as number, pts[o + 4] as number);
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
  const { index, centreKm, pos } = list;
  for (let k = 0; k < index.length; k++) {
    const dc = centreKm[k] as number;
    const limit = boundKm() + SLACK_KM;
    if (dc - delta > limit) break;
    if (delta - dc > limit) continue;
    offer(index[k] as number, pos[2 * k] as number, pos[2 * k + 1] as number);
  }
}

function startGroup(n: number): void {
  need = n;
  kept = 0;
  bound2 = chord2(maxKm + SLACK_KM);
}

/**
 * `rankPsaps` over the bucket's pool, record for record: area matches first, then the nearest
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
  if (!(delta <= MAX_DELTA_KM))
    return rankPsaps(prepared.pool(), lat, lon, toleranceKm, limit, maxDistanceKm);
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
      out.push(toRecord(prepared.psap(i), keptKm[k] as number, m));
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
  return out;
}
