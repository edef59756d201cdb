// Where a PSAP is put: the best of the operator's building coordinates, the Census internal point of
// the place it is registered in, the registry's 2017 city geocode, and its county's centroid. A
// geocode far outside the PSAP's own county, or inside another place than its city, is not trusted.
// A PSAP known only from a NENA service-area polygon is put inside it; so is a registry PSAP with a
// polygon and no other location.

import { haversineKm } from "../../lib/psap-index/geo.ts";
import type { LocationPrecision } from "../../sdk/src/protocol.ts";
import type { County } from "./counties.ts";
import { nearCounties } from "./link.ts";
import type { IndexedPlace, PlaceIndex } from "./places.ts";

export type PlacementMethod =
  | "operator building"
  | "service area"
  | "municipality"
  | "registry geocode"
  | "county centroid";

export interface Placement {
  latitude: number;
  longitude: number;
  precision: LocationPrecision;
  method: PlacementMethod;
  /** Why the registry's geocode was not used, when there was one and it lies more than 1 km away. */
  distrusted?: string;
  /** Distance from the registry's geocode, km (when there was one). */
  movedKm?: number;
}

export interface PlacementInput {
  operator: { latitude: number; longitude: number; precision: LocationPrecision } | null;
  /** The place the PSAP is registered in (for a municipal PSAP: the place it answers for). */
  place: IndexedPlace | null;
  /** The place matching the registry's city text, to check the geocode against. */
  registeredPlace: IndexedPlace | null;
  geocode: { latitude: number; longitude: number } | null;
  counties: readonly County[];
  /**
   * A point inside its NENA service-area polygon; `layerOnly` when the layer alone names the PSAP (its
   * one location), else used only where nothing else places it.
   */
  serviceArea?: { latitude: number; longitude: number; layerOnly: boolean } | null;
  /**
   * The name names the county ("NYPD - Bronx") and the PSAP's place lies mostly in another: it is that
   * county's site of a place spanning several, so it is put in its own county, not at the place's
   * internal point nor at the geocode of its registered city (all five NYPD rows carry Brooklyn's).
   */
  countyNamed?: boolean;
}

/** Why a 2017 geocode is not trusted, or null when it is. */
export function geocodeDoubt(input: PlacementInput, places: PlaceIndex): string | null {
  const g = input.geocode;
  if (!g) return "no geocode";
  if (input.countyNamed) return "a site named for its county: its city's geocode is not the site's";
  if (input.counties.length > 0 && !nearCounties(input.counties, g.latitude, g.longitude)) {
    return "more than 5 km outside its registered county";
  }
  const city = input.registeredPlace;
  if (city) {
    const at = places.at(g.latitude, g.longitude);
    if (at.length > 0 && !at.some((p) => p.geoid === city.geoid))
      return `inside ${at[0]?.nameLsad}, not ${city.nameLsad}`;
  }
  return null;
}

export function placePsap(input: PlacementInput, places: PlaceIndex): Placement | null {
  const g = input.geocode;
  const moved = (lat: number, lon: number) =>
    g ? haversineKm(g.latitude, g.longitude, lat, lon) : undefined;
  const doubt = geocodeDoubt(input, places);
  const withDoubt = (p: Placement): Placement => {
    const km = moved(p.latitude, p.longitude);
    if (km !== undefined) p.movedKm = km;
    if (g && doubt && km !== undefined && km > 1) p.distrusted = doubt;
    return p;
  };
  if (input.operator) {
    return withDoubt({ ...input.operator, precision: input.operator.precision, method: "operator building" });
  }
  const area = input.serviceArea;
  // A point of the area it serves, not its building: "county", the precision that claims least.
  const inServiceArea = (a: { latitude: number; longitude: number }): Placement => ({
    latitude: a.latitude,
    longitude: a.longitude,
    precision: "county",
    method: "service area",
  });
  if (area?.layerOnly) return inServiceArea(area);
  const place = input.place;
  // Within 5 km of its county as a rule; inside it for a site named for one county of a larger place.
  const slackKm = input.countyNamed ? 1 : undefined;
  if (
    place &&
    (input.counties.length === 0 ||
      nearCounties(input.counties, place.interior[1], place.interior[0], slackKm))
  ) {
    return withDoubt({
      latitude: place.interior[1],
      longitude: place.interior[0],
      precision: "city",
      method: "municipality",
    });
  }
  if (g && doubt === null) {
    return withDoubt({
      latitude: g.latitude,
      longitude: g.longitude,
      precision: "city",
      method: "registry geocode",
    });
  }
  const county = input.counties[0];
  if (county) {
    return withDoubt({
      latitude: county.centroid[1],
      longitude: county.centroid[0],
      precision: "county",
      method: "county centroid",
    });
  }
  if (area) return withDoubt(inServiceArea(area));
  // Nothing better: an untrusted geocode still beats leaving the PSAP out.
  if (g)
    return { latitude: g.latitude, longitude: g.longitude, precision: "city", method: "registry geocode" };
  return null;
}
