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
  /** The Census place of the registered city, if one matches. */
  registeredPlace: IndexedPlace | null;
  /** For a municipal PSAP: the incorporated place it answers for (from its name, else its city). */
  municipalPlace: IndexedPlace | null;
  /** Places and counties the name lists ("Walters / Cotton County", "Lasd - Walnut/diamond Bar"). */
  namedPlaces: IndexedPlace[];
  namedCounties: County[];
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
  // "St. Croix 9-1-1 Call Center" registered in "U.S. Virgin Islands" (all three districts): the one it names.
  if (counties.length > 1) {
    const named = counties.filter((c) => new RegExp(`\\b${escapeRegExp(c.name)}\\b`, "i").test(row.name));
    if (named.length === 1) counties = named;
  }
  const qualifier = qualifierOf(row.name);
  if (qualifier) {
    const q = countyMatcher.match(row.state, qualifier);
    if (q.counties.length > 0 && q.unmatched.length === 0) {
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
    // beside the county is served too (the county's own name, and any parenthesis, are taken out first).
    let rest = row.name.replace(/\([^)]*\)/g, " ");
    for (const c of counties)
      rest = rest.replace(new RegExp(`\\b${escapeRegExp(c.name)}\\s+(county|parish|borough)\\b`, "gi"), " ");
    const reg = registeredPlace;
    if (
      !row.municipal &&
      reg?.incorporated &&
      new RegExp(`\\b${escapeRegExp(reg.name)}\\b`, "i").test(rest)
    ) {
      namedPlaces.push(reg);
    }
  }
  return {
    counties,
    unmatchedCounties: registered.unmatched,
    countyFromName,
    registeredPlace,
    municipalPlace,
    namedPlaces: [...new Map(namedPlaces.map((p) => [p.geoid, p])).values()],
    namedCounties: [...new Map(namedCounties.map((c) => [c.fips, c])).values()],
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
