// The tree of H3 cells and its entries: roots found by a flood fill from the PSAPs' own cells, each node
// a leaf with one entry, or split into its 7 children when its entry would be too big.
import { cellToChildren, cellToLatLng, gridDisk, latLngToCell } from "h3-js";
import { entryKey } from "../../lib/psap-index/format.ts";
import { h3Digit, nodeName, TREE_ARITY } from "../../lib/psap-index/tree.ts";
import type { BuildContext } from "./build-context.ts";
import { nearestKm } from "./candidates.ts";
import { nodeRadiusKm } from "./cells.ts";
import { composeEntry } from "./compose-entry.ts";

export interface BuiltTree {
  /** Per root cell, its subtree's code (tree.ts). */
  tree: Map<string, string>;
  /** Versioned entry keys and their values. */
  entries: Map<string, string>;
  totalBytes: number;
  largest: number;
  nodesVisited: number;
  leavesByResolution: Record<number, number>;
}

/** Builds the node at `cell` (a root's descendant named by `digits`): its code, its leaves' entries. */
function buildNode(
  ctx: BuildContext,
  out: BuiltTree,
  version: string,
  node: { cell: string; res: number; root: string; digits: string },
): string {
  out.nodesVisited++;
  const { cell, res, root, digits } = node;
  const canSplit = res < ctx.rMax;
  const text = composeEntry(ctx, cell, res, !canSplit);
  if (text === null) return "E";
  if (text !== "too-big" && (text.length <= ctx.maxEntryBytes || !canSplit)) {
    out.entries.set(entryKey(version, nodeName(root, digits)), text);
    out.totalBytes += text.length;
    out.largest = Math.max(out.largest, text.length);
    out.leavesByResolution[res] = (out.leavesByResolution[res] ?? 0) + 1;
    return "L";
  }
  // One subtree per digit, in digit order; a pentagon has no digit 1.
  const slots: string[] = Array.from({ length: TREE_ARITY }, () => "E");
  for (const child of cellToChildren(cell, res + 1)) {
    const d = h3Digit(child, res + 1);
    slots[d] = buildNode(ctx, out, version, { cell: child, res: res + 1, root, digits: `${digits}${d}` });
  }
  const code = `S${slots.join("")}`;
  return /^SE+$/.test(code) ? "E" : code;
}

/**
 * Roots: flood fill at the root resolution from the PSAPs' own cells. Complete: the cells a geodesic
 * from a root within reach to its PSAP crosses are adjacent one to the next, and all lie within
 * maxKm + 2 * radius of that PSAP, which the walk covers.
 */
export function buildTree(ctx: BuildContext, r0: number, version: string): BuiltTree {
  const out: BuiltTree = {
    tree: new Map(),
    entries: new Map(),
    totalBytes: 0,
    largest: 0,
    nodesVisited: 0,
    leavesByResolution: {},
  };
  const rootRadius = nodeRadiusKm(latLngToCell(0, 0, r0), r0, ctx.rMax) * 1.1;
  const queue = [...new Set(ctx.psaps.map((p) => latLngToCell(p.latitude, p.longitude, r0)))];
  const visited = new Set(queue);
  while (queue.length > 0) {
    const cell = queue.pop() as string;
    const [lat, lon] = cellToLatLng(cell);
    const dMin = nearestKm(ctx, lat, lon);
    if (dMin > ctx.maxKm + 3 * rootRadius) continue;
    for (const next of gridDisk(cell, 1)) {
      if (!visited.has(next)) {
        visited.add(next);
        queue.push(next);
      }
    }
    if (dMin > ctx.maxKm + nodeRadiusKm(cell, r0, ctx.rMax) + 1) continue;
    const code = buildNode(ctx, out, version, { cell, res: r0, root: cell, digits: "" });
    if (code !== "E") out.tree.set(cell, code);
  }
  return out;
}
