// Deterministic synthetic PSAP data sets for tests and benchmarks (1,000,000 PSAPs included).
import type { Ring } from "./area.ts";
import type { IndexedPsap, PsapDataset, ServiceAreaInput } from "./types.ts";

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
  /** Square "counties" of this many degrees tiling the box, each serving the PSAPs inside it (0: none). */
  areaGridDeg?: number;
}

/** PSAPs spread uniformly over a box, optionally with a grid of square service areas. */
export function syntheticDataset(options: SyntheticOptions): PsapDataset {
  const rnd = seededRandom(options.seed ?? 1);
  const box = options.box ?? { minLat: 25, maxLat: 49, minLon: -124.5, maxLon: -67 };
  const share = options.secondaryShare ?? 0.15;
  const grid = options.areaGridDeg ?? 0;
  const psaps: IndexedPsap[] = [];
  const cellMembers = new Map<string, string[]>();
  for (let i = 0; i < options.count; i++) {
    const latitude = box.minLat + rnd() * (box.maxLat - box.minLat);
    const longitude = box.minLon + rnd() * (box.maxLon - box.minLon);
    const id = `s${i}`;
    psaps.push({
      id,
      name: `Synthetic PSAP ${i}`,
      type: rnd() < share ? "secondary" : "primary",
      state: "ZZ",
      county: null,
      city: null,
      phone: null,
      phone_kind: null,
      jurisdiction: "county",
      handled_by: null,
      latitude,
      longitude,
      location_precision: "city",
    });
    if (grid > 0) {
      const key = `${Math.floor((latitude - box.minLat) / grid)}:${Math.floor((longitude - box.minLon) / grid)}`;
      const list = cellMembers.get(key) ?? [];
      list.push(id);
      cellMembers.set(key, list);
    }
  }
  const areas: ServiceAreaInput[] = [];
  for (const [key, psapIds] of cellMembers) {
    const [r, c] = key.split(":").map(Number) as [number, number];
    const lat0 = box.minLat + r * grid;
    const lon0 = box.minLon + c * grid;
    const ring: Ring = [
      [lon0, lat0],
      [lon0 + grid, lat0],
      [lon0 + grid, lat0 + grid],
      [lon0, lat0 + grid],
      [lon0, lat0],
    ];
    areas.push({ id: `g${key}`, kind: "county", rings: [ring], psapIds });
  }
  return { dataVersion: `synthetic-${options.count}-${options.seed ?? 1}`, psaps, areas };
}
