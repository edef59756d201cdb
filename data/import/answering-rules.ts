// The rules of who answers where that read one PSAP or one place at a time (answering.ts applies them):
// the counties a place lies in, what a PSAP of each jurisdiction serves, the territory-wide centres,
// and what each PSAP serves for the admin catalogue.

import { areaLevel, INSIDE, OUTSIDE } from "../../lib/psap-index/geometry.ts";
import type { PsapJurisdiction } from "../../sdk/src/protocol.ts";
import type { AreaInput, IndexedPsap } from "../index/dataset.ts";
import type { County } from "./counties.ts";
import type { PsapLinks } from "./link.ts";
import type { OverrideRow } from "./model.ts";
import type { IndexedPlace, PlaceIndex } from "./places.ts";

/** Sets of ids keyed by an area's or a PSAP's id, filled one by one. */
export class SetMap extends Map<string, Set<string>> {
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
export function countiesOfPlace(place: IndexedPlace, counties: readonly County[]): County[] {
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

/** What a PSAP of each jurisdiction answers for, from its links (no member list, no override). */
export function servedBy(
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
export function servedOf(
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
export function territoryWideCentres(
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
