// Links a registry PSAP to the Census shapes its texts name: its registered counties, the place of its
// registered city, the place a municipal PSAP answers for, and places or counties its name lists.
import { areaLevel, INSIDE, OUTSIDE } from "../../lib/psap-index/geometry.ts";
import type { County, CountyMatcher } from "./counties.ts";
import { municipalBaseName, namedSegments, qualifierOf } from "./jurisdiction.ts";
import type { IndexedPlace, PlaceIndex } from "./places.ts";

export interface PsapLinks {
  /** Counties the PSAP is registered in (a county named after a dash or in parentheses wins). */
  counties: County[];
  /** Registry county texts that match no Census county. */
  unmatchedCounties: string[];
  /** The county came from the name's qualifier ("NYPD - Bronx"), not the registry's county text. */
  countyFromName: boolean;
  /**
   * The name's qualifier names the county ("New York City Police Department -manhattan"), whether or not
   * the registry's county text already did: the PSAP is that county's site of a place spanning several.
   */
  countyNamed: boolean;
  /** The Census place of the registered city, if one matches. */
  registeredPlace: IndexedPlace | null;
  /**
   * For a municipal PSAP: the municipality it answers for, a city or a town (from its name, else its
   * registered city); a tribal police's registered community; failing both, a census-designated community
   * of the name in its county (a township's stand-in where no town boundaries are loaded: Michigan).
   */
  municipality: IndexedPlace | null;
  /** The municipality came from the PSAP's name, not only from the city it is registered in. */
  municipalityByName: boolean;
  /** Places and counties the name lists ("Walters / Cotton County", "Lasd - Walnut/diamond Bar"). */
  namedPlaces: IndexedPlace[];
  namedCounties: County[];
  /**
   * The registered city when a county or regional name names it beside its county: before the county
   * ("Evansville-Vanderburgh County Central Dispatch": served), or elsewhere, as the site of one office
   * ("Pima County Sheriffs Office-tucson", "Lasd - West Hollywood Sheriffs Station": served only where
   * the city has no centre of its own; the import decides, knowing every city's centres).
   */
  cityInName: { place: IndexedPlace; beforeCounty: boolean } | null;
}

/** Within this distance of one of its registered counties, a place or a geocode is plausible for a PSAP. */
export const COUNTY_SLACK_KM = 5;

export function nearCounties(
  counties: readonly County[],
  lat: number,
  lon: number,
  km = COUNTY_SLACK_KM,
): boolean {
  return counties.some((c) => areaLevel(c.geometry, lat, lon, km) !== OUTSIDE);
}

/** Of several places with one name, the one in or next to the registered counties (incorporated first). */
function choosePlace(candidates: IndexedPlace[], counties: readonly County[]): IndexedPlace | null {
  if (candidates.length === 0) return null;
  if (counties.length === 0) return candidates[0] ?? null;
  return (
    candidates.find((p) => nearCounties(counties, p.interior[1], p.interior[0])) ??
    candidates.find((p) =>
      p.rings.some((r) => r.some(([lon, lat]) => nearCounties(counties, lat, lon, 1))),
    ) ??
    null
  );
}

/** The kind of municipality a name says it is ("Town of Colonie Police", "Old Bridge Township PD"), if any. */
export function municipalityWord(text: string): "town" | "city" | null {
  const m = /\b(charter\s+township|township|twp|town|city|village|borough|boro)\b/i.exec(text);
  if (!m?.[1]) return null;
  return /^(town|township|twp|charter)/i.test(m[1]) ? "town" : "city";
}

/**
 * Of a name's candidates, those of the kind its name says (all of them when none is of that kind), the
 * one around its registered city first (that city's Census place, else the registry's geocode of it):
 * "Colonie" registered in Latham is the town of Colonie, which holds Latham, not the village of Colonie.
 */
function ofKind(
  candidates: IndexedPlace[],
  word: "town" | "city" | null,
  cityAt: readonly [number, number] | null,
): IndexedPlace[] {
  const kept = word === null ? candidates : candidates.filter((p) => p.kind === word);
  const list = kept.length > 0 ? kept : candidates;
  if (!cityAt || list.length < 2) return list;
  const [lon, lat] = cityAt;
  const around = (p: IndexedPlace) => (areaLevel(p.geometry, lat, lon, 1e-9) === INSIDE ? 0 : 1);
  return [...list].sort((a, b) => around(a) - around(b));
}

/** A registry row as the links read it. */
export interface LinkRow {
  name: string;
  state: string;
  county: string;
  city: string;
  municipal: boolean;
  tribal?: boolean;
  /** The registry's city-level geocode, [lon, lat], where the 2017 export has one. */
  cityGeocode?: readonly [number, number] | null;
}

export function linkPsap(row: LinkRow, countyMatcher: CountyMatcher, places: PlaceIndex): PsapLinks {
  const registered = registeredCounties(row, countyMatcher);
  const registeredPlace = row.city
    ? choosePlace(places.byName(row.state, row.city), registered.counties)
    : null;
  const { municipality, byName } = linkMunicipality(row, registered.counties, registeredPlace, places);
  const inName = placesInName(row, registered.counties, registeredPlace, countyMatcher, places);
  return {
    counties: registered.counties,
    unmatchedCounties: registered.unmatched,
    countyFromName: registered.countyFromName,
    countyNamed: registered.countyNamed,
    registeredPlace,
    municipality,
    municipalityByName: byName,
    ...inName,
  };
}

/** The counties a row is registered in; a county named after a dash or in parentheses wins. */
function registeredCounties(
  row: LinkRow,
  countyMatcher: CountyMatcher,
): { counties: County[]; unmatched: string[]; countyFromName: boolean; countyNamed: boolean } {
  const registered = row.county
    ? countyMatcher.match(row.state, row.county)
    : { counties: [], unmatched: [] };
  let counties = registered.counties;
  // "St. Croix 9-1-1 Call Center" registered in "U.S. Virgin Islands" (all three districts): the one it names.
  if (counties.length > 1) {
    const named = counties.filter((c) => new RegExp(`\\b${escapeRegExp(c.name)}\\b`, "i").test(row.name));
    if (named.length === 1) counties = named;
  }
  const qualifier = qualifierOf(row.name);
  if (qualifier) {
    const q = countyMatcher.match(row.state, qualifier);
    if (q.counties.length > 0 && q.unmatched.length === 0) {
      return {
        counties: q.counties,
        unmatched: registered.unmatched,
        countyFromName: q.counties.some((c) => !counties.includes(c)),
        countyNamed: true,
      };
    }
  }
  return { counties, unmatched: registered.unmatched, countyFromName: false, countyNamed: false };
}

/** The municipality a municipal or tribal centre answers for, and whether its name gave it. */
function linkMunicipality(
  row: LinkRow,
  counties: readonly County[],
  registeredPlace: IndexedPlace | null,
  places: PlaceIndex,
): { municipality: IndexedPlace | null; byName: boolean } {
  if (row.tribal) return { municipality: registeredPlace, byName: false };
  if (!row.municipal) return { municipality: null, byName: false };
  const base = municipalBaseName(row.name);
  const word = municipalityWord(row.name.slice(0, row.name.indexOf(base) + base.length + 20));
  const cityAt = registeredPlace?.interior ?? row.cityGeocode ?? null;
  const pick = (list: IndexedPlace[]) => choosePlace(ofKind(list, word, cityAt), counties);
  const exact = base ? places.byExactName(row.state, base) : [];
  const loose = base ? places.byName(row.state, base) : [];
  // Its name first, spelled out ("Hot Springs Village", a gated community, is not Hot Springs), then as
  // the registry may shorten it ("Agawam" for "Agawam Town"); failing both, the municipality it is
  // registered in; then a community of its name (a Michigan township's census-designated namesake,
  // where no town boundaries are loaded), else the community it is registered in (a tribal police
  // whose name the registry misspells).
  const byName =
    pick(exact.filter((p) => p.incorporated)) ??
    pick(exact.filter((p) => p.kind === "community")) ??
    pick(loose.filter((p) => p.incorporated));
  if (byName) return { municipality: byName, byName: true };
  const municipality =
    (registeredPlace?.incorporated ? registeredPlace : null) ??
    pick(loose.filter((p) => p.kind === "community")) ??
    registeredPlace;
  return { municipality, byName: false };
}

/** The places and counties a name lists, and a city it names beside its county. */
function placesInName(
  row: LinkRow,
  counties: readonly County[],
  registeredPlace: IndexedPlace | null,
  countyMatcher: CountyMatcher,
  places: PlaceIndex,
): Pick<PsapLinks, "namedPlaces" | "namedCounties" | "cityInName"> {
  const namedPlaces: IndexedPlace[] = [];
  const namedCounties: County[] = [];
  let cityInName: PsapLinks["cityInName"] = null;
  const segments = namedSegments(row.name);
  if (segments.length >= 2 || /\/|,|&/.test(row.name.replace(/\([^)]*\)/g, " "))) {
    for (const seg of segments) {
      const county = countyMatcher.match(row.state, seg);
      if (county.counties.length > 0 && county.unmatched.length === 0) namedCounties.push(...county.counties);
      const place = choosePlace(
        places.byName(row.state, seg).filter((p) => p.incorporated),
        [...counties, ...county.counties],
      );
      if (place) namedPlaces.push(place);
    }
  } else if (!row.municipal && registeredPlace?.incorporated) {
    cityInName = cityBesideCounty(row.name, counties, registeredPlace);
  }
  return {
    namedPlaces: [...new Map(namedPlaces.map((p) => [p.geoid, p])).values()],
    namedCounties: [...new Map(namedCounties.map((c) => [c.fips, c])).values()],
    cityInName,
  };
}

/**
 * "Evansville-Vanderburgh County Central Dispatch", "Altus Jackson County E911": the registered city named
 * beside the county (the county's own name, and any parenthesis, are taken out first), and whether before it.
 */
function cityBesideCounty(
  name: string,
  counties: readonly County[],
  city: IndexedPlace,
): PsapLinks["cityInName"] {
  const plainName = name.replace(/\([^)]*\)/g, " ");
  let rest = plainName;
  let countyAt = -1;
  for (const c of counties) {
    const mention = new RegExp(`\\b${escapeRegExp(c.name)}\\s+(county|parish|borough)\\b`, "gi");
    const first = mention.exec(plainName);
    if (first && (countyAt < 0 || first.index < countyAt)) countyAt = first.index;
    rest = rest.replace(mention, " ");
  }
  const cityPattern = new RegExp(`\\b${escapeRegExp(city.name)}\\b`, "i");
  if (!cityPattern.test(rest)) return null;
  return { place: city, beforeCounty: countyAt > 0 && cityPattern.test(plainName.slice(0, countyAt)) };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
