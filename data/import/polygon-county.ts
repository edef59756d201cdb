// Which state and county a service-area polygon lies in, for a layer that does not say (NENA v3 has no
// State field): read from the area it covers, never from one point. The us-atlas counties are drawn at
// 1:10M, a kilometre or so off along a border river, so a town on the Delaware can have its interior
// point in Pennsylvania and a shore town its interior point at sea. A grid of points inside the polygon
// is looked up instead, and the state is the one whose counties hold at least STATE_SHARE of those that
// fall in any county; a polygon the counties split more evenly (or do not reach) gets no state, and its
// layer's report says so, rather than a state that may be wrong.
import {
  type AreaGeometry,
  areaLevel,
  decodeRings,
  encodeRings,
  INSIDE,
} from "../../lib/psap-index/geometry.ts";
import type { County } from "./counties.ts";
import type { NenaFeature } from "./model.ts";

/** Grid cells per side over the polygon's bounding box: up to 144 points looked up. */
const GRID = 12;
/** The share of the points in any county that one state's counties must hold. */
export const STATE_SHARE = 0.75;

export type PolygonPlace = { state: string; county: County | null } | { problem: string };

/**
 * The polygon's state (`given`, from a State field, else read from its area) and its county: the one
 * holding its interior point when that is in the state, else the one of the state holding most points.
 */
export function placePolygon(
  counties: readonly County[],
  f: Pick<NenaFeature, "interior" | "rings">,
  given: string | null,
): PolygonPlace {
  const box = boxOf(f.rings);
  const near = counties.filter(
    (c) =>
      c.geometry.minLon <= box[2] &&
      c.geometry.maxLon >= box[0] &&
      c.geometry.minLat <= box[3] &&
      c.geometry.maxLat >= box[1],
  );
  const countyAt = (lon: number, lat: number) =>
    near.find((c) => areaLevel(c.geometry, lat, lon, 1e-9) === INSIDE) ?? null;
  const hits = new Map<County, number>();
  const count = (c: County | null) => {
    if (c) hits.set(c, (hits.get(c) ?? 0) + 1);
  };
  const home = countyAt(f.interior[0], f.interior[1]);
  count(home);
  for (const [lon, lat] of gridInside(decodeRings(encodeRings(f.rings)), box)) count(countyAt(lon, lat));
  const byState = new Map<string, number>();
  let total = 0;
  for (const [c, n] of hits) {
    byState.set(c.state, (byState.get(c.state) ?? 0) + n);
    total += n;
  }
  let state = given;
  if (state === null) {
    const [best] = [...byState].sort((a, b) => b[1] - a[1]);
    if (!best) return { problem: "its area lies in no county" };
    if (best[1] < STATE_SHARE * total) {
      const states = [...byState.keys()].sort().join(", ");
      return { problem: `its area lies in the counties of several states (${states})` };
    }
    state = best[0];
  }
  if (home?.state === state) return { state, county: home };
  const [county] = [...hits].filter(([c]) => c.state === state).sort((a, b) => b[1] - a[1]);
  return { state, county: county?.[0] ?? null };
}

type Box = [number, number, number, number];

function boxOf(rings: NenaFeature["rings"]): Box {
  const box: Box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const ring of rings) {
    for (const [x, y] of ring) {
      if (x < box[0]) box[0] = x;
      if (y < box[1]) box[1] = y;
      if (x > box[2]) box[2] = x;
      if (y > box[3]) box[3] = y;
    }
  }
  return box;
}

/** The centres of the grid's cells that lie inside the polygon (the lookup's own inside test). */
function gridInside(polygon: AreaGeometry, [w, s, e, n]: Box): [number, number][] {
  const points: [number, number][] = [];
  for (let i = 0; i < GRID; i++) {
    for (let j = 0; j < GRID; j++) {
      const x = w + ((i + 0.5) * (e - w)) / GRID;
      const y = s + ((j + 0.5) * (n - s)) / GRID;
      if (areaLevel(polygon, y, x, 1e-9) === INSIDE) points.push([x, y]);
    }
  }
  return points;
}
