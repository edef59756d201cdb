// The nearest candidates of a node (docs/contract.md, section 4's nearest group): for a node of centre c and radius r,
// every PSAP within d_N(c) + 2r of c, per type, found through the k-d trees of the build's context.
import { around } from "geokdbush";
import { cellToChildren, cellToLatLng } from "h3-js";
import { EARTH_RADIUS_KM, haversineKm } from "../../lib/psap-index/geo.ts";
import { type BuildContext, EPS_KM } from "./build-context.ts";
import { nodeRadiusKm } from "./cells.ts";
import type { IndexedPsap } from "./dataset.ts";

/** geokdbush measures on a 6371 km sphere; convert our radii to its scale (with slack, then re-check). */
const KD_SCALE = (6371 / EARTH_RADIUS_KM) * (1 + 1e-9);

/** PSAPs of a type (0 primary, 1 secondary) that can be among the N nearest of a fix within rKm of the point. */
export function nearestOfType(ctx: BuildContext, t: 0 | 1, lat: number, lon: number, rKm: number): number[] {
  const kd = ctx.kds[t];
  const ids = ctx.byType[t];
  if (!kd) return [];
  let dN = Number.POSITIVE_INFINITY;
  const firstN = around(kd, lon, lat, ctx.topN);
  if (firstN.length >= ctx.topN) {
    dN = 0;
    for (const k of firstN) {
      const p = ctx.psaps[ids[k] as number] as IndexedPsap;
      dN = Math.max(dN, haversineKm(lat, lon, p.latitude, p.longitude));
    }
  }
  const reach = Math.min(dN + 2 * rKm, ctx.maxKm + rKm) + EPS_KM;
  const out: number[] = [];
  for (const k of around(kd, lon, lat, Number.POSITIVE_INFINITY, reach * KD_SCALE + 1e-6)) {
    const i = ids[k] as number;
    const p = ctx.psaps[i] as IndexedPsap;
    if (haversineKm(lat, lon, p.latitude, p.longitude) <= reach) out.push(i);
  }
  return out;
}

/**
 * The nearest candidates of a node: the union, over its descendants two levels down, of each one's
 * d_N + 2r set. Every fix of the node lies in one of them, so this is as exact as the node's own set,
 * and far smaller: the margin grows with a descendant's radius, not the node's.
 */
export function nearestCandidates(ctx: BuildContext, cell: string, res: number): number[] {
  const subRes = Math.min(res + 2, ctx.rMax);
  const parts = subRes === res ? [cell] : cellToChildren(cell, subRes);
  const found = new Set<number>();
  for (const part of parts) {
    const [pLat, pLon] = cellToLatLng(part);
    const r = nodeRadiusKm(part, subRes, ctx.rMax);
    for (const t of [0, 1] as const) for (const i of nearestOfType(ctx, t, pLat, pLon, r)) found.add(i);
  }
  return [...found];
}

/** Distance to the nearest PSAP of any type, km (infinite when there is none). */
export function nearestKm(ctx: BuildContext, lat: number, lon: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (const t of [0, 1] as const) {
    const kd = ctx.kds[t];
    const k = kd ? around(kd, lon, lat, 1)[0] : undefined;
    const p = k === undefined ? undefined : ctx.psaps[ctx.byType[t][k] as number];
    if (p) best = Math.min(best, haversineKm(lat, lon, p.latitude, p.longitude));
  }
  return best;
}
