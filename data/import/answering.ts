// Who answers where (SPEC section 4): for every municipality (city or town), community and county, the
// centres that answer 911 there, and what each PSAP serves (for the admin catalogue).
import type { PsapJurisdiction } from "../../sdk/src/protocol.ts";
import { areaLevel, INSIDE, OUTSIDE } from "../../src/psap/geometry.ts";
import type { AreaInput, IndexedPsap } from "../index/dataset.ts";
import { type Classified, isTribalRule, reclassify } from "./classify-and-link.ts";
import type { County } from "./counties.ts";
import { dropUnknown } from "./drafts.ts";
import type { PsapLinks } from "./link.ts";
import type { MatchedMembers } from "./member-towns.ts";
import type { BoundaryFeature, FileReport, OverrideRow } from "./model.ts";
import { enclosingTowns } from "./municipalities.ts";
import type { IndexedPlace, PlaceIndex } from "./places.ts";

export interface Answering {
  areas: AreaInput[];
  /** What each PSAP serves: the municipalities it answers in (GEOIDs) and the counties it answers for (FIPS). */
  served: Map<string, { places: string[]; counties: string[] }>;
  /** Municipalities answered by their county's centres for want of a centre of their own, or by their town's. */
  inherited: { fromTown: number; fromCounty: number };
}

/** Sets of ids keyed by an area's id, filled one by one. */
class SetMap extends Map<string, Set<string>> {
  add2(key: string, value: string): void {
    const set = this.get(key);
    if (set) set.add(value);
    else this.set(key, new Set([value]));
  }
}

/**
 * Counties a place lies in: the one holding its internal point, and any other that a sample of its ring
 * vertices reaches more than 2 km beyond that one's border (the 1:10M county borders are coarse: a place
 * merely touching its neighbour county does not count). A town knows its county.
 */
function countiesOfPlace(place: IndexedPlace, counties: readonly County[]): County[] {
  if (place.countyFips) return counties.filter((c) => c.fips === place.countyFips);
  const g = place.geometry;
  const [lon, lat] = place.interior;
  const near = counties.filter(
    (c) =>
      c.state === place.state &&
      c.geometry.minLon <= g.maxLon &&
      c.geometry.maxLon >= g.minLon &&
      c.geometry.minLat <= g.maxLat &&
      c.geometry.maxLat >= g.minLat,
  );
  const home = near.find((c) => areaLevel(c.geometry, lat, lon, 1e-9) === INSIDE);
  if (!home) return [];
  const sample = place.rings.flatMap((ring) => {
    const step = Math.max(1, Math.floor(ring.length / 64));
    return ring.filter((_, i) => i % step === 0);
  });
  const beyond = sample.filter(([x, y]) => areaLevel(home.geometry, y, x, 2) === OUTSIDE);
  return [
    home,
    ...near.filter(
      (c) => c !== home && beyond.some(([x, y]) => areaLevel(c.geometry, y, x, 1e-9) === INSIDE),
    ),
  ];
}

export interface AnsweringInput {
  psaps: IndexedPsap[];
  classes: Classified;
  overrides: ReadonlyMap<string, OverrideRow>;
  boundaries: readonly { rows: readonly BoundaryFeature[]; report: FileReport }[];
  members: MatchedMembers;
  places: PlaceIndex;
  counties: readonly County[];
}

export function whoAnswers(input: AnsweringInput): Answering {
  const { psaps, classes, overrides, places, counties, members } = input;
  const links = classes.links;
  const linkOf = (id: string) => links.get(id) as PsapLinks;
  const kept = new Map(psaps.map((p) => [p.id, p]));
  const isTribal = (id: string) => isTribalRule(classes.classified.get(id)?.rule ?? "");

  // Operator service areas: a PSAP with one answers inside it, and nowhere by the rules below.
  const withBoundary = new Set<string>();
  const areas: AreaInput[] = [];
  for (const { rows, report } of input.boundaries) {
    for (const b of rows) {
      const psap = kept.get(b.psapId);
      if (!psap) {
        dropUnknown(report, b.line, `no PSAP with id ${b.psapId} in this import`);
        continue;
      }
      withBoundary.add(b.psapId);
      areas.push({
        kind: "boundary",
        id: b.areaId,
        name: b.areaId,
        state: psap.state,
        rings: b.rings,
        psapIds: [b.psapId],
      });
    }
  }

  // Municipalities with a municipal primary of their own: a regional centre registered there does not answer for them.
  const ownCentre = new Set<string>();
  const namedFor = new Set<string>(); // municipalities a municipal primary is named for
  for (const p of psaps) {
    const l = linkOf(p.id);
    const m = l.municipality;
    if (p.jurisdiction !== "municipal" || p.type !== "primary" || !m || isTribal(p.id)) continue;
    if (m.kind !== "community") ownCentre.add(m.geoid);
    if (l.municipalityByName) namedFor.add(m.geoid);
  }
  // A municipal centre that names no municipality we know, linked only by the city it is registered in,
  // does not answer there when a centre named for that city does: it is another agency of the place (the
  // Ak-Chin police registered in Maricopa, AZ), which answers where its registry row says, as a site.
  const standIn = (id: string, l: PsapLinks) =>
    !l.municipalityByName && l.municipality !== null && namedFor.has(l.municipality.geoid) && !isTribal(id);
  for (const geoid of members.byPlace.keys()) ownCentre.add(geoid);
  // A tribal police registered in a city where a municipal or regional centre is registered too ("Las
  // Vegas Tribal Police Department", "Reno-sparks Tribal Police") serves a colony or rancheria in or beside
  // that city, not the city: it answers after the county's and the city's centres, like any other special
  // site. A reservation's own centre is registered in its reservation community (Pine Ridge, Kayenta).
  const cityCentres = new Set(ownCentre);
  for (const p of psaps) {
    const registered = linkOf(p.id).registeredPlace;
    if (p.type === "primary" && p.jurisdiction === "regional" && registered?.incorporated && !isTribal(p.id))
      cityCentres.add(registered.geoid);
  }
  for (const p of psaps) {
    const registered = linkOf(p.id).registeredPlace;
    if (!isTribal(p.id) || overrides.get(p.id)?.jurisdiction) continue;
    if (!registered?.incorporated || !cityCentres.has(registered.geoid)) continue;
    reclassify(classes, p, "special", "tribal police in a city with its own centre");
  }
  for (const p of territoryWideCentres(psaps, links, counties, overrides)) {
    reclassify(classes, p, "state", "every centre of a state or territory of many counties in one county");
  }

  // What each PSAP answers for, by its jurisdiction; a member list, where one is given, is its service area.
  const servedPlaces = new SetMap(); // PSAP id -> place GEOIDs
  const servedCounties = new SetMap(); // PSAP id -> county FIPS
  for (const p of psaps) {
    const l = linkOf(p.id);
    const o = overrides.get(p.id);
    const memberOf = members.byPsap.get(p.id);
    if (memberOf) {
      for (const g of memberOf) servedPlaces.add2(p.id, g);
    } else {
      servedBy(
        p.jurisdiction,
        p,
        l,
        { ownCentre, standIn: standIn(p.id, l) },
        places,
        counties,
        (g) => servedPlaces.add2(p.id, g),
        (f) => servedCounties.add2(p.id, f),
      );
    }
    if (o?.servedPlaces) servedPlaces.set(p.id, new Set(o.servedPlaces.map((g) => places.canonical(g))));
    if (o?.servedCounties) servedCounties.set(p.id, new Set(o.servedCounties));
  }

  const placeMembers = new SetMap();
  const countyMembers = new SetMap();
  const countyAnswering = new SetMap(); // county FIPS -> PSAPs answering for it
  for (const p of psaps) {
    if (withBoundary.has(p.id)) continue; // its own service area decides where it answers
    for (const g of servedPlaces.get(p.id) ?? []) placeMembers.add2(g, p.id);
    for (const f of servedCounties.get(p.id) ?? []) {
      countyMembers.add2(f, p.id);
      countyAnswering.add2(f, p.id);
    }
    // "then the other PSAPs registered in that county"
    for (const c of linkOf(p.id).counties) countyMembers.add2(c.fips, p.id);
  }
  // A municipality with a member list is answered by the centres it lists (and a statewide centre), not by
  // a police row of its own that the registry still lists after the town joined a regional centre.
  for (const [geoid, centres] of members.byPlace) {
    const statewide = [...(placeMembers.get(geoid) ?? [])].filter(
      (id) => kept.get(id)?.jurisdiction === "state",
    );
    placeMembers.set(
      geoid,
      new Set([...centres, ...statewide].filter((id) => kept.has(id) && !withBoundary.has(id))),
    );
  }
  // A municipality with no primary centre of its own is answered by the town it lies in (a New York
  // village), else by its county's centres: those are its answering centres, so a fix inside it ranks them
  // before a neighbouring city's reached only through the fix's accuracy (Covington KY: Kenton County's,
  // not Newport's across the river). One spanning counties gets the centres of each county it reaches
  // into. A secondary of its own that names no primary stays, after them: the registry says it takes
  // calls another centre answers first (a town police whose county centre answers 911).
  const answersFirst = (ids: ReadonlySet<string> | undefined) =>
    [...(ids ?? [])].some((id) => kept.get(id)?.type === "primary" || kept.get(id)?.handled_by);
  const parentTown = enclosingTowns(places);
  const inherited = { fromTown: 0, fromCounty: 0 };
  const byKind = [...places.places].sort((a, b) => (a.kind === "town" ? 0 : 1) - (b.kind === "town" ? 0 : 1));
  for (const pl of byKind) {
    if (!pl.incorporated || answersFirst(placeMembers.get(pl.geoid))) continue;
    const own = placeMembers.get(pl.geoid) ?? new Set<string>();
    const town = parentTown.get(pl.geoid);
    const fromTown = town ? placeMembers.get(town.geoid) : undefined;
    if (fromTown && answersFirst(fromTown)) {
      placeMembers.set(pl.geoid, new Set([...fromTown, ...own]));
      inherited.fromTown++;
      continue;
    }
    const fromCounty = countiesOfPlace(pl, counties).flatMap((c) => [...(countyAnswering.get(c.fips) ?? [])]);
    if (fromCounty.length === 0) continue;
    placeMembers.set(pl.geoid, new Set([...fromCounty, ...own]));
    inherited.fromCounty++;
  }

  // A secondary's primary answers right before it, wherever the secondary is listed.
  const withPrimaries = (ids: ReadonlySet<string> | readonly string[]): string[] => {
    const out = new Set(ids);
    for (const id of ids) {
      const lead = kept.get(id)?.handled_by;
      if (lead) out.add(lead);
    }
    return [...out].sort();
  };
  for (const a of areas) a.psapIds = withPrimaries(a.psapIds);
  for (const pl of places.places) {
    const m = placeMembers.get(pl.geoid);
    areas.push({
      kind: pl.kind,
      id: pl.geoid,
      name: pl.name,
      state: pl.state,
      rings: pl.rings,
      psapIds: m ? withPrimaries(m) : [],
    });
  }
  for (const c of counties) {
    const m = countyMembers.get(c.fips);
    areas.push({
      kind: "county",
      id: c.fips,
      name: c.name,
      state: c.state,
      rings: c.rings,
      psapIds: m ? withPrimaries(m) : [],
    });
  }
  return { areas, served: servedOf(areas, servedCounties, kept), inherited };
}

/** What a PSAP of each jurisdiction answers for, from its links (no member list, no override). */
function servedBy(
  jurisdiction: PsapJurisdiction,
  p: IndexedPsap,
  l: PsapLinks,
  { ownCentre, standIn }: { ownCentre: ReadonlySet<string>; standIn: boolean },
  places: PlaceIndex,
  counties: readonly County[],
  place: (geoid: string) => void,
  county: (fips: string) => void,
): void {
  switch (jurisdiction) {
    case "municipal":
      if (l.municipality && !standIn) place(l.municipality.geoid);
      return;
    case "county":
    case "regional":
      for (const c of [...l.counties, ...l.namedCounties]) county(c.fips);
      for (const pl of l.namedPlaces) place(pl.geoid);
      // A city named as one office's site answers through its own centre when it has one: "Pima County
      // Sheriffs Office-tucson" does not answer Tucson, "Lasd - West Hollywood Sheriffs Station" does
      // answer West Hollywood (a contract city), "Miami-dade Communications Center" not Miami.
      if (l.cityInName && (l.cityInName.beforeCounty || !ownCentre.has(l.cityInName.place.geoid)))
        place(l.cityInName.place.geoid);
      if (
        jurisdiction === "regional" &&
        l.registeredPlace?.incorporated &&
        !ownCentre.has(l.registeredPlace.geoid)
      )
        place(l.registeredPlace.geoid);
      return;
    case "state":
      for (const pl of places.places) if (pl.state === p.state && pl.incorporated) place(pl.geoid);
      for (const c of counties) if (c.state === p.state) county(c.fips);
      return;
    case "special":
      return;
  }
}

/**
 * What each PSAP serves, for the admin catalogue: every municipality it answers in, and the counties it
 * answers for (a county's members also list the PSAPs merely registered in it: those do not serve it).
 */
function servedOf(
  areas: readonly AreaInput[],
  servedCounties: ReadonlyMap<string, ReadonlySet<string>>,
  kept: ReadonlyMap<string, IndexedPsap>,
): Map<string, { places: string[]; counties: string[] }> {
  const served = new Map<string, { places: string[]; counties: string[] }>();
  const of = (id: string) => {
    let s = served.get(id);
    if (!s) {
      s = { places: [], counties: [] };
      served.set(id, s);
    }
    return s;
  };
  const answeringCounty = new SetMap();
  for (const [id, fips] of servedCounties) for (const f of fips) answeringCounty.add2(f, id);
  for (const a of areas) {
    if (a.kind === "city" || a.kind === "town") for (const id of a.psapIds) of(id).places.push(a.id);
    if (a.kind !== "county") continue;
    const answering = new Set(answeringCounty.get(a.id) ?? []);
    for (const id of a.psapIds) {
      const lead = kept.get(id)?.handled_by;
      if (lead && answering.has(id)) answering.add(lead);
    }
    for (const id of answering) of(id).counties.push(a.id);
  }
  return served;
}

/**
 * The primaries of a state or territory of several counties whose every centre is registered in one and
 * the same county: they answer 911 for all of it. Puerto Rico's two centres (Hato Rey and Guaynabo, of its
 * 9-1-1 Emergency Systems Bureau) are both registered in San Juan and answer all 78 municipios; without
 * this, a fix on Vieques or Culebra would rank the US Virgin Islands' centre first, the nearer one. A state
 * with centres in two counties or more keeps its county rules; special sites (a base, a campus) are kept
 * out of the test and of the change, and an operator's jurisdiction stands.
 */
function territoryWideCentres(
  psaps: readonly IndexedPsap[],
  links: ReadonlyMap<string, PsapLinks>,
  counties: readonly County[],
  overrides: ReadonlyMap<string, OverrideRow>,
): IndexedPsap[] {
  const countiesOf = new Map<string, number>();
  for (const c of counties) countiesOf.set(c.state, (countiesOf.get(c.state) ?? 0) + 1);
  const byState = new Map<string, IndexedPsap[]>();
  for (const p of psaps) {
    if (p.jurisdiction === "special") continue;
    const list = byState.get(p.state) ?? [];
    list.push(p);
    byState.set(p.state, list);
  }
  const wide: IndexedPsap[] = [];
  for (const [state, centres] of byState) {
    if ((countiesOf.get(state) ?? 0) < 2) continue;
    const registered = new Set(centres.flatMap((p) => (links.get(p.id)?.counties ?? []).map((c) => c.fips)));
    const everyOneMatched = centres.every((p) => (links.get(p.id)?.counties.length ?? 0) === 1);
    if (registered.size !== 1 || !everyOneMatched) continue;
    for (const p of centres) {
      if (p.type === "primary" && p.jurisdiction !== "state" && !overrides.get(p.id)?.jurisdiction)
        wide.push(p);
    }
  }
  return wide;
}
