// Builds the PSAP index (one self-sufficient bucket per H3 cell) from a data set, in memory.
//
// Why one read is enough (for a cell with centre c and radius bound r, see cells.ts; q is any
// fix that falls in the cell, so d(q, c) <= r):
// - Nearest, per type: let d_N(c) be the distance from c to its N-th nearest PSAP of that type.
//   The N nearest to q are all within d_N(c) + r of q (those N are), so each is within
//   d_N(c) + 2r of c, ties included. Nothing beyond maxDistance of q is returned, so nothing
//   beyond maxDistance + r of c is needed either. The bucket keeps every PSAP of the type within
//   min(d_N(c) + 2r, maxDistance + r) of c. Matched PSAPs are removed from the nearest group,
//   but k matched ones leave N - k slots, and those are filled from the N nearest overall.
// - Areas: a fix within the tolerance t <= maxTolerance of an area lies in the area's bounding
//   box grown by t, so the bucket keeps every area whose box meets the box of all points within
//   maxTolerance of the cell (the whole area's rings: the test is then the reference's test).
//   The matched group's top N of each type are, area by area, among that area's N nearest to
//   q, so the same d_N(c) + 2r rule is applied to each area's members.

import { around } from "geokdbush";
import { cellToLatLng, gridDisk, latLngToCell } from "h3-js";
import KDBush from "kdbush";
import { PSAP_LIMITS } from "../config.ts";
import { type AreaGeometry, decodeRings, type EncodedRings, encodeRings, lonShiftToward } from "./area.ts";
import { cellRadiusKm, MAX_CELL_RADIUS_KM } from "./cells.ts";
import {
  type BucketJson,
  bucketKey,
  encodeArea,
  FORMAT,
  type IndexManifest,
  POINTER_KEY,
  psapToTuple,
} from "./format.ts";
import { EARTH_RADIUS_KM, haversineKm, KM_PER_DEGREE } from "./geo.ts";
import type { IndexedPsap, PsapDataset } from "./types.ts";

export interface BuildOptions {
  /** H3 resolution of the buckets, 2..4. Default by size: 2 below 2,000 PSAPs (fewer keys), 3 up to 100,000, else 4. */
  resolution?: number;
  /** Most records a lookup may ask for. Default PSAP_LIMITS.maxResults. */
  topN?: number;
  /** Version id used in the keys. Default: a timestamp plus random suffix. */
  version?: string;
  /** Versions this one replaces, newest first (kept in the manifest for cleanup). */
  previous?: IndexManifest["previous"];
  now?: Date;
}

export interface BuiltIndex {
  manifest: IndexManifest;
  pointerKey: string;
  pointerValue: string;
  /** Versioned bucket keys and their JSON values; write all of them before the pointer. */
  buckets: Map<string, string>;
  stats: {
    cellsScanned: number;
    buckets: number;
    totalChars: number;
    maxBucketChars: number;
    buildMs: number;
  };
}

const EPS_KM = 1e-6;
/** geokdbush measures on a 6371 km sphere; convert our radii to its scale (with slack, then re-check). */
const KD_SCALE = (6371 / EARTH_RADIUS_KM) * (1 + 1e-9);

interface PreparedArea {
  id: string;
  kind: "county" | "boundary";
  encoded: EncodedRings;
  geometry: AreaGeometry;
  /** Member PSAP indexes by type: [primaries, secondaries]. */
  members: [number[], number[]];
}

function newVersion(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  const rnd = new Uint8Array(3);
  crypto.getRandomValues(rnd);
  return `${stamp}-${[...rnd].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function kdIndex(psaps: readonly IndexedPsap[], ids: readonly number[]): KDBush | null {
  if (ids.length === 0) return null;
  const kd = new KDBush(ids.length);
  for (const i of ids) {
    const p = psaps[i] as IndexedPsap;
    kd.add(p.longitude, p.latitude);
  }
  return kd.finish();
}

/** Indexes (into `psaps`) of every PSAP of one type a bucket centred at (lat, lon) needs. */
function nearestCandidates(
  psaps: readonly IndexedPsap[],
  ids: readonly number[],
  kd: KDBush | null,
  lat: number,
  lon: number,
  rKm: number,
  topN: number,
  maxKm: number,
): number[] {
  if (!kd) return [];
  let dN = Number.POSITIVE_INFINITY;
  const firstN = around(kd, lon, lat, topN);
  if (firstN.length >= topN) {
    dN = 0;
    for (const k of firstN) {
      const p = psaps[ids[k] as number] as IndexedPsap;
      dN = Math.max(dN, haversineKm(lat, lon, p.latitude, p.longitude));
    }
  }
  const reach = Math.min(dN + 2 * rKm, maxKm + rKm) + EPS_KM;
  const out: number[] = [];
  for (const k of around(kd, lon, lat, Number.POSITIVE_INFINITY, reach * KD_SCALE + 1e-6)) {
    const i = ids[k] as number;
    const p = psaps[i] as IndexedPsap;
    if (haversineKm(lat, lon, p.latitude, p.longitude) <= reach) out.push(i);
  }
  return out;
}

/** The same rule within one area's members (usually a handful, so a plain sort). */
function areaCandidates(
  psaps: readonly IndexedPsap[],
  members: readonly number[],
  lat: number,
  lon: number,
  rKm: number,
  topN: number,
  maxKm: number,
): number[] {
  if (members.length === 0) return [];
  const dist = members.map((i) => {
    const p = psaps[i] as IndexedPsap;
    return haversineKm(lat, lon, p.latitude, p.longitude);
  });
  let dN = Number.POSITIVE_INFINITY;
  if (dist.length >= topN) dN = [...dist].sort((a, b) => a - b)[topN - 1] as number;
  const reach = Math.min(dN + 2 * rKm, maxKm + rKm) + EPS_KM;
  return members.filter((_, k) => (dist[k] as number) <= reach);
}

/** Box (degrees) holding every point within `tolKm` (equirectangular, see area.ts) of any point of the cap. */
function reachBox(lat: number, lon: number, rKm: number, tolKm: number) {
  const rDeg = rKm / KM_PER_DEGREE;
  const tDeg = tolKm / KM_PER_DEGREE;
  const minLat = lat - (rDeg + tDeg) * 1.01 - 1e-6;
  const maxLat = lat + (rDeg + tDeg) * 1.01 + 1e-6;
  const qLatMax = Math.abs(lat) + rDeg;
  const rad = Math.PI / 180;
  let halfLon = 360;
  if (qLatMax < 89 && Math.max(Math.abs(minLat), Math.abs(maxLat)) < 89.9) {
    const s = Math.sin(rKm / EARTH_RADIUS_KM) / Math.cos(lat * rad);
    if (s < 1) {
      const capHalf = Math.asin(s) / rad;
      halfLon = (capHalf + tDeg / Math.cos(qLatMax * rad)) * 1.01 + 1e-6;
    }
  }
  return { minLat, maxLat, minLon: lon - halfLon, maxLon: lon + halfLon, full: halfLon >= 180 };
}

/** Builds every bucket and the pointer of a new index version. Pure: writes nothing. */
export function buildIndex(dataset: PsapDataset, options: BuildOptions = {}): BuiltIndex {
  const started = Date.now();
  const psaps = dataset.psaps;
  const resolution = options.resolution ?? (psaps.length < 2_000 ? 2 : psaps.length > 100_000 ? 4 : 3);
  if (!Number.isInteger(resolution) || resolution < 2 || resolution > 4) {
    throw new RangeError("resolution must be 2, 3 or 4");
  }
  const topN = options.topN ?? PSAP_LIMITS.maxResults;
  const maxKm = PSAP_LIMITS.maxDistanceKm;
  const tolKm = PSAP_LIMITS.maxBorderToleranceM / 1000;
  const now = options.now ?? new Date();
  const version = options.version ?? newVersion(now);

  const indexOf = new Map<string, number>();
  psaps.forEach((p, i) => {
    if (indexOf.has(p.id)) throw new Error(`duplicate PSAP id ${p.id}`);
    if (!Number.isFinite(p.latitude) || !Number.isFinite(p.longitude) || Math.abs(p.latitude) > 90) {
      throw new Error(`PSAP ${p.id} has no valid coordinates`);
    }
    indexOf.set(p.id, i);
  });
  const byType: [number[], number[]] = [[], []];
  psaps.forEach((p, i) => {
    byType[p.type === "primary" ? 0 : 1].push(i);
  });
  const kds = [kdIndex(psaps, byType[0]), kdIndex(psaps, byType[1])] as const;

  const areas: PreparedArea[] = [];
  for (const a of dataset.areas) {
    const encoded = encodeRings(a.rings);
    if (encoded.length === 0) continue;
    const members: [number[], number[]] = [[], []];
    for (const id of new Set(a.psapIds)) {
      const i = indexOf.get(id);
      if (i !== undefined) members[(psaps[i] as IndexedPsap).type === "primary" ? 0 : 1].push(i);
    }
    if (members[0].length + members[1].length === 0) continue;
    areas.push({ id: a.id, kind: a.kind, encoded, geometry: decodeRings(encoded), members });
  }

  const buckets = new Map<string, string>();
  let totalChars = 0;
  let maxBucketChars = 0;
  const rBound = MAX_CELL_RADIUS_KM[resolution] ?? Number.POSITIVE_INFINITY;
  const nearestKm = (lat: number, lon: number): number => {
    let best = Number.POSITIVE_INFINITY;
    for (const t of [0, 1] as const) {
      const k = kds[t] ? around(kds[t], lon, lat, 1)[0] : undefined;
      const p = k === undefined ? undefined : psaps[byType[t][k] as number];
      if (p) best = Math.min(best, haversineKm(lat, lon, p.latitude, p.longitude));
    }
    return best;
  };
  // Flood fill from the PSAPs' own cells instead of scanning the globe. Complete: for a cell whose
  // centre is within maxKm + r of a PSAP p, the cells a geodesic from that centre to p crosses are
  // adjacent one to the next (three cells meet at every H3 vertex) and their centres are within
  // maxKm + 2r of p, so all lie in the region the fill walks (centres within maxKm + 3 rBound).
  const queue = [...new Set(psaps.map((p) => latLngToCell(p.latitude, p.longitude, resolution)))];
  const visited = new Set(queue);
  while (queue.length > 0) {
    const cell = queue.pop() as string;
    const [lat, lon] = cellToLatLng(cell);
    const dMin = nearestKm(lat, lon);
    if (dMin > maxKm + 3 * rBound) continue;
    for (const next of gridDisk(cell, 1)) {
      if (!visited.has(next)) {
        visited.add(next);
        queue.push(next);
      }
    }
    if (dMin > maxKm + rBound + 1) continue; // walked through, but nothing within reach of the cell
    const rKm = cellRadiusKm(cell);
    const nearest = [
      ...nearestCandidates(psaps, byType[0], kds[0], lat, lon, rKm, topN, maxKm),
      ...nearestCandidates(psaps, byType[1], kds[1], lat, lon, rKm, topN, maxKm),
    ];
    if (nearest.length === 0) continue; // nothing within maxDistance of any point of the cell

    const local = new Map<number, number>();
    const bucket: BucketJson = { p: [], n: [], a: [] };
    const localIndex = (i: number): number => {
      let k = local.get(i);
      if (k === undefined) {
        k = bucket.p.length;
        local.set(i, k);
        bucket.p.push(psapToTuple(psaps[i] as IndexedPsap));
      }
      return k;
    };
    bucket.n = nearest.map(localIndex);

    const box = reachBox(lat, lon, rKm, tolKm);
    for (const area of areas) {
      const g = area.geometry;
      if (g.maxLat < box.minLat || g.minLat > box.maxLat) continue;
      if (!box.full) {
        const shift = lonShiftToward(g, lon);
        if (g.maxLon + shift < box.minLon || g.minLon + shift > box.maxLon) continue;
      }
      const members = [
        ...areaCandidates(psaps, area.members[0], lat, lon, rKm, topN, maxKm),
        ...areaCandidates(psaps, area.members[1], lat, lon, rKm, topN, maxKm),
      ];
      if (members.length === 0) continue;
      bucket.a.push(encodeArea(area.kind, area.id, area.encoded, members.map(localIndex)));
    }
    const text = JSON.stringify(bucket);
    totalChars += text.length;
    if (text.length > maxBucketChars) maxBucketChars = text.length;
    buckets.set(bucketKey(version, cell), text);
  }

  const manifest: IndexManifest = {
    format: FORMAT,
    version,
    data_version: dataset.dataVersion,
    resolution,
    top_n: topN,
    max_tolerance_km: tolKm,
    max_distance_km: maxKm,
    created_at: now.toISOString(),
    psaps: psaps.length,
    buckets: buckets.size,
    cells: [...buckets.keys()].map((key) => key.slice(bucketKey(version, "").length)).sort(),
    previous: options.previous ?? [],
  };
  return {
    manifest,
    pointerKey: POINTER_KEY,
    pointerValue: JSON.stringify(manifest),
    buckets,
    stats: {
      cellsScanned: visited.size,
      buckets: buckets.size,
      totalChars,
      maxBucketChars,
      buildMs: Date.now() - started,
    },
  };
}
