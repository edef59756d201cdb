// A coarse grid over the areas' bounding boxes, so that a node of the tree looks only at the areas near
// it, and the box of all points within reach of a node (what an entry keeps, clipped to it).
import { EARTH_RADIUS_KM, KM_PER_DEGREE } from "../../lib/psap-index/geo.ts";
import type { AreaGeometry } from "../../lib/psap-index/geometry.ts";

export type ReachBox = ReturnType<typeof reachBox>;

/** Box (degrees) holding every point within `extraKm` (equirectangular, as geometry.ts measures) of any point of the cap. */
export function reachBox(lat: number, lon: number, rKm: number, extraKm: number) {
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
export class AreaBoxGrid {
  readonly #cells = new Map<number, number[]>();

  constructor(areas: readonly { geometry: AreaGeometry }[]) {
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

  near(box: ReachBox): Set<number> {
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
