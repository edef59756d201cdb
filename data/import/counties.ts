// US counties from us-atlas (Census cartographic boundaries, 1:10M): polygons, centroids, and
// matching of the registry's free-text county names to them.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { MultiPolygon, Polygon, Position } from "geojson";
import { feature } from "topojson-client";
import type { Topology } from "topojson-specification";
import { type AreaGeometry, decodeRings, encodeRings, type Ring } from "../../lib/psap-index/geometry.ts";
import { normalizeCountyName, normalizeName, splitCountyList } from "./names.ts";
import { STATE_BY_FIPS } from "./states.ts";

export interface County {
  /** Five-digit FIPS code. */
  fips: string;
  state: string;
  name: string;
  rings: Ring[];
  /** The rings as the index stores them (for inside and distance tests at import). */
  geometry: AreaGeometry;
  /** Centroid of its largest polygon, [lon, lat]. */
  centroid: [number, number];
}

/**
 * Registry county texts that name a Census county another way: renamed or merged counties and
 * plain typos (state:normalised text -> Census names). Only unambiguous cases; the rest are reported.
 */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  "AK:wadehampton": ["Kusilvak"],
  "SD:shannon": ["Oglala Lakota"],
  "AK:princeofwalesouterketchikan": ["Prince of Wales-Hyder"],
  "AK:pinceofwalesouterketchikan": ["Prince of Wales-Hyder"],
  "AK:princeofwales": ["Prince of Wales-Hyder"],
  "AK:danali": ["Denali"],
  "AK:wrangellpetersburg": ["Wrangell", "Petersburg"],
  "AK:skagwayhoonahangoon": ["Skagway", "Hoonah-Angoon"],
  "AK:southeastfairbankscensusbureau": ["Southeast Fairbanks"],
  "FL:dade": ["Miami-Dade"],
  "TN:madisoon": ["Madison"],
  "NM:donana": ["Doña Ana"],
  "OR:multhomah": ["Multnomah"],
  "VA:loudon": ["Loudoun"],
  "KY:montgomerycounty911dispatch": ["Montgomery"],
  "VA:southbostoncity": ["Halifax"],
  "VA:cliftonforgecity": ["Alleghany"],
  "VA:bedfordcity": ["Bedford"],
  "DC:washington": ["District of Columbia"],
  "VI:usvirginislands": ["St. Croix", "St. John", "St. Thomas"],
  "AS:americansamoa": ["Eastern", "Western", "Manu'a"],
  // New York City's boroughs are counties under other names.
  "NY:manhattan": ["New York"],
  "NY:brooklyn": ["Kings"],
  "NY:statenisland": ["Richmond"],
};

function ringArea(ring: readonly Position[]): number {
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const p = ring[i] as Position;
    const q = ring[j] as Position;
    a += ((q[0] as number) + (p[0] as number)) * ((q[1] as number) - (p[1] as number));
  }
  return a / 2;
}

function ringCentroid(ring: readonly Position[]): [number, number] {
  let a = 0;
  let cx = 0;
  let cy = 0;
  const x0 = (ring[0] as Position)[0] as number;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const p = ring[i] as Position;
    const q = ring[j] as Position;
    const px = (p[0] as number) - x0 - 360 * Math.round(((p[0] as number) - x0) / 360);
    const qx = (q[0] as number) - x0 - 360 * Math.round(((q[0] as number) - x0) / 360);
    const f = qx * (p[1] as number) - px * (q[1] as number);
    a += f;
    cx += (qx + px) * f;
    cy += ((q[1] as number) + (p[1] as number)) * f;
  }
  if (a === 0) return [x0, (ring[0] as Position)[1] as number];
  let lon = x0 + cx / (3 * a);
  lon = ((((lon + 180) % 360) + 360) % 360) - 180;
  return [lon, cy / (3 * a)];
}

/**
 * A county equivalent as a dispatcher says it. An independent city (Virginia's, Baltimore, St. Louis: FIPS
 * 510 and up, not a consolidated city such as Carson City) shares its name with a county of the same
 * state ("Richmond" is both): it is "Richmond city", as the Census writes it, so that the two never read
 * alike. The rest keep their us-atlas name ("Cook", "Orleans", "Anchorage").
 */
export function dispatcherCountyName(fips: string, name: string): string {
  const independentCity = Number(fips.slice(2)) >= 510 && !/\bcity$/i.test(name);
  return independentCity ? `${name} city` : name;
}

let cached: County[] | undefined;

/** Every county and county equivalent of us-atlas (50 states, DC, PR and the island areas). */
export function loadCounties(): County[] {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const topo = JSON.parse(readFileSync(require.resolve("us-atlas/counties-10m.json"), "utf8")) as Topology;
  const object = topo.objects.counties;
  if (!object) throw new Error("us-atlas counties-10m.json has no counties object");
  const fc = feature(topo, object) as unknown as GeoJSON.FeatureCollection<
    Polygon | MultiPolygon,
    { name: string }
  >;
  cached = fc.features.map((f) => {
    const fips = String(f.id);
    const polys = f.geometry.type === "Polygon" ? [f.geometry.coordinates] : f.geometry.coordinates;
    let best: Position[] = polys[0]?.[0] ?? [];
    for (const p of polys) {
      const outer = p[0];
      if (outer && Math.abs(ringArea(outer)) > Math.abs(ringArea(best))) best = outer;
    }
    const rings = polys.flat().map((r) => r.map((c) => [c[0] as number, c[1] as number] as const));
    return {
      fips,
      state: STATE_BY_FIPS[fips.slice(0, 2)] ?? "??",
      name: dispatcherCountyName(fips, f.properties.name),
      rings,
      geometry: decodeRings(encodeRings(rings)),
      centroid: ringCentroid(best),
    };
  });
  return cached;
}

/** Finds the counties a registry (state, county text) names; several when the text lists several. */
export class CountyMatcher {
  private readonly byKey = new Map<string, County[]>();

  constructor(counties: readonly County[]) {
    for (const c of counties) {
      const key = `${c.state}:${normalizeCountyName(c.name)}`;
      const list = this.byKey.get(key) ?? [];
      list.push(c);
      this.byKey.set(key, list);
    }
  }

  private exact(state: string, normalized: string): County | undefined {
    const list = this.byKey.get(`${state}:${normalized}`);
    // "Richmond" (VA) is both a county (51159) and an independent city (51760): prefer the county.
    return list?.find((c) => Number(c.fips.slice(2)) < 500) ?? list?.[0];
  }

  private one(state: string, text: string): County[] | undefined {
    const n = normalizeCountyName(text);
    const alias = ALIASES[`${state}:${n}`];
    if (alias) {
      const found = alias.flatMap((a) => this.exact(state, normalizeCountyName(a)) ?? []);
      return found.length > 0 ? found : undefined;
    }
    const exact = this.exact(state, n);
    if (exact) return [exact];
    if (/\bcity$/i.test(text.trim())) {
      // "Baltimore City", "St. Louis City", "Richmond City": an independent city (FIPS >= 510).
      const base = this.byKey.get(`${state}:${normalizeName(text.trim().replace(/\s+city$/i, ""))}`);
      const city = base?.find((c) => Number(c.fips.slice(2)) >= 500);
      if (city) return [city];
    }
    return undefined;
  }

  /** The matched counties and the parts of the text that matched none. */
  match(state: string, text: string): { counties: County[]; unmatched: string[] } {
    const whole = this.one(state, text);
    if (whole) return { counties: whole, unmatched: [] };
    const counties: County[] = [];
    const unmatched: string[] = [];
    const parts = splitCountyList(text);
    for (const part of parts) {
      const c = this.one(state, part);
      if (c) counties.push(...c);
      else unmatched.push(part);
    }
    if (parts.length === 0 && text.trim()) unmatched.push(text.trim());
    return { counties, unmatched };
  }
}
