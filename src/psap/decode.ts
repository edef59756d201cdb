// Turns an entry's stored text into what the ranking reads, once, when the entry is read (then cached).
// An area's rings are decoded the first time a fix falls within its bounding box, never before.
import { parseEntry, tupleToPsap } from "./format.ts";
import { KM_PER_DEGREE } from "./geo.ts";
import { QUANTUM } from "./geometry.ts";
import { type AreaGrid, type EntryArea, jurisdictionRanks, type RankableEntry } from "./rank.ts";

/** Cells per side of the grid that finds an entry's areas near a fix. */
const GRID = 8;

/**
 * Throws MalformedIndexError when the text is not an entry the builder wrote. `maxToleranceKm` is the
 * largest border tolerance a lookup applies (the manifest's): the area grid reaches that far.
 */
export function decodeEntry(text: string, maxToleranceKm: number): RankableEntry {
  const json = parseEntry(text);
  const psaps = json.p.map(tupleToPsap);
  const areas: EntryArea[] = json.a.map(([kind, id, name, state, box, rings, members]) => ({
    kind,
    id,
    name,
    state,
    minLon: (box[0] as number) / QUANTUM,
    minLat: (box[1] as number) / QUANTUM,
    maxLon: (box[2] as number) / QUANTUM,
    maxLat: (box[3] as number) / QUANTUM,
    rings,
    geometry: null,
    members,
  }));
  return {
    psaps,
    jurisdiction: jurisdictionRanks(psaps),
    centre: json.c,
    nearest: json.n,
    nearestBoundM: json.d,
    areas,
    grid: areaGrid(areas, json.c[1], maxToleranceKm),
  };
}

/** Which areas (in entry order) can reach each cell of a grid over the entry's areas. */
function areaGrid(areas: readonly EntryArea[], lon: number, toleranceKm: number): AreaGrid {
  let minLon = Number.POSITIVE_INFINITY;
  let maxLon = Number.NEGATIVE_INFINITY;
  let minLat = Number.POSITIVE_INFINITY;
  let maxLat = Number.NEGATIVE_INFINITY;
  // Every area's box in the entry centre's longitude frame, grown by the largest tolerance.
  const tLat = (toleranceKm / KM_PER_DEGREE) * 1.001 + 1e-6;
  const boxes = areas.map((a) => {
    const shift = -360 * Math.round(((a.minLon + a.maxLon) / 2 - lon) / 360);
    // The smallest cosine over every latitude a fix within the tolerance can have: the widest margin.
    const lo = Math.max(-90, a.minLat - tLat);
    const hi = Math.min(90, a.maxLat + tLat);
    const cos = Math.max(1e-6, Math.min(Math.cos((lo * Math.PI) / 180), Math.cos((hi * Math.PI) / 180)));
    const tLon = Math.min(360, tLat / cos);
    const b = [a.minLon + shift - tLon, a.maxLon + shift + tLon, a.minLat - tLat, a.maxLat + tLat] as const;
    minLon = Math.min(minLon, b[0]);
    maxLon = Math.max(maxLon, b[1]);
    minLat = Math.min(minLat, b[2]);
    maxLat = Math.max(maxLat, b[3]);
    return b;
  });
  const cells: number[][] = Array.from({ length: GRID * GRID }, () => []);
  if (areas.length === 0) return { minLon: 0, maxLon: 0, minLat: 0, maxLat: 0, refLon: lon, cells };
  const cx = (x: number) =>
    Math.min(GRID - 1, Math.max(0, Math.floor(((x - minLon) / (maxLon - minLon || 1)) * GRID)));
  const cy = (y: number) =>
    Math.min(GRID - 1, Math.max(0, Math.floor(((y - minLat) / (maxLat - minLat || 1)) * GRID)));
  boxes.forEach((b, i) => {
    for (let x = cx(b[0]); x <= cx(b[1]); x++)
      for (let y = cy(b[2]); y <= cy(b[3]); y++) cells[y * GRID + x]?.push(i);
  });
  return { minLon, maxLon, minLat, maxLat, refLon: lon, cells };
}

/** The areas that can reach a fix (all of them when it lies outside the grid). */
export function areasNear(entry: RankableEntry, lat: number, lon: number): readonly number[] {
  const g = entry.grid;
  const x = lon - 360 * Math.round((lon - g.refLon) / 360);
  if (x < g.minLon || x > g.maxLon || lat < g.minLat || lat > g.maxLat) return EMPTY;
  const gx = Math.min(
    GRID - 1,
    Math.max(0, Math.floor(((x - g.minLon) / (g.maxLon - g.minLon || 1)) * GRID)),
  );
  const gy = Math.min(
    GRID - 1,
    Math.max(0, Math.floor(((lat - g.minLat) / (g.maxLat - g.minLat || 1)) * GRID)),
  );
  return g.cells[gy * GRID + gx] ?? EMPTY;
}

const EMPTY: readonly number[] = [];
