// Builds the PSAP index from a data set, in memory: a tree of H3 cells whose leaves each get one entry
// holding everything a lookup anywhere in that leaf needs, ready to rank (no preparation per request).
//
// Why one entry is enough (c is a leaf's centre, B a bound on how far any fix it covers is from c,
// see cells.ts; q is any such fix, so d(q, c) <= B):
// - Nearest, per type: let d_N(c) be the distance from c to its N-th nearest PSAP of that type. The
//   N nearest to q are all within d_N(c) + B of q, so within d_N(c) + 2B of c, ties included. Nothing
//   beyond maxDistance of q is returned, so nothing beyond maxDistance + B of c is needed either.
//   PSAPs already ranked through an area leave N - k slots, and those are filled from the N nearest.
// - Areas: a fix within the tolerance t <= maxTolerance of an area lies in the area's box grown by t,
//   so the entry keeps every area that meets the box of all points within maxTolerance of the leaf,
//   clipped to that box grown a little more: inside the box the clipped shape is the same region, and
//   the edges the clipping adds lie farther from any fix of the leaf than any tolerance, so the inside
//   test and every border distance that can matter come out as on the whole shape.
// - Area members: every member within maxDistance + B of c (an area's members are its answering
//   centres and the PSAPs registered in it: a handful, so none is pruned beyond that).
// A leaf whose entry would exceed `maxEntryBytes` is split into its 7 children, down to `maxResolution`.

import { around } from "geokdbush";
import { cellToChildren, cellToLatLng, gridDisk, latLngToCell } from "h3-js";
import KDBush from "kdbush";
import { clipPolygon } from "lineclip";
import { PSAP_LIMITS } from "../../src/config.ts";
import {
  AREA_BOUNDARY,
  AREA_CITY,
  AREA_COMMUNITY,
  AREA_COUNTY,
  AREA_TOWN,
  type AreaKindCode,
  type EntryDraft,
  encodeEntry,
  encodeManifest,
  entryKey,
  FORMAT,
  type IndexManifest,
  jurisdictionRank,
  POINTER_KEY,
  psapToTuple,
} from "../../src/psap/format.ts";
import { EARTH_RADIUS_KM, haversineKm, KM_PER_DEGREE } from "../../src/psap/geo.ts";
import {
  type AreaGeometry,
  decodeRings,
  encodeRings,
  lonShiftToward,
  QUANTUM,
  storageBox,
} from "../../src/psap/geometry.ts";
import { h3Digit, nodeName, TREE_ARITY, treeText } from "../../src/psap/tree.ts";
import { buildCatalogue } from "./catalogue.ts";
import { nodeRadiusKm } from "./cells.ts";
import type { AreaKind, IndexedPsap, PsapDataset } from "./dataset.ts";

export interface BuildOptions {
  /** Resolution of the tree's roots. Default 2. */
  rootResolution?: number;
  /** Deepest resolution a leaf may have. Default 7. */
  maxResolution?: number;
  /** A leaf whose entry is larger than this is split (unless already at maxResolution). */
  maxEntryBytes?: number;
  /** Most records a lookup may ask for. Default PSAP_LIMITS.maxResults. */
  topN?: number;
  /** Largest border tolerance the entries are exact for, km. Default PSAP_LIMITS.maxBorderToleranceKm. */
  maxToleranceKm?: number;
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
  /** Versioned entry keys and their values (format.ts's encodeEntry); write all of them (and the catalogue) before the pointer. */
  entries: Map<string, string>;
  /** The admin catalogue's keys and values. */
  catalogue: Map<string, string>;
  stats: {
    entries: number;
    totalBytes: number;
    maxEntryBytes: number;
    nodesVisited: number;
    leavesByResolution: Record<number, number>;
    buildMs: number;
  };
}

const EPS_KM = 1e-6;
const STATE_RANK = jurisdictionRank("state");
/** geokdbush measures on a 6371 km sphere; convert our radii to its scale (with slack, then re-check). */
const KD_SCALE = (6371 / EARTH_RADIUS_KM) * (1 + 1e-9);
/** Clipping margin beyond the largest tolerance: edges the clipping adds stay out of every tolerance. */
const CLIP_MARGIN_KM = 0.5;
const KIND_CODE: Readonly<Record<AreaKind, AreaKindCode>> = {
  boundary: AREA_BOUNDARY,
  city: AREA_CITY,
  community: AREA_COMMUNITY,
  county: AREA_COUNTY,
  town: AREA_TOWN,
};

interface PreparedArea {
  kind: AreaKindCode;
  id: string;
  name: string;
  state: string | null;
  geometry: AreaGeometry;
  vertices: number;
  /** Member PSAP indexes. */
  members: number[];
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

/** Box (degrees) holding every point within `extraKm` (equirectangular, as geometry.ts measures) of any point of the cap. */
function reachBox(lat: number, lon: number, rKm: number, extraKm: number) {
  const rDeg = rKm / KM_PER_DEGREE;
  const tDeg = extraKm / KM_PER_DEGREE;
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

/** A coarse grid over area bounding boxes, so a node only looks at the areas near it. */
class AreaGrid {
  readonly #cells = new Map<number, number[]>();

  constructor(areas: readonly PreparedArea[]) {
    areas.forEach((a, i) => {
      const g = a.geometry;
      const lons = g.maxLon - g.minLon >= 359 ? [-180, 179] : [Math.floor(g.minLon), Math.floor(g.maxLon)];
      for (let x = lons[0] as number; x <= (lons[1] as number); x++) {
        for (let y = Math.floor(g.minLat); y <= Math.floor(g.maxLat); y++) this.#add(x, y, i);
      }
    });
  }

  #key(x: number, y: number): number {
    const wx = ((((x + 180) % 360) + 360) % 360) - 180;
    return (y + 90) * 360 + (wx + 180);
  }

  #add(x: number, y: number, i: number): void {
    const key = this.#key(x, y);
    const list = this.#cells.get(key);
    if (list) list.push(i);
    else this.#cells.set(key, [i]);
  }

  near(box: ReturnType<typeof reachBox>): Set<number> {
    const found = new Set<number>();
    const lons = box.full ? [-180, 179] : [Math.floor(box.minLon), Math.floor(box.maxLon)];
    for (let x = lons[0] as number; x <= (lons[1] as number); x++) {
      for (
        let y = Math.floor(Math.max(-90, box.minLat));
        y <= Math.floor(Math.min(89.999, box.maxLat));
        y++
      ) {
        for (const i of this.#cells.get(this.#key(x, y)) ?? []) found.add(i);
      }
    }
    return found;
  }
}

/** The area's rings inside the box (in the node's longitude frame), encoded; empty when nothing is left. */
function clipArea(area: PreparedArea, box: ReturnType<typeof reachBox>, centreLon: number): string[] {
  const g = area.geometry;
  const shift = lonShiftToward(g, centreLon);
  if (g.maxLat < box.minLat || g.minLat > box.maxLat) return [];
  if (!box.full && (g.maxLon + shift < box.minLon || g.minLon + shift > box.maxLon)) return [];
  // The box on the storage grid, widened outward, so that cut points on its sides are exact.
  const q = (v: number, up: boolean) => (up ? Math.ceil(v * QUANTUM) : Math.floor(v * QUANTUM)) / QUANTUM;
  const bbox: [number, number, number, number] = box.full
    ? [g.minLon + shift - 1, q(box.minLat, false), g.maxLon + shift + 1, q(box.maxLat, true)]
    : [q(box.minLon, false), q(box.minLat, false), q(box.maxLon, true), q(box.maxLat, true)];
  const rings: [number, number][][] = [];
  for (const ring of g.rings) {
    const points: [number, number][] = [];
    for (let i = 0; i + 1 < ring.length; i += 2)
      points.push([(ring[i] as number) + shift, ring[i + 1] as number]);
    const clipped = clipPolygon(points, bbox) as [number, number][];
    if (clipped.length >= 3) rings.push(clipped);
  }
  return encodeRings(rings);
}

/**
 * The members of an area that can rank in the first N for some fix of the node (centre lat/lon, radius
 * rKm). Within one part, members of the same type are ordered by (jurisdiction, distance, id), and a
 * secondary that follows no primary comes after every one that does: so a member preceded, for every
 * fix, by N members of the same type of the same area is never returned. Per (type, jurisdiction):
 * drop the class if N members of a lower jurisdiction are always reachable, else keep the class's
 * members within d_N + 2r of the centre (the nearest-PSAP argument, class by class). A statewide
 * centre (`state`) comes first of all wherever an area holding it contains the fix: its class is never
 * dropped for the members before it in the jurisdiction order.
 */
function rankableMembers(
  psaps: readonly IndexedPsap[],
  members: readonly number[],
  lat: number,
  lon: number,
  rKm: number,
  topN: number,
  maxKm: number,
): number[] {
  const dist = new Map<number, number>();
  for (const m of members) {
    const p = psaps[m] as IndexedPsap;
    const d = haversineKm(lat, lon, p.latitude, p.longitude);
    if (d <= maxKm + rKm + EPS_KM) dist.set(m, d);
  }
  const classes = new Map<string, number[]>();
  for (const m of dist.keys()) {
    const p = psaps[m] as IndexedPsap;
    const key = `${p.type}:${jurisdictionRank(p.jurisdiction)}`;
    classes.set(key, [...(classes.get(key) ?? []), m]);
  }
  const out: number[] = [];
  for (const [key, list] of classes) {
    const [type, j] = [key.split(":")[0], Number(key.split(":")[1])];
    let always = 0; // lower-jurisdiction members of the same type that every fix of the node can reach
    for (const [m, d] of dist) {
      const p = psaps[m] as IndexedPsap;
      if (p.type === type && jurisdictionRank(p.jurisdiction) < j && d + rKm <= maxKm) always++;
    }
    if (always >= topN && j !== STATE_RANK) continue;
    const sorted = list.map((m) => dist.get(m) as number).sort((a, b) => a - b);
    const dN = sorted.length >= topN ? (sorted[topN - 1] as number) : Number.POSITIVE_INFINITY;
    const reach = Math.min(dN + 2 * rKm, maxKm + rKm) + EPS_KM;
    for (const m of list) if ((dist.get(m) as number) <= reach) out.push(m);
  }
  return out;
}

/** Builds every entry, the catalogue and the pointer of a new index version. Pure: writes nothing. */
export function buildIndex(dataset: PsapDataset, options: BuildOptions = {}): BuiltIndex {
  const started = Date.now();
  const psaps = dataset.psaps;
  const r0 = options.rootResolution ?? 2;
  const rMax = options.maxResolution ?? 7;
  if (!Number.isInteger(r0) || !Number.isInteger(rMax) || r0 < 2 || rMax > 7 || r0 > rMax) {
    throw new RangeError("resolutions must satisfy 2 <= rootResolution <= maxResolution <= 7");
  }
  const maxEntryBytes = options.maxEntryBytes ?? 96_000;
  const topN = options.topN ?? PSAP_LIMITS.maxResults;
  const maxKm = PSAP_LIMITS.maxDistanceKm;
  const tolKm = options.maxToleranceKm ?? PSAP_LIMITS.maxBorderToleranceKm;
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
    const members = [...new Set(a.psapIds)].flatMap((id) => {
      const i = indexOf.get(id);
      return i === undefined ? [] : [i];
    });
    const geometry = decodeRings(encoded);
    const vertices = geometry.rings.reduce((n, r) => n + r.length / 2, 0);
    areas.push({
      kind: KIND_CODE[a.kind],
      id: a.id,
      name: a.name,
      state: a.state,
      geometry,
      vertices,
      members,
    });
  }
  const grid = new AreaGrid(areas);

  const nearestOfType = (t: 0 | 1, lat: number, lon: number, rKm: number): number[] => {
    const kd = kds[t];
    const ids = byType[t];
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
  };

  /**
   * The nearest candidates of a node: the union, over its descendants two levels down, of each one's
   * d_N + 2r set. Every fix of the node lies in one of them, so this is as exact as the node's own set,
   * and far smaller: the margin grows with a descendant's radius, not the node's.
   */
  const nearestCandidates = (cell: string, res: number): number[] => {
    const subRes = Math.min(res + 2, rMax);
    const parts = subRes === res ? [cell] : cellToChildren(cell, subRes);
    const found = new Set<number>();
    for (const part of parts) {
      const [pLat, pLon] = cellToLatLng(part);
      const r = nodeRadiusKm(part, subRes, rMax);
      for (const t of [0, 1] as const) for (const i of nearestOfType(t, pLat, pLon, r)) found.add(i);
    }
    return [...found];
  };

  const entries = new Map<string, string>();
  const leavesByResolution: Record<number, number> = {};
  let totalBytes = 0;
  let largest = 0;
  let nodesVisited = 0;

  /** The entry a leaf at `cell` would get, or null when no PSAP is within reach of it. */
  const composeEntry = (cell: string, res: number, full: boolean): string | null | "too-big" => {
    const [lat, lon] = cellToLatLng(cell);
    const rKm = nodeRadiusKm(cell, res, rMax);
    const nearest = nearestCandidates(cell, res);
    if (nearest.length === 0) return null;
    const box = reachBox(lat, lon, rKm, tolKm + CLIP_MARGIN_KM);
    const near = [...grid.near(box)].sort((a, b) => a - b);
    if (!full) {
      // Cheap estimate first: a node far too big for one entry is split without clipping anything.
      let vertices = 0;
      for (const i of near) vertices += (areas[i] as PreparedArea).vertices;
      if (vertices * 6 > maxEntryBytes * 8) return "too-big";
    }
    const local = new Map<number, number>();
    const entry: EntryDraft = { c: [lat, lon], p: [], n: [], d: [], a: [] };
    const localIndex = (i: number): number => {
      let k = local.get(i);
      if (k === undefined) {
        k = entry.p.length;
        local.set(i, k);
        entry.p.push(psapToTuple(psaps[i] as IndexedPsap));
      }
      return k;
    };
    // Primaries then secondaries, each nearest to the centre first, with a lower bound of that distance
    // (whole metres, rounded down): a lookup stops reading once no later candidate can come closer.
    const byCentre = nearest
      .map((i) => {
        const p = psaps[i] as IndexedPsap;
        return { i, type: p.type === "primary" ? 0 : 1, km: haversineKm(lat, lon, p.latitude, p.longitude) };
      })
      .sort((a, b) => a.type - b.type || a.km - b.km);
    entry.n = byCentre.map((x) => localIndex(x.i));
    entry.d = byCentre.map((x) => Math.max(0, Math.floor(x.km * 1000) - 1));
    const kept: { area: PreparedArea; rings: string[]; members: number[] }[] = [];
    const keptPrimaries = new Set<string>();
    for (const i of near) {
      const area = areas[i] as PreparedArea;
      const rings = clipArea(area, box, lon);
      if (rings.length === 0) continue;
      const members = rankableMembers(psaps, area.members, lat, lon, rKm, topN, maxKm);
      for (const m of members)
        if ((psaps[m] as IndexedPsap).type === "primary") keptPrimaries.add((psaps[m] as IndexedPsap).id);
      kept.push({ area, rings, members });
    }
    for (const { area, rings, members } of kept) {
      // A secondary ranks right after its primary when both are in the same part: keep it whenever
      // that primary can be returned from this entry at all.
      const attached = area.members.filter((m) => {
        const p = psaps[m] as IndexedPsap;
        return (
          p.type === "secondary" &&
          p.handled_by !== null &&
          keptPrimaries.has(p.handled_by) &&
          !members.includes(m)
        );
      });
      const list = [...members, ...attached].sort((a, b) => a - b);
      const box = storageBox(decodeRings(rings));
      entry.a.push([area.kind, area.id, area.name, area.state, box, rings, list.map(localIndex)]);
    }
    return encodeEntry(entry);
  };

  const buildNode = (cell: string, res: number, root: string, digits: string): string => {
    nodesVisited++;
    const canSplit = res < rMax;
    const text = composeEntry(cell, res, !canSplit);
    if (text === null) return "E";
    if (text !== "too-big" && (text.length <= maxEntryBytes || !canSplit)) {
      entries.set(entryKey(version, nodeName(root, digits)), text);
      totalBytes += text.length;
      largest = Math.max(largest, text.length);
      leavesByResolution[res] = (leavesByResolution[res] ?? 0) + 1;
      return "L";
    }
    // One subtree per digit, in digit order; a pentagon has no digit 1.
    const slots: string[] = Array.from({ length: TREE_ARITY }, () => "E");
    for (const child of cellToChildren(cell, res + 1)) {
      const d = h3Digit(child, res + 1);
      slots[d] = buildNode(child, res + 1, root, `${digits}${d}`);
    }
    const code = `S${slots.join("")}`;
    return /^SE+$/.test(code) ? "E" : code;
  };

  // Roots: flood fill at the root resolution from the PSAPs' own cells. Complete: the cells a geodesic
  // from a root within reach to its PSAP crosses are adjacent one to the next, and all lie within
  // maxKm + 2 * radius of that PSAP, which the walk covers.
  const rootRadius = nodeRadiusKm(latLngToCell(0, 0, r0), r0, rMax) * 1.1;
  const nearestKm = (lat: number, lon: number): number => {
    let best = Number.POSITIVE_INFINITY;
    for (const t of [0, 1] as const) {
      const k = kds[t] ? around(kds[t], lon, lat, 1)[0] : undefined;
      const p = k === undefined ? undefined : psaps[byType[t][k] as number];
      if (p) best = Math.min(best, haversineKm(lat, lon, p.latitude, p.longitude));
    }
    return best;
  };
  const queue = [...new Set(psaps.map((p) => latLngToCell(p.latitude, p.longitude, r0)))];
  const visited = new Set(queue);
  const tree = new Map<string, string>();
  while (queue.length > 0) {
    const cell = queue.pop() as string;
    const [lat, lon] = cellToLatLng(cell);
    const dMin = nearestKm(lat, lon);
    if (dMin > maxKm + 3 * rootRadius) continue;
    for (const next of gridDisk(cell, 1)) {
      if (!visited.has(next)) {
        visited.add(next);
        queue.push(next);
      }
    }
    if (dMin > maxKm + nodeRadiusKm(cell, r0, rMax) + 1) continue;
    const code = buildNode(cell, r0, cell, "");
    if (code !== "E") tree.set(cell, code);
  }

  const catalogue = buildCatalogue(dataset, version);
  const manifest: IndexManifest = {
    format: FORMAT,
    version,
    data_version: dataset.dataVersion,
    created_at: now.toISOString(),
    psaps: psaps.length,
    entries: entries.size,
    top_n: topN,
    max_distance_km: maxKm,
    max_tolerance_km: tolKm,
    root_resolution: r0,
    max_resolution: rMax,
    tree: treeText(new Map([...tree].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))),
    previous: options.previous ?? [],
  };
  return {
    manifest,
    pointerKey: POINTER_KEY,
    pointerValue: encodeManifest(manifest),
    entries,
    catalogue,
    stats: {
      entries: entries.size,
      totalBytes,
      maxEntryBytes: largest,
      nodesVisited,
      leavesByResolution,
      buildMs: Date.now() - started,
    },
  };
}
