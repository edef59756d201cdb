// What `buildIndex` takes: the PSAPs and the areas that decide who answers where (the import's output).
import type { IndexedPsap } from "../../src/psap/format.ts";
import type { Ring } from "../../src/psap/geometry.ts";

export type { IndexedPsap } from "../../src/psap/format.ts";
export type { Ring } from "../../src/psap/geometry.ts";

/**
 * `boundary`: an operator's service-area polygon; `city`: an incorporated place (city limits);
 * `community`: a census-designated unincorporated place (named in `area`, answered by its county);
 * `county`: a county or county equivalent.
 */
export type AreaKind = "boundary" | "city" | "community" | "county";

export interface AreaInput {
  kind: AreaKind;
  /** Census GEOID (places), county FIPS, or the boundary's own id. */
  id: string;
  /** As a dispatcher says it: "Evanston", "Cook". */
  name: string;
  /** USPS code of its state or territory (null for an operator boundary that does not say). */
  state: string | null;
  rings: readonly Ring[];
  /** Ids of the PSAPs that answer there (city group, county group, boundary group); none for a community. */
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
}
