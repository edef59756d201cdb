// Turns an entry's stored text into what the ranking reads, once, when the entry is read (then cached).
// Only what every lookup compares is unpacked, into typed arrays: a PSAP becomes a record only when it
// is returned, an area's rings are decoded (in place, from the entry's text) the first time a fix falls
// within its bounding box, and an area is named only when it holds the fix. Decoding allocates little,
// so a burst of cold lookups sets off few garbage collections.
import { type AreaKindCode, type PsapTuple, parseEntry } from "../../lib/psap-index/format.ts";
import { cosOfLatitude, KM_PER_DEGREE } from "../../lib/psap-index/geo.ts";
import { type AreaGeometry, QUANTUM } from "../../lib/psap-index/geometry.ts";

/** An entry as the ranking reads it (rank.ts): decoded once when it is read, then cached (lookup.ts). */
export interface RankableEntry {
  /** The entry's PSAPs as stored (format.ts's tuples): a record is made only for a PSAP returned. */
  psaps: readonly PsapTuple[];
  latitude: Float64Array;
  longitude: Float64Array;
  /** cosOfLatitude of each PSAP's latitude (geo.ts), for the ranking's distances. */
  cosLatitude: Float64Array;
  /** 0 for a primary, 1 for a secondary. */
  secondary: Uint8Array;
  /** Jurisdiction rank of each PSAP (compared on every sort). */
  jurisdiction: Uint8Array;
  /** The leaf's centre [lat, lon]. */
  centre: readonly number[];
  /** Nearest candidates: primaries, then secondaries, each nearest to the centre first... */
  nearest: readonly number[];
  /** ...with a lower bound of that distance, metres. */
  nearestBoundM: readonly number[];
  /** Per area (format.ts's columns): its kind... */
  areaKind: readonly AreaKindCode[];
  /** ...its name and state, two values each... */
  areaNames: readonly (string | null)[];
  /** ...its bounding box in degrees (longitudes unwrapped like its rings): minLon, minLat, maxLon, maxLat... */
  boxes: Float64Array;
  /** ...its ring bounds, `ringBounds[ringBoundsAt[a]]` up to `ringBounds[ringBoundsAt[a + 1]]` (rings in `text`, from `ringsAt` on)... */
  ringBounds: readonly number[];
  ringBoundsAt: readonly number[];
  /** ...and its members, `members[membersAt[a]]` up to `members[membersAt[a + 1]]`. */
  members: readonly number[];
  membersAt: readonly number[];
  /** Per area, its rings, decoded the first time a fix comes near. */
  geometry: (AreaGeometry | undefined)[];
  text: string;
  ringsAt: number;
  /** Which areas can reach each cell of a grid over the entry: a fix tests only its cell's. */
  grid: AreaGrid;
}

/** A grid over an entry's areas: cell k lists (in entry order) the areas `items[starts[k]..starts[k + 1]]`. */
export interface AreaGrid {
  minLon: number;
  maxLon: number;
  minLat: number;
  maxLat: number;
  /** Longitude the grid's frame is unwrapped around. */
  refLon: number;
  starts: Uint32Array;
  items: Uint32Array;
}

/** Cells per side of the grid that finds an entry's areas near a fix. */
const GRID = 8;

/**
 * Throws MalformedIndexError when the text is not an entry the builder wrote. `maxToleranceKm` is the
 * largest border tolerance a lookup applies (the manifest's): the area grid reaches that far.
 */
export function decodeEntry(text: string, maxToleranceKm: number): RankableEntry {
  const { header, ringsAt } = parseEntry(text);
  const count = header.p.length;
  const latitude = new Float64Array(count);
  const longitude = new Float64Array(count);
  const cosLatitude = new Float64Array(count);
  const secondary = new Uint8Array(count);
  const jurisdiction = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const t = header.p[i] as PsapTuple;
    secondary[i] = t[2];
    jurisdiction[i] = t[7];
    latitude[i] = t[9];
    longitude[i] = t[10];
    cosLatitude[i] = cosOfLatitude(t[9]);
  }
  const areas = header.k.length;
  const boxes = new Float64Array(areas * 4);
  for (let k = 0; k < areas * 4; k++) boxes[k] = (header.b[k] as number) / QUANTUM;
  return {
    psaps: header.p,
    latitude,
    longitude,
    cosLatitude,
    secondary,
    jurisdiction,
    centre: header.c,
    nearest: header.n,
    nearestBoundM: header.d,
    areaKind: header.k,
    areaNames: header.s,
    boxes,
    ringBounds: header.r,
    ringBoundsAt: header.ro,
    members: header.m,
    membersAt: header.mo,
    geometry: [],
    text,
    ringsAt,
    grid: areaGrid(boxes, header.c[1], maxToleranceKm),
  };
}

/**
 * Which areas (in entry order) can reach each cell of a grid over the entry's areas, as one list of
 * area indexes per cell, packed: cell k's areas are `items[starts[k]]` up to `items[starts[k + 1]]`.
 */
function areaGrid(boxes: Float64Array, lon: number, toleranceKm: number): AreaGrid {
  const areas = boxes.length / 4;
  const starts = new Uint32Array(GRID * GRID + 1);
  if (areas === 0) {
    return { minLon: 0, maxLon: 0, minLat: 0, maxLat: 0, refLon: lon, starts, items: new Uint32Array(0) };
  }
  const tLat = (toleranceKm / KM_PER_DEGREE) * 1.001 + 1e-6;
  // The grid spans every area's grown box (grownBox), computed as needed rather than kept: reading an
  // entry allocates little beyond what stays.
  let minLon = Number.POSITIVE_INFINITY;
  let maxLon = Number.NEGATIVE_INFINITY;
  let minLat = Number.POSITIVE_INFINITY;
  let maxLat = Number.NEGATIVE_INFINITY;
  for (let a = 0; a < areas; a++) {
    grownBox(boxes, a, lon, tLat);
    minLon = Math.min(minLon, GROWN[0] as number);
    maxLon = Math.max(maxLon, GROWN[1] as number);
    minLat = Math.min(minLat, GROWN[2] as number);
    maxLat = Math.max(maxLat, GROWN[3] as number);
  }
  // Each area's cells, as steps [x0, x1, y0, y1] (GRID is small: one byte each); then count each
  // cell's areas, then place them, in entry order within a cell.
  const steps = new Uint8Array(areas * 4);
  for (let a = 0; a < areas; a++) {
    grownBox(boxes, a, lon, tLat);
    steps[a * 4] = gridStep(GROWN[0] as number, minLon, maxLon);
    steps[a * 4 + 1] = gridStep(GROWN[1] as number, minLon, maxLon);
    steps[a * 4 + 2] = gridStep(GROWN[2] as number, minLat, maxLat);
    steps[a * 4 + 3] = gridStep(GROWN[3] as number, minLat, maxLat);
  }
  for (let a = 0; a < areas * 4; a += 4) {
    for (let x = steps[a] as number; x <= (steps[a + 1] as number); x++) {
      for (let y = steps[a + 2] as number; y <= (steps[a + 3] as number); y++) {
        const cell = y * GRID + x;
        starts[cell + 1] = (starts[cell + 1] as number) + 1;
      }
    }
  }
  for (let k = 1; k <= GRID * GRID; k++) starts[k] = (starts[k] as number) + (starts[k - 1] as number);
  const items = new Uint32Array(starts[GRID * GRID] as number);
  const next = starts.slice(0, GRID * GRID);
  for (let a = 0; a < areas; a++) {
    for (let x = steps[a * 4] as number; x <= (steps[a * 4 + 1] as number); x++) {
      for (let y = steps[a * 4 + 2] as number; y <= (steps[a * 4 + 3] as number); y++) {
        const cell = y * GRID + x;
        items[next[cell] as number] = a;
        next[cell] = (next[cell] as number) + 1;
      }
    }
  }
  return { minLon, maxLon, minLat, maxLat, refLon: lon, starts, items };
}

/** The last box grownBox wrote: minLon, maxLon, minLat, maxLat (decoding runs to its end without awaiting). */
const GROWN = new Float64Array(4);

/**
 * Area `a`'s box in the frame of longitude `lon`, grown by `tLat` degrees of latitude and by as many
 * degrees of longitude as that distance spans at the box's most poleward reach: the widest margin.
 */
function grownBox(boxes: Float64Array, a: number, lon: number, tLat: number): void {
  const aMinLon = boxes[a * 4] as number;
  const aMinLat = boxes[a * 4 + 1] as number;
  const aMaxLon = boxes[a * 4 + 2] as number;
  const aMaxLat = boxes[a * 4 + 3] as number;
  const shift = -360 * Math.round(((aMinLon + aMaxLon) / 2 - lon) / 360);
  const lo = Math.max(-90, aMinLat - tLat);
  const hi = Math.min(90, aMaxLat + tLat);
  const cos = Math.max(1e-6, Math.min(Math.cos((lo * Math.PI) / 180), Math.cos((hi * Math.PI) / 180)));
  const tLon = Math.min(360, tLat / cos);
  GROWN[0] = aMinLon + shift - tLon;
  GROWN[1] = aMaxLon + shift + tLon;
  GROWN[2] = aMinLat - tLat;
  GROWN[3] = aMaxLat + tLat;
}

/** Which of the grid's GRID steps between `min` and `max` holds `v` (clamped to the grid). */
function gridStep(v: number, min: number, max: number): number {
  return Math.min(GRID - 1, Math.max(0, Math.floor(((v - min) / (max - min || 1)) * GRID)));
}

/** The grid cell whose areas can reach a fix, or -1 when none can (the fix lies outside the grid). */
export function gridCellOf(grid: AreaGrid, lat: number, lon: number): number {
  const x = lon - 360 * Math.round((lon - grid.refLon) / 360);
  if (x < grid.minLon || x > grid.maxLon || lat < grid.minLat || lat > grid.maxLat) return -1;
  return gridStep(lat, grid.minLat, grid.maxLat) * GRID + gridStep(x, grid.minLon, grid.maxLon);
}
