// Input shapes of the PSAP index: what the importer (or a benchmark) hands to `buildIndex`.
import type { PsapRecord } from "../../sdk/src/protocol.ts";
import type { AreaKind, Ring } from "./area.ts";

/** A PSAP as stored: the delivered record without the per-lookup fields. */
export type IndexedPsap = Omit<PsapRecord, "distance_km" | "match">;

/** A service area: a county (registered county match) or an operator's boundary polygon. */
export interface ServiceAreaInput {
  /** County FIPS code, or the boundary's own id. */
  id: string;
  kind: AreaKind;
  rings: readonly Ring[];
  /** PSAPs served by this area (ids of `PsapDataset.psaps`). */
  psapIds: readonly string[];
}

export interface PsapDataset {
  dataVersion: string;
  psaps: readonly IndexedPsap[];
  areas: readonly ServiceAreaInput[];
}
