// Deterministic synthetic PSAP data sets for the index's property tests: every jurisdiction, secondaries
// with and without their primary, overlapping cities, towns, counties, communities and operator boundaries.
import { PSAP_JURISDICTIONS } from "../../sdk/src/protocol.ts";
import type { AreaInput, IndexedPsap, PsapDataset, Ring } from "./dataset.ts";

/** A small seeded PRNG (mulberry32): the same seed gives the same data set everywhere. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SyntheticOptions {
  count: number;
  seed?: number;
  /** Box the PSAPs fall in, degrees. Default: the contiguous US. */
  box?: { minLat: number; maxLat: number; minLon: number; maxLon: number };
  /** Share of secondaries. Default 0.15. */
  secondaryShare?: number;
  /** Square counties of this many degrees tiling the box (0: none). */
  countyGridDeg?: number;
  /** Cities, towns, communities and operator boundaries: irregular polygons scattered in the box. */
  cities?: number;
  towns?: number;
  communities?: number;
  boundaries?: number;
  /** Share of PSAPs placed exactly on another PSAP (ties decided by id). */
  twinShare?: number;
}

/** An irregular star-shaped polygon around a centre (radius in degrees). */
function blob(rnd: () => number, lon: number, lat: number, radius: number): Ring {
  const n = 5 + Math.floor(rnd() * 9);
  const ring: [number, number][] = [];
  for (let k = 0; k < n; k++) {
    const a = (2 * Math.PI * k) / n;
    const r = radius * (0.4 + 0.6 * rnd());
    ring.push([lon + r * Math.cos(a), lat + r * Math.sin(a)]);
  }
  ring.push(ring[0] as [number, number]);
  return ring;
}

type Random = () => number;

/** The PSAPs: random points in the box (some exactly on another), every jurisdiction, some secondaries. */
function syntheticPsaps(
  options: SyntheticOptions,
  rnd: Random,
  point: () => [number, number],
): IndexedPsap[] {
  const share = options.secondaryShare ?? 0.15;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
  const psaps: IndexedPsap[] = [];
  for (let i = 0; i < options.count; i++) {
    const twin = psaps.length > 0 && rnd() < (options.twinShare ?? 0) ? pick(psaps) : null;
    const [longitude, latitude] = twin ? [twin.longitude, twin.latitude] : point();
    psaps.push({
      id: `s${i}`,
      name: `Synthetic PSAP ${i}`,
      type: rnd() < share ? "secondary" : "primary",
      state: "ZZ",
      county: null,
      city: null,
      phone: null,
      phone_kind: null,
      lines: [],
      jurisdiction: pick(PSAP_JURISDICTIONS),
      handled_by: null,
      latitude,
      longitude,
      location_precision: "city",
    });
  }
  const primaries = psaps.filter((p) => p.type === "primary");
  for (const p of psaps) {
    // Most secondaries name a primary: usually a nearby one, sometimes one far away.
    if (p.type === "secondary" && primaries.length > 0 && rnd() < 0.7) p.handled_by = pick(primaries).id;
  }
  return psaps;
}

/** Square counties tiling the box, each with the PSAPs in it and, at times, one registered elsewhere. */
function countyGrid(
  box: NonNullable<SyntheticOptions["box"]>,
  grid: number,
  psaps: readonly IndexedPsap[],
  rnd: Random,
): AreaInput[] {
  const areas: AreaInput[] = [];
  for (let lat0 = box.minLat; lat0 < box.maxLat; lat0 += grid) {
    for (let lon0 = box.minLon; lon0 < box.maxLon; lon0 += grid) {
      const inside = psaps.filter(
        (p) =>
          p.latitude >= lat0 && p.latitude < lat0 + grid && p.longitude >= lon0 && p.longitude < lon0 + grid,
      );
      const ids = inside.map((p) => p.id);
      if (rnd() < 0.3 && psaps.length > 0)
        ids.push((psaps[Math.floor(rnd() * psaps.length)] as IndexedPsap).id);
      const ring: Ring = [
        [lon0, lat0],
        [lon0 + grid, lat0],
        [lon0 + grid, lat0 + grid],
        [lon0, lat0 + grid],
        [lon0, lat0],
      ];
      areas.push({
        kind: "county",
        id: `c${areas.length}`,
        name: `County ${areas.length}`,
        state: "ZZ",
        rings: [ring],
        psapIds: ids,
      });
    }
  }
  return areas;
}

export function syntheticDataset(options: SyntheticOptions): PsapDataset {
  const rnd = seededRandom(options.seed ?? 1);
  const box = options.box ?? { minLat: 25, maxLat: 49, minLon: -124.5, maxLon: -67 };
  const point = (): [number, number] => [
    box.minLon + rnd() * (box.maxLon - box.minLon),
    box.minLat + rnd() * (box.maxLat - box.minLat),
  ];
  const psaps = syntheticPsaps(options, rnd, point);
  const nearby = (lon: number, lat: number, radius: number): IndexedPsap[] =>
    psaps.filter((p) => Math.abs(p.longitude - lon) < radius && Math.abs(p.latitude - lat) < radius);
  const grid = options.countyGridDeg ?? 0;
  const areas: AreaInput[] = grid > 0 ? countyGrid(box, grid, psaps, rnd) : [];
  // Irregular areas of a kind, each with a few PSAPs near it (a community with none, a town's larger).
  const scatter = (kind: "city" | "town" | "community" | "boundary", count: number, size: number) => {
    for (let k = 0; k < count; k++) {
      const [lon, lat] = point();
      const radius = (0.02 + rnd() * 0.3) * size;
      const rings = [blob(rnd, lon, lat, radius)];
      if (rnd() < 0.2) rings.push(blob(rnd, lon + radius * 1.5, lat, radius / 2)); // a second island
      const near = nearby(lon, lat, radius * 3);
      const ids = kind === "community" ? [] : near.slice(0, 1 + Math.floor(rnd() * 3)).map((p) => p.id);
      if (kind !== "community" && ids.length === 0 && psaps.length > 0)
        ids.push((psaps[Math.floor(rnd() * psaps.length)] as IndexedPsap).id);
      areas.push({ kind, id: `${kind}${k}`, name: `${kind} ${k}`, state: "ZZ", rings, psapIds: ids });
    }
  };
  scatter("city", options.cities ?? 0, 1);
  scatter("community", options.communities ?? 0, 1);
  scatter("boundary", options.boundaries ?? 0, 1);
  scatter("town", options.towns ?? 0, 2);
  return { dataVersion: `synthetic-${options.count}-${options.seed ?? 1}`, psaps, areas };
}
