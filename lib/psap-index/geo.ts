// Great-circle helpers shared by the index builder, the lookup and the brute-force reference.

/** Mean Earth radius (IUGG), km: the contract's radius for `distance_km`. */
export const EARTH_RADIUS_KM = 6371.0088;

/** Kilometres per degree of arc on the mean sphere. */
export const KM_PER_DEGREE = (EARTH_RADIUS_KM * Math.PI) / 180;

const RAD = Math.PI / 180;

/** Haversine distance in km. Every ranking decision uses this one function, so ties compare equal. */
export function haversineKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const s = Math.sin(dLat / 2);
  const t = Math.sin(dLon / 2);
  const h = s * s + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * t * t;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** `Math.cos` of a latitude in degrees, as haversineKm takes it (kept per PSAP, so a lookup need not repeat it). */
export function cosOfLatitude(lat: number): number {
  return Math.cos(lat * RAD);
}

/**
 * haversineKm with both latitudes' cosines given (cosOfLatitude): the same operations in the same order, so
 * the same value to the last bit, with two cosines fewer per call on the hot path.
 */
export function haversineKmWithCos(
  lat1: number,
  lon1: number,
  cos1: number,
  lat2: number,
  lon2: number,
  cos2: number,
): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const s = Math.sin(dLat / 2);
  const t = Math.sin(dLon / 2);
  const h = s * s + cos1 * cos2 * t * t;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A distance as the contract (docs/contract.md) delivers it: km, one decimal. */
export function roundKm(km: number): number {
  return Math.round(km * 10) / 10;
}
