// The member-towns file matched to this import's municipalities: which centre answers in which town.
import { areaLevel, OUTSIDE } from "../../lib/psap-index/geometry.ts";
import type { County } from "./counties.ts";
import { dropUnknown } from "./drafts.ts";
import type { FileReport, MemberTownRow } from "./model.ts";
import { normalizeCountyName } from "./names.ts";
import type { IndexedPlace, PlaceIndex } from "./places.ts";

export interface MatchedMembers {
  /** PSAP id -> the municipalities (GEOIDs) it answers for. */
  byPsap: Map<string, Set<string>>;
  /** Municipality GEOID -> the centres that answer there. */
  byPlace: Map<string, Set<string>>;
}

/** True when the place lies in the county the row names (a town knows its county; a place, by its internal point). */
function inCounty(place: IndexedPlace, county: County | undefined): boolean {
  if (!county) return false;
  if (place.countyFips) return place.countyFips === county.fips;
  return areaLevel(county.geometry, place.interior[1], place.interior[0], 2) !== OUTSIDE;
}

/**
 * Each row's municipality: by its Census code when it gives one (a town that a Census place stands for is
 * that place), else the one municipality of that name in that county. A row whose PSAP is not in this
 * import, or whose municipality is not found or not unique, is dropped and reported with its line.
 */
export function matchMembers(
  files: readonly { rows: readonly MemberTownRow[]; report: FileReport }[],
  psapIds: ReadonlySet<string>,
  places: PlaceIndex,
  counties: readonly County[],
): MatchedMembers {
  const countyByName = new Map(counties.map((c) => [`${c.state}:${normalizeCountyName(c.name)}`, c]));
  const out: MatchedMembers = { byPsap: new Map(), byPlace: new Map() };
  for (const { rows, report } of files) {
    for (const row of rows) {
      if (!psapIds.has(row.psapId)) {
        dropUnknown(report, row.line, `no PSAP with id ${row.psapId} in this import`);
        continue;
      }
      const county = countyByName.get(`${row.state}:${normalizeCountyName(row.county)}`);
      let place = row.geoid ? places.byGeoid(row.geoid) : undefined;
      if (!place) {
        const found = places
          .byName(row.state, row.municipality)
          .filter((p) => p.incorporated && inCounty(p, county));
        if (found.length > 1) {
          dropUnknown(report, row.line, "several municipalities of that name in that county: give its geoid");
          continue;
        }
        place = found[0];
      }
      if (!place) {
        dropUnknown(report, row.line, "no municipality of that name in that county");
        continue;
      }
      const forPsap = out.byPsap.get(row.psapId) ?? new Set<string>();
      forPsap.add(place.geoid);
      out.byPsap.set(row.psapId, forPsap);
      const forPlace = out.byPlace.get(place.geoid) ?? new Set<string>();
      forPlace.add(row.psapId);
      out.byPlace.set(place.geoid, forPlace);
    }
  }
  return out;
}
