// One leaf's entry: its nearest candidates, and every area within reach clipped to the leaf's box, with
// the members that can rank there (see the proofs at the top of build.ts).
import { cellToLatLng } from "h3-js";
import { clipPolygon } from "lineclip";
import { type EntryDraft, encodeEntry, jurisdictionRank, psapToTuple } from "../../lib/psap-index/format.ts";
import { haversineKm } from "../../lib/psap-index/geo.ts";
import { encodeRingsWithBox, lonShiftToward, QUANTUM } from "../../lib/psap-index/geometry.ts";
import { type ReachBox, reachBox } from "./area-box-grid.ts";
import { type BuildContext, EPS_KM, type PreparedArea } from "./build-context.ts";
import { nearestCandidates } from "./candidates.ts";
import { nodeRadiusKm } from "./cells.ts";
import type { IndexedPsap } from "./dataset.ts";

/** Clipping margin beyond the largest tolerance: edges the clipping adds stay out of every tolerance. */
const CLIP_MARGIN_KM = 0.5;
const STATE_RANK = jurisdictionRank("state");

/** The area's rings inside the box (in the node's longitude frame), encoded, and their storage box; null when nothing is left. */
function clipArea(
  area: PreparedArea,
  box: ReachBox,
  centreLon: number,
): { rings: string[]; box: number[] } | null {
  const g = area.geometry;
  const shift = lonShiftToward(g, centreLon);
  if (g.maxLat < box.minLat || g.minLat > box.maxLat) return null;
  if (!box.full && (g.maxLon + shift < box.minLon || g.minLon + shift > box.maxLon)) return null;
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
  const encoded = encodeRingsWithBox(rings);
  return encoded.box ? { rings: encoded.rings, box: encoded.box } : null;
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

/** Indexes into the entry's PSAP tuples, each PSAP added the first time an index is asked for. */
class LocalPsaps {
  readonly #local = new Map<number, number>();
  readonly #psaps: readonly IndexedPsap[];
  readonly #entry: EntryDraft;

  constructor(psaps: readonly IndexedPsap[], entry: EntryDraft) {
    this.#psaps = psaps;
    this.#entry = entry;
  }

  index(i: number): number {
    let k = this.#local.get(i);
    if (k === undefined) {
      k = this.#entry.p.length;
      this.#local.set(i, k);
      this.#entry.p.push(psapToTuple(this.#psaps[i] as IndexedPsap));
    }
    return k;
  }
}

/**
 * The entry a leaf at `cell` would get, or null when no PSAP is within reach of it, or "too-big" when a
 * cheap estimate (not `full`) already says it cannot fit.
 */
export function composeEntry(
  ctx: BuildContext,
  cell: string,
  res: number,
  full: boolean,
): string | null | "too-big" {
  const [lat, lon] = cellToLatLng(cell);
  const rKm = nodeRadiusKm(cell, res, ctx.rMax);
  const nearest = nearestCandidates(ctx, cell, res);
  if (nearest.length === 0) return null;
  const box = reachBox(lat, lon, rKm, ctx.tolKm + CLIP_MARGIN_KM);
  const near = [...ctx.grid.near(box)].sort((a, b) => a - b);
  if (!full) {
    // Cheap estimate first: a node far too big for one entry is split without clipping anything.
    let vertices = 0;
    for (const i of near) vertices += (ctx.areas[i] as PreparedArea).vertices;
    if (vertices * 6 > ctx.maxEntryBytes * 8) return "too-big";
  }
  const entry: EntryDraft = { c: [lat, lon], p: [], n: [], d: [], a: [] };
  const local = new LocalPsaps(ctx.psaps, entry);
  // Primaries then secondaries, each nearest to the centre first, with a lower bound of that distance
  // (whole metres, rounded down): a lookup stops reading once no later candidate can come closer.
  const byCentre = nearest
    .map((i) => {
      const p = ctx.psaps[i] as IndexedPsap;
      return { i, type: p.type === "primary" ? 0 : 1, km: haversineKm(lat, lon, p.latitude, p.longitude) };
    })
    .sort((a, b) => a.type - b.type || a.km - b.km);
  entry.n = byCentre.map((x) => local.index(x.i));
  entry.d = byCentre.map((x) => Math.max(0, Math.floor(x.km * 1000) - 1));
  addAreas(ctx, entry, local, near, { lat, lon, rKm, box });
  return encodeEntry(entry);
}

/** The areas of the entry: each clipped to the leaf's box, with the members that can rank from it. */
function addAreas(
  ctx: BuildContext,
  entry: EntryDraft,
  local: LocalPsaps,
  near: readonly number[],
  leaf: { lat: number; lon: number; rKm: number; box: ReachBox },
): void {
  const kept: { area: PreparedArea; rings: string[]; box: number[]; members: number[] }[] = [];
  const keptPrimaries = new Set<string>();
  for (const i of near) {
    const area = ctx.areas[i] as PreparedArea;
    const clipped = clipArea(area, leaf.box, leaf.lon);
    if (!clipped) continue;
    const members = rankableMembers(
      ctx.psaps,
      area.members,
      leaf.lat,
      leaf.lon,
      leaf.rKm,
      ctx.topN,
      ctx.maxKm,
    );
    for (const m of members) {
      const p = ctx.psaps[m] as IndexedPsap;
      if (p.type === "primary") keptPrimaries.add(p.id);
    }
    kept.push({ area, ...clipped, members });
  }
  for (const { area, rings, box, members } of kept) {
    // A secondary ranks right after its primary when both are in the same part: keep it whenever
    // that primary can be returned from this entry at all.
    const attached = area.members.filter((m) => {
      const p = ctx.psaps[m] as IndexedPsap;
      return (
        p.type === "secondary" &&
        p.handled_by !== null &&
        keptPrimaries.has(p.handled_by) &&
        !members.includes(m)
      );
    });
    const list = [...members, ...attached].sort((a, b) => a - b);
    entry.a.push([area.kind, area.id, area.name, area.state, box, rings, list.map((m) => local.index(m))]);
  }
}
