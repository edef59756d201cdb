// The PSAP part's public surface: the lookup for the worker, the builder and reference for data/ and bench/.
export type { AreaKind, Ring } from "./area.ts";
export { type BuildOptions, type BuiltIndex, buildIndex } from "./build.ts";
export { bucketKey, type IndexManifest, POINTER_KEY, versionPrefix } from "./format.ts";
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
export { MemoryPsapStore } from "./memory-store.ts";
export { borderToleranceKm } from "./rank.ts";
export { bruteForceLookup, prepareReference } from "./reference.ts";
export { type SyntheticOptions, seededRandom, syntheticDataset } from "./synthetic.ts";
export type { IndexedPsap, PsapDataset, ServiceAreaInput } from "./types.ts";
