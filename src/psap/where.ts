// Where a fix is, in words, and what can be dialled there: the result's `area` and `emergency`.
import type { EmergencyNumbers, PsapArea } from "../../sdk/src/protocol.ts";
import { AREA_CITY } from "./format.ts";
import type { EntryArea } from "./rank.ts";

/** The fix's area from the place and county that contain it (from the index entry). */
export function describeArea(
  _lat: number,
  _lon: number,
  place: EntryArea | null,
  county: EntryArea | null,
): PsapArea {
  const state = county?.state ?? place?.state ?? null;
  return {
    country: state ? "US" : null,
    state,
    county: county?.name ?? null,
    place: place?.name ?? null,
    place_kind: place ? (place.kind === AREA_CITY ? "city" : "community") : null,
  };
}

export function emergencyNumbersAt(area: PsapArea): EmergencyNumbers {
  return {
    country: area.country,
    numbers: [
      { number: "911", service: "all" },
      { number: "988", service: "crisis" },
    ],
  };
}

/** True when the fix is abroad and the US is not within its tolerance. */
export function isOutsideCoverage(_lat: number, _lon: number, _toleranceKm: number): boolean {
  return false;
}
