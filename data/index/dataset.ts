// What `buildIndex` takes: the PSAPs and the areas that decide who answers where (the import's output).
import type { IndexedPsap, NenaServiceArea } from "../../lib/psap-index/format.ts";
import type { Ring } from "../../lib/psap-index/geometry.ts";

export type { IndexedPsap } from "../../lib/psap-index/format.ts";
export type { Ring } from "../../lib/psap-index/geometry.ts";

/**
 * `boundary`: an operator's service-area polygon; `city`: an incorporated place (city limits); `town`: a
 * town or township with a government of its own (a county subdivision); `community`: a census-designated
 * unincorporated place (named in `area`, answered by its town or county unless a centre of its own, a
 * tribal police, is registered there); `county`: a county or county equivalent.
 */
export type AreaKind = "boundary" | "city" | "town" | "community" | "county";

export interface AreaInput {
  kind: AreaKind;
  /** Census GEOID (places, towns), county FIPS, or the boundary's own id. */
  id: string;
  /** As a dispatcher says it: "Evanston", "Cook". */
  name: string;
  /** USPS code of its state or territory (null for an operator boundary that does not say). */
  state: string | null;
  rings: readonly Ring[];
  /** Ids of the PSAPs that answer there (boundary group, city group: a municipality's or community's, county group). */
  psapIds: readonly string[];
}

export interface PsapDataset {
  dataVersion: string;
  psaps: readonly IndexedPsap[];
  areas: readonly AreaInput[];
  /**
   * What each PSAP answers for, for the admin catalogue (Census place GEOIDs, county FIPS). When
   * absent, the city and county areas that list a PSAP are taken as what it serves.
   */
  served?: ReadonlyMap<string, { places: readonly string[]; counties: readonly string[] }>;
  /** What NENA PsapPolygon layers say of a PSAP (its service areas' ids, names and URIs), for the admin catalogue. */
  nena?: ReadonlyMap<string, readonly NenaServiceArea[]>;
}

/**
 * An area's answering PSAPs as positions in the data set's PSAP list: each once, in the area's order,
 * ids that are not in the list left out (the index builder and the brute-force reference read them alike).
 */
export function memberIndexes(area: AreaInput, indexOf: ReadonlyMap<string, number>): number[] {
  return [...new Set(area.psapIds)].flatMap((id) => {
    const i = indexOf.get(id);
    return i === undefined ? [] : [i];
  });
}
