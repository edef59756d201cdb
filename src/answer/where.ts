// Where a fix is, in words, and what can be dialled there: the result's `area` and `emergency`.

import { AREA_CITY, AREA_TOWN, type AreaKindCode } from "../../lib/psap-index/format.ts";
import type { EmergencyNumbers, PsapArea } from "../../sdk/src/protocol.ts";
import {
  type CountryLocation,
  emergencyNumbersFor,
  locateCountry,
  withinReachOfUs,
} from "../emergency/index.ts";
import type { NamedArea } from "../psap/rank.ts";

/**
 * The country library's answer for one fix, asked at most once however many rules need it: a fix in no
 * US county or place needs it both to know whether the US is within reach and to name where it is.
 */
export function countryOfFix(lat: number, lon: number): () => CountryLocation {
  let located: CountryLocation | undefined;
  return () => {
    located ??= locateCountry(lat, lon);
    return located;
  };
}

/**
 * The fix's area: a US county or Census place that contains it decides (the index's shapes are finer
 * than the country library's borders); otherwise the country library says where it is, and outside
 * the US only the country is set. `nearCounty` (the one county within the fix's reach when none
 * contains it) names the county of a fix just outside its coarse coastline, only where the fix is in
 * the US and that county's state: a fix across a land border is never given the neighbour's county.
 * `country`: the lookup's own `countryOfFix`, so that the library is asked once.
 */
export function describeArea(
  lat: number,
  lon: number,
  place: NamedArea | null,
  county: NamedArea | null,
  nearCounty: NamedArea | null = null,
  country: () => CountryLocation = countryOfFix(lat, lon),
): PsapArea {
  const state = county?.state ?? place?.state ?? null;
  if (state !== null) {
    const near =
      county === null && nearCounty?.state === state && country().country === "US" ? nearCounty.name : null;
    return {
      country: "US",
      state,
      county: county?.name ?? near,
      place: place?.name ?? null,
      place_kind: place ? placeKind(place.kind) : null,
    };
  }
  const located = country();
  const nearState = nearCounty?.state ?? null;
  if (located.country === "US" && nearState !== null && (located.state ?? nearState) === nearState) {
    return {
      country: "US",
      state: nearState,
      county: nearCounty?.name ?? null,
      place: null,
      place_kind: null,
    };
  }
  return { country: located.country, state: located.state, county: null, place: null, place_kind: null };
}

function placeKind(kind: AreaKindCode): PsapArea["place_kind"] {
  return kind === AREA_CITY ? "city" : kind === AREA_TOWN ? "town" : "community";
}

export function emergencyNumbersAt(area: PsapArea): EmergencyNumbers {
  return emergencyNumbersFor(area.country, area.state);
}

/**
 * True when a US PSAP cannot send help: the fix is in no US county or place, and no US border is within
 * its tolerance (a fix in Toronto gets no Buffalo PSAP; one closer to the border than its accuracy counts
 * for both sides).
 */
export function isOutsideUs(
  lat: number,
  lon: number,
  toleranceKm: number,
  inUsArea: boolean,
  country: () => CountryLocation = countryOfFix(lat, lon),
): boolean {
  return !inUsArea && !withinReachOfUs(lat, lon, toleranceKm * 1000, country());
}
