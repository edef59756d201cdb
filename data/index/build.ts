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

import { PSAP_LIMITS } from "../../lib/config.ts";
import { encodeManifest, FORMAT, type IndexManifest, POINTER_KEY } from "../../lib/psap-index/format.ts";
import { treeText } from "../../lib/psap-index/tree.ts";
import { buildContext } from "./build-context.ts";
import { buildCatalogue } from "./catalogue.ts";
import type { PsapDataset } from "./dataset.ts";
import { buildTree } from "./tree-build.ts";

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

function newVersion(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  const rnd = new Uint8Array(3);
  crypto.getRandomValues(rnd);
  return `${stamp}-${[...rnd].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Builds every entry, the catalogue and the pointer of a new index version. Pure: writes nothing. */
export function buildIndex(dataset: PsapDataset, options: BuildOptions = {}): BuiltIndex {
  const started = Date.now();
  const r0 = options.rootResolution ?? 2;
  const rMax = options.maxResolution ?? 7;
  if (!Number.isInteger(r0) || !Number.isInteger(rMax) || r0 < 2 || rMax > 7 || r0 > rMax) {
    throw new RangeError("resolutions must satisfy 2 <= rootResolution <= maxResolution <= 7");
  }
  const ctx = buildContext(dataset, {
    topN: options.topN ?? PSAP_LIMITS.maxResults,
    maxKm: PSAP_LIMITS.maxDistanceKm,
    tolKm: options.maxToleranceKm ?? PSAP_LIMITS.maxBorderToleranceKm,
    rMax,
    maxEntryBytes: options.maxEntryBytes ?? 96_000,
  });
  const now = options.now ?? new Date();
  const version = options.version ?? newVersion(now);
  const built = buildTree(ctx, r0, version);
  const manifest: IndexManifest = {
    format: FORMAT,
    version,
    data_version: dataset.dataVersion,
    created_at: now.toISOString(),
    psaps: ctx.psaps.length,
    entries: built.entries.size,
    top_n: ctx.topN,
    max_distance_km: ctx.maxKm,
    max_tolerance_km: ctx.tolKm,
    root_resolution: r0,
    max_resolution: rMax,
    tree: treeText(new Map([...built.tree].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))),
    previous: options.previous ?? [],
  };
  return {
    manifest,
    pointerKey: POINTER_KEY,
    pointerValue: encodeManifest(manifest),
    entries: built.entries,
    catalogue: buildCatalogue(dataset, version),
    stats: {
      entries: built.entries.size,
      totalBytes: built.totalBytes,
      maxEntryBytes: built.largest,
      nodesVisited: built.nodesVisited,
      leavesByResolution: built.leavesByResolution,
      buildMs: Date.now() - started,
    },
  };
}
