// The PSAP part's runtime surface, for the worker: the lookup, its errors and the admin catalogue.
export { type CatalogueRecord, type IndexedPsap, POINTER_KEY } from "./format.ts";
export { EARTH_RADIUS_KM, haversineKm, roundKm } from "./geo.ts";
export {
  lookupPsaps,
  type PsapIndexStore,
  PsapIndexUnavailableError,
  PsapLookupFailedError,
  type PsapLookupResult,
  type PsapQuery,
  resetPsapLookupCache,
} from "./lookup.ts";
