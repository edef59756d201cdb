// The municipalities of the import: the Census places, and the towns and townships of the town-boundary
// files that no Census place already stands for; and which town each place nested in one lies in.
import { areaLevel, INSIDE } from "../../lib/psap-index/geometry.ts";
import type { FileReport, Place, TownFeature } from "./model.ts";
import { type IndexedPlace, PlaceIndex } from "./places.ts";
import { CITY_KINDS } from "./read-towns.ts";

/** Towns as read, with the report of the file they came from. */
export interface TownInput {
  towns: readonly TownFeature[];
  report: FileReport;
}

/** Planar area in square degrees of latitude (longitude scaled at the ring's latitude): only compared. */
function area(place: IndexedPlace): number {
  let total = 0;
  for (const ring of place.rings) {
    let a = 0;
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const p = ring[i] as readonly [number, number];
      const q = ring[j] as readonly [number, number];
      a += (q[0] + p[0]) * (q[1] - p[1]);
    }
    total += Math.abs(a / 2);
  }
  return total * Math.cos((place.interior[1] * Math.PI) / 180);
}

function contains(place: IndexedPlace, [lon, lat]: readonly [number, number]): boolean {
  return areaLevel(place.geometry, lat, lon, 1e-9) === INSIDE;
}

/**
 * The incorporated Census place that is this town-file municipality, if any. A city, borough or village
 * of a town file is an incorporated place wherever the Census has one (Boston, a New Jersey borough, a
 * Wisconsin village, each piece of one split by county): the same name, and one lies in the other. A town
 * or township is the same municipality only where a place of its name covers it all (Massachusetts's
 * "Agawam Town city", Connecticut's Hartford and Naugatuck), not where a smaller city or borough of the
 * same name lies inside it (Groton city in the town of Groton).
 */
function censusTwin(town: TownFeature, census: PlaceIndex): IndexedPlace | null {
  const t = new PlaceIndex([town.place]).places[0] as IndexedPlace;
  for (const c of census.byName(t.state, t.name)) {
    if (c.kind !== "city") continue;
    if (CITY_KINDS.has(town.subdivision)) {
      if (contains(t, c.interior) || contains(c, t.interior)) return c;
      continue;
    }
    const ratio = area(c) / area(t);
    if (contains(t, c.interior) && contains(c, t.interior) && ratio > 0.7 && ratio < 1.43) return c;
  }
  return null;
}

/**
 * Every place and town of the import, a municipality once: a town-file feature that an incorporated Census
 * place already stands for is left out (the Census place keeps its GEOID, which override files name), and
 * the file's report says so.
 */
export function combineMunicipalities(
  places: readonly Place[],
  towns: readonly TownInput[],
): { places: Place[]; aliases: Map<string, string> } {
  const census = new PlaceIndex(places.filter((p) => p.kind === "city"));
  const out = [...places];
  const aliases = new Map<string, string>();
  for (const { towns: list, report } of towns) {
    for (const town of list) {
      const twin = town.place.kind === "community" ? null : censusTwin(town, census);
      if (twin) {
        aliases.set(town.place.geoid, twin.geoid);
        report.dropped.push({
          line: town.line,
          reason: "the same municipality as an incorporated Census place, which stands for it",
        });
        report.kept--;
        continue;
      }
      out.push(town.place);
    }
  }
  return { places: out, aliases };
}

/**
 * The town each incorporated place lies in, where it lies in one (a New York or Vermont village, a
 * Connecticut borough): found by the place's internal point, in its own state.
 */
export function enclosingTowns(places: PlaceIndex): Map<string, IndexedPlace> {
  const parent = new Map<string, IndexedPlace>();
  for (const p of places.places) {
    if (p.kind !== "city") continue;
    const town = places
      .at(p.interior[1], p.interior[0])
      .find((t) => t.kind === "town" && t.state === p.state && t.geoid !== p.geoid);
    if (town) parent.set(p.geoid, town);
  }
  return parent;
}
