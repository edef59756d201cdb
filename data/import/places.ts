// Places for the import (Census places and towns): find one by the registry's city text, and those at a point.
import {
  type AreaGeometry,
  areaLevel,
  decodeRings,
  encodeRings,
  INSIDE,
  OUTSIDE,
} from "../../lib/psap-index/geometry.ts";
import type { Place } from "./model.ts";
import { normalizeName } from "./names.ts";

export interface IndexedPlace extends Place {
  geometry: AreaGeometry;
}

/** Keys a place answers to: its name, and for a consolidated city's balance its city's own name. */
export function placeNameKeys(place: Pick<Place, "name">): string[] {
  const base = place.name.replace(/\s*\(balance\)\s*$/i, "").trim();
  const keys = new Set([normalizeName(base)]);
  // "Nashville-Davidson metropolitan government", "Louisville/Jefferson County metro government",
  // "Athens-Clarke County unified government", "Indianapolis city": the city people name.
  const head = base.split(/[-/]/)[0] ?? base;
  const trimmed = head.replace(
    /\s+(city|town|village|metropolitan government|metro government|unified government|consolidated government)$/i,
    "",
  );
  keys.add(normalizeName(trimmed));
  // "San Buenaventura (Ventura)", "El Paso de Robles (Paso Robles)": the name in parentheses is the
  // one people (and the registry) use; the one before it is the official one.
  const alias = /^(.*?)\s*\(([^)]+)\)\s*$/.exec(base);
  if (alias?.[1] && alias[2]) {
    keys.add(normalizeName(alias[1]));
    keys.add(normalizeName(alias[2]));
  }
  // "Zuni Pueblo", "Crow Agency": a community the registry names without its generic last word ("Zuni").
  const community = /^(.+?)\s+(pueblo|agency|colony|rancheria)$/i.exec(base);
  if (community?.[1]) keys.add(normalizeName(community[1]));
  return [...keys].filter((k) => k.length > 0);
}

/** A place's own name, and the name in its parentheses ("San Buenaventura (Ventura)"): no shortened form. */
function exactNameKeys(place: Pick<Place, "name">): string[] {
  const keys = [normalizeName(place.name)];
  const alias = /^(.*?)\s*\(([^)]+)\)\s*$/.exec(place.name);
  if (alias?.[1] && alias[2]) keys.push(normalizeName(alias[1]), normalizeName(alias[2]));
  return keys.filter((k) => k.length > 0);
}

/** Registry city text to a comparable key: "Valdez, Zip: 99686" -> "valdez", "Virginia Beach City" kept whole. */
export function registryCityKeys(text: string): string[] {
  const t = text
    .replace(/,?\s*zip:?\s*\d{5}(-\d{4})?/i, "")
    .replace(/\s+/g, " ")
    .trim();
  if (!t) return [];
  const keys = [normalizeName(t)];
  const noSuffix = t.replace(/\s+(city|town|village|(charter\s+)?township|twp\.?|borough|boro|cdp)$/i, "");
  if (noSuffix !== t) keys.push(normalizeName(noSuffix));
  const noPrefix = t.replace(/^(city|town|village|borough|(charter\s+)?township) of\s+/i, "");
  if (noPrefix !== t) keys.push(normalizeName(noPrefix));
  return keys.filter((k) => k.length > 0);
}

const KIND_ORDER: Readonly<Record<Place["kind"], number>> = { city: 0, town: 1, community: 2 };

export class PlaceIndex {
  readonly places: readonly IndexedPlace[];
  readonly #byName = new Map<string, IndexedPlace[]>();
  readonly #byExactName = new Map<string, IndexedPlace[]>();
  readonly #byGeoid = new Map<string, IndexedPlace>();
  /** Codes of town-file features that a Census place stands for, to that place's GEOID. */
  readonly #aliases: ReadonlyMap<string, string>;
  readonly #grid = new Map<string, IndexedPlace[]>();
  static readonly GRID_DEG = 0.25;

  constructor(places: readonly Place[], aliases: ReadonlyMap<string, string> = new Map()) {
    this.places = places.map((p) => ({ ...p, geometry: decodeRings(encodeRings(p.rings)) }));
    this.#aliases = aliases;
    for (const p of this.places) {
      this.#byGeoid.set(p.geoid, p);
      for (const key of exactNameKeys(p)) {
        const k = `${p.state}:${key}`;
        this.#byExactName.set(k, [...(this.#byExactName.get(k) ?? []), p]);
      }
      for (const key of placeNameKeys(p)) {
        const k = `${p.state}:${key}`;
        this.#byName.set(k, [...(this.#byName.get(k) ?? []), p]);
      }
      const g = p.geometry;
      const step = PlaceIndex.GRID_DEG;
      for (let x = Math.floor(g.minLon / step); x <= Math.floor(g.maxLon / step); x++) {
        for (let y = Math.floor(g.minLat / step); y <= Math.floor(g.maxLat / step); y++) {
          const k = `${x}:${y}`;
          const list = this.#grid.get(k);
          if (list) list.push(p);
          else this.#grid.set(k, [p]);
        }
      }
    }
  }

  /** The place of a Census code (a town that a Census place stands for gives that place). */
  byGeoid(geoid: string): IndexedPlace | undefined {
    return this.#byGeoid.get(this.canonical(geoid));
  }

  /** The code this index knows a place by. */
  canonical(geoid: string): string {
    return this.#aliases.get(geoid) ?? geoid;
  }

  /** Places of a state whose own name is the text ("University" is not "University City"). */
  byExactName(state: string, text: string): IndexedPlace[] {
    return this.#byExactName.get(`${state}:${normalizeName(text)}`) ?? [];
  }

  /** Places of a state whose name matches the registry's city text (municipalities first, cities before towns). */
  byName(state: string, cityText: string): IndexedPlace[] {
    const found = new Map<string, IndexedPlace>();
    for (const key of registryCityKeys(cityText)) {
      for (const p of this.#byName.get(`${state}:${key}`) ?? []) found.set(p.geoid, p);
    }
    return [...found.values()].sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
  }

  /** Places containing the point, or within `toleranceKm` of it. */
  at(lat: number, lon: number, toleranceKm = 0): IndexedPlace[] {
    const step = PlaceIndex.GRID_DEG;
    const reach = Math.ceil(toleranceKm / 111 / step);
    const out: IndexedPlace[] = [];
    const seen = new Set<string>();
    const cx = Math.floor(lon / step);
    const cy = Math.floor(lat / step);
    for (let x = cx - reach; x <= cx + reach; x++) {
      for (let y = cy - reach; y <= cy + reach; y++) {
        for (const p of this.#grid.get(`${x}:${y}`) ?? []) {
          if (seen.has(p.geoid)) continue;
          seen.add(p.geoid);
          const level = areaLevel(p.geometry, lat, lon, Math.max(toleranceKm, 1e-9));
          if (level === INSIDE || (toleranceKm > 0 && level !== OUTSIDE)) out.push(p);
        }
      }
    }
    return out;
  }
}
