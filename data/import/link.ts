// Links a registry PSAP to the Census shapes its texts name: its registered counties, the place of its
// registered city, the place a municipal PSAP answers for, and places or counties its name lists.
import { areaLevel, OUTSIDE } from "../../src/psap/geometry.ts";
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
  /** For a municipal PSAP: the incorporated place it answers for (from its name, else its city). */
  municipalPlace: IndexedPlace | null;
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

export function linkPsap(
  row: { name: string; state: string; county: string; city: string; municipal: boolean },
  countyMatcher: CountyMatcher,
  places: PlaceIndex,
): PsapLinks {
  const registered = row.county
    ? countyMatcher.match(row.state, row.county)
    : { counties: [], unmatched: [] };
  let counties = registered.counties;
  let countyFromName = false;
  let countyNamed = false;
  // "St. Croix 9-1-1 Call Center" registered in "U.S. Virgin Islands" (all three districts): the one it names.
  if (counties.length > 1) {
    const named = counties.filter((c) => new RegExp(`\\b${escapeRegExp(c.name)}\\b`, "i").test(row.name));
    if (named.length === 1) counties = named;
  }
  const qualifier = qualifierOf(row.name);
  if (qualifier) {
    const q = countyMatcher.match(row.state, qualifier);
    if (q.counties.length > 0 && q.unmatched.length === 0) {
      countyNamed = true;
      countyFromName = q.counties.some((c) => !counties.includes(c));
      counties = q.counties;
    }
  }
  const registeredPlace = row.city ? choosePlace(places.byName(row.state, row.city), counties) : null;
  let municipalPlace: IndexedPlace | null = null;
  if (row.municipal) {
    const base = municipalBaseName(row.name);
    const byName = base
      ? choosePlace(
          places.byName(row.state, base).filter((p) => p.incorporated),
          counties,
        )
      : null;
    municipalPlace = byName ?? (registeredPlace?.incorporated ? registeredPlace : null);
  }
  const namedPlaces: IndexedPlace[] = [];
  const namedCounties: County[] = [];
  let cityInName: PsapLinks["cityInName"] = null;
  const segments = namedSegments(row.name);
  if (segments.length >= 2 || /\/|,|&/.test(row.name)) {
    for (const seg of segments) {
      const county = countyMatcher.match(row.state, seg);
      if (county.counties.length > 0 && county.unmatched.length === 0) namedCounties.push(...county.counties);
      const place = choosePlace(
        places.byName(row.state, seg).filter((p) => p.incorporated),
        [...counties, ...county.counties],
      );
      if (place) namedPlaces.push(place);
    }
  } else {
    // "Evansville-Vanderburgh County Central Dispatch", "Altus Jackson County E911": a city named
    // beside the county (the county's own name, and any parenthesis, are taken out first).
    const plainName = row.name.replace(/\([^)]*\)/g, " ");
    let rest = plainName;
    let countyAt = -1;
    for (const c of counties) {
      const mention = new RegExp(`\\b${escapeRegExp(c.name)}\\s+(county|parish|borough)\\b`, "gi");
      const first = mention.exec(plainName);
      if (first && (countyAt < 0 || first.index < countyAt)) countyAt = first.index;
      rest = rest.replace(mention, " ");
    }
    const reg = registeredPlace;
    const cityPattern = reg ? new RegExp(`\\b${escapeRegExp(reg.name)}\\b`, "i") : null;
    if (!row.municipal && reg?.incorporated && cityPattern?.test(rest)) {
      cityInName = {
        place: reg,
        beforeCounty: countyAt > 0 && cityPattern.test(plainName.slice(0, countyAt)),
      };
    }
  }
  return {
    counties,
    unmatchedCounties: registered.unmatched,
    countyFromName,
    countyNamed,
    registeredPlace,
    municipalPlace,
    namedPlaces: [...new Map(namedPlaces.map((p) => [p.geoid, p])).values()],
    namedCounties: [...new Map(namedCounties.map((c) => [c.fips, c])).values()],
    cityInName,
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
