// Merges the inputs into one data set: registry rows and their geocodes, operator files, Census
// places and counties; classifies every PSAP, links secondaries to their primaries, repairs locations,
// and derives who answers for every place and county (SPEC section 4).
import type { PsapJurisdiction } from "../../sdk/src/protocol.ts";
import { areaLevel, INSIDE, OUTSIDE } from "../../src/psap/geometry.ts";
import type { AreaInput, IndexedPsap, PsapDataset } from "../index/dataset.ts";
import { type County, CountyMatcher } from "./counties.ts";
import { handledByInComment, resolveHandledBy } from "./handled-by.ts";
import { type Classification, classifyPsap } from "./jurisdiction.ts";
import { linkPsap, nearCounties, type PsapLinks } from "./link.ts";
import { type PlacementMethod, placePsap } from "./locate.ts";
import type {
  BoundaryFeature,
  CensusPlace,
  FccGeocode,
  FccRow,
  FileReport,
  OverrideRow,
  ProjectRow,
} from "./model.ts";
import { type IndexedPlace, PlaceIndex } from "./places.ts";

export interface MergeSummary {
  psaps: number;
  primaries: number;
  secondaries: number;
  jurisdictions: Record<PsapJurisdiction, number>;
  /** How many PSAPs each classification rule decided. */
  rules: Record<string, number>;
  unclassified: { id: string; name: string; state: string }[];
  overridden: number;
  handledBy: { named: number; linked: number; dropped: { id: string; reason: string }[] };
  placement: Record<PlacementMethod, number>;
  /** PSAPs whose registry geocode was not used and that moved more than 1 km, farthest first. */
  moved: { id: string; name: string; state: string; method: PlacementMethod; km: number; why: string }[];
  unplaced: { id: string; reason: string }[];
  countyMatched: number;
  countyFromName: number;
  unmatchedCounties: { state: string; county: string; psaps: number }[];
  places: { read: number; incorporated: number; communities: number };
  municipal: { linked: number; unlinked: { id: string; name: string; state: string }[] };
  answered: { places: number; counties: number; countiesTotal: number };
  withPhone: number;
  boundaries: number;
}

export interface MergeInputs {
  fcc: FccRow[];
  geocodes: { rows: FccGeocode[]; report: FileReport }[];
  project: ProjectRow[];
  boundaries: { rows: BoundaryFeature[]; report: FileReport }[];
  places: CensusPlace[];
  overrides: { rows: OverrideRow[]; report: FileReport }[];
  counties: readonly County[];
  dataVersion: string;
}

interface Draft {
  id: string;
  name: string;
  type: "primary" | "secondary";
  state: string;
  county: string | null;
  city: string | null;
  phone: string | null;
  comments: string;
  operator: ProjectRow | null;
}

/**
 * Counties a place lies in: the one holding its internal point, and any other that a sample of its ring
 * vertices reaches more than 2 km beyond that one's border (the 1:10M county borders are coarse: a place
 * merely touching its neighbour county does not count).
 */
function countiesOfPlace(place: IndexedPlace, counties: readonly County[]): County[] {
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

const JURISDICTIONS: readonly PsapJurisdiction[] = ["municipal", "county", "regional", "state", "special"];

export function mergeInputs(input: MergeInputs): { dataset: PsapDataset; summary: MergeSummary } {
  const drafts = new Map<string, Draft>();
  for (const r of input.fcc) {
    drafts.set(r.id, {
      id: r.id,
      name: r.name,
      type: r.secondary ? "secondary" : "primary",
      state: r.state,
      county: r.county || null,
      city: r.city || null,
      phone: null,
      comments: r.comments,
      operator: null,
    });
  }
  // The 2017 export only places PSAPs the current registry lists.
  const geocodeOf = new Map<string, { latitude: number; longitude: number }>();
  for (const { rows, report } of input.geocodes) {
    for (const g of rows) {
      if (!drafts.has(g.id)) {
        report.dropped.push({
          line: g.line,
          reason: "not in the current registry (orphaned or unknown): ignored",
        });
        report.kept--;
        continue;
      }
      if (!geocodeOf.has(g.id)) geocodeOf.set(g.id, { latitude: g.latitude, longitude: g.longitude });
    }
  }
  const unplaced: MergeSummary["unplaced"] = [];
  for (const p of input.project) {
    let d = drafts.get(p.id);
    if (!d) {
      if (!p.name || !p.state) {
        unplaced.push({ id: p.id, reason: `project row line ${p.line}: a new PSAP needs name and state` });
        continue;
      }
      d = {
        id: p.id,
        name: p.name,
        type: "primary",
        state: p.state,
        county: null,
        city: null,
        phone: null,
        comments: "",
        operator: null,
      };
      drafts.set(p.id, d);
    }
    if (p.name !== undefined) d.name = p.name;
    if (p.type !== undefined) d.type = p.type;
    if (p.state !== undefined) d.state = p.state;
    if (p.county !== undefined) d.county = p.county;
    if (p.city !== undefined) d.city = p.city;
    if (p.phone !== undefined) d.phone = p.phone;
    if (p.latitude !== undefined || p.location_precision !== undefined)
      d.operator = { ...(d.operator ?? {}), ...p };
  }

  const overrides = new Map<string, OverrideRow>();
  for (const { rows, report } of input.overrides) {
    for (const o of rows) {
      if (!drafts.has(o.psapId)) {
        report.dropped.push({ line: o.line, reason: `no PSAP with id ${o.psapId} in this import` });
        report.kept--;
        continue;
      }
      overrides.set(o.psapId, o);
    }
  }

  const places = new PlaceIndex(input.places);
  const placeById = new Map(places.places.map((p) => [p.geoid, p]));
  const countyMatcher = new CountyMatcher(input.counties);
  const countyByFips = new Map(input.counties.map((c) => [c.fips, c]));

  // Classify and link every PSAP.
  const classified = new Map<string, Classification>();
  const links = new Map<string, PsapLinks>();
  const unmatched = new Map<string, { state: string; county: string; psaps: number }>();
  const rules: Record<string, number> = {};
  for (const d of drafts.values()) {
    const countyNames = d.county ? countyMatcher.match(d.state, d.county).counties.map((k) => k.name) : [];
    const c = classifyPsap(
      d.name,
      d.state,
      d.city ?? "",
      d.county ?? "",
      (text) => places.byName(d.state, text).some((pl) => pl.incorporated),
      countyNames,
    );
    const o = overrides.get(d.id);
    const final = o?.jurisdiction
      ? { ...c, jurisdiction: o.jurisdiction, rule: "operator override", unclassified: false }
      : c;
    classified.set(d.id, final);
    rules[final.rule] = (rules[final.rule] ?? 0) + 1;
    const l = linkPsap(
      {
        name: d.name,
        state: d.state,
        county: d.county ?? "",
        city: d.city ?? "",
        municipal: final.jurisdiction === "municipal",
      },
      countyMatcher,
      places,
    );
    links.set(d.id, l);
    for (const part of l.unmatchedCounties) {
      const key = `${d.state}:${part}`;
      const u = unmatched.get(key) ?? { state: d.state, county: part, psaps: 0 };
      u.psaps++;
      unmatched.set(key, u);
    }
  }

  // The registry's own links: a secondary's primary.
  const named = new Map(
    [...drafts.values()].map((d) => [
      d.id,
      { type: d.type, named: d.type === "secondary" ? handledByInComment(d.comments) : null },
    ]),
  );
  const handledBy = resolveHandledBy(named);

  // Locations.
  const placement: Record<PlacementMethod, number> = {
    "operator building": 0,
    "census place": 0,
    "registry geocode": 0,
    "county centroid": 0,
  };
  const moved: MergeSummary["moved"] = [];
  const psaps: IndexedPsap[] = [];
  for (const d of drafts.values()) {
    const l = links.get(d.id) as PsapLinks;
    const c = classified.get(d.id) as Classification;
    const op = d.operator;
    const home = c.jurisdiction === "municipal" ? (l.municipalPlace ?? l.registeredPlace) : l.registeredPlace;
    const spot = placePsap(
      {
        operator:
          op?.latitude !== undefined && op.longitude !== undefined
            ? {
                latitude: op.latitude,
                longitude: op.longitude,
                precision: op.location_precision ?? "building",
              }
            : null,
        place: home,
        registeredPlace: l.registeredPlace,
        geocode: geocodeOf.get(d.id) ?? null,
        counties: l.counties,
        // One county's site of a place spanning several ("NYPD -queens" of New York city).
        countyNamed:
          l.countyNamed && home !== null && !nearCounties(l.counties, home.interior[1], home.interior[0], 1),
      },
      places,
    );
    if (!spot) {
      unplaced.push({ id: d.id, reason: "no geocode, no Census place and no county matched" });
      continue;
    }
    placement[spot.method]++;
    if (spot.distrusted && spot.movedKm !== undefined) {
      moved.push({
        id: d.id,
        name: d.name,
        state: d.state,
        method: spot.method,
        km: spot.movedKm,
        why: spot.distrusted,
      });
    }
    psaps.push({
      id: d.id,
      name: d.name,
      type: d.type,
      state: d.state,
      county: d.county,
      city: d.city,
      phone: d.phone,
      phone_kind: d.phone === null ? null : "administrative",
      jurisdiction: c.jurisdiction,
      handled_by: d.type === "secondary" ? (handledBy.get(d.id)?.primary ?? null) : null,
      latitude: spot.latitude,
      longitude: spot.longitude,
      location_precision: spot.precision,
    });
  }
  moved.sort((a, b) => b.km - a.km);
  const kept = new Map(psaps.map((p) => [p.id, p]));
  for (const p of psaps) if (p.handled_by !== null && !kept.has(p.handled_by)) p.handled_by = null;

  // Who answers where.
  const withBoundary = new Set<string>();
  const areas: AreaInput[] = [];
  for (const { rows, report } of input.boundaries) {
    for (const b of rows) {
      if (!kept.has(b.psapId)) {
        report.dropped.push({ line: b.line, reason: `no PSAP with id ${b.psapId} in this import` });
        report.kept--;
        continue;
      }
      withBoundary.add(b.psapId);
      areas.push({
        kind: "boundary",
        id: b.areaId,
        name: b.areaId,
        state: kept.get(b.psapId)?.state ?? null,
        rings: b.rings,
        psapIds: [b.psapId],
      });
    }
  }
  const servedPlaces = new Map<string, Set<string>>(); // PSAP id -> place GEOIDs
  const servedCounties = new Map<string, Set<string>>(); // PSAP id -> county FIPS
  const add = (map: Map<string, Set<string>>, id: string, value: string) => {
    const set = map.get(id) ?? new Set<string>();
    set.add(value);
    map.set(id, set);
  };
  // Cities with a municipal primary of their own: a regional centre registered there does not answer for them.
  const ownCentre = new Set<string>();
  for (const p of psaps) {
    const l = links.get(p.id) as PsapLinks;
    if (p.jurisdiction === "municipal" && p.type === "primary" && l.municipalPlace)
      ownCentre.add(l.municipalPlace.geoid);
  }
  // A tribal police registered in a city where a municipal or regional centre is registered too ("Las
  // Vegas Tribal Police Department", "Reno-sparks Tribal Police") serves a colony or rancheria in or beside
  // that city, not the whole county: it answers after the county's and the city's centres, like any other
  // special site. A reservation's own centre is registered in a reservation community (Pine Ridge,
  // Kayenta, Shiprock) where no such centre is, and keeps its county.
  const isTribal = (id: string) => (classified.get(id) as Classification).rule.startsWith("tribal");
  const cityCentres = new Set(ownCentre);
  for (const p of psaps) {
    const registered = (links.get(p.id) as PsapLinks).registeredPlace;
    if (p.type === "primary" && p.jurisdiction === "regional" && registered?.incorporated && !isTribal(p.id))
      cityCentres.add(registered.geoid);
  }
  // A later rule that settles a PSAP's jurisdiction: the record, its classification and the report's
  // count of each rule follow it.
  const reclassify = (p: IndexedPsap, jurisdiction: PsapJurisdiction, rule: string) => {
    const c = classified.get(p.id) as Classification;
    rules[c.rule] = (rules[c.rule] ?? 1) - 1;
    rules[rule] = (rules[rule] ?? 0) + 1;
    p.jurisdiction = jurisdiction;
    classified.set(p.id, { ...c, jurisdiction, rule, unclassified: false });
  };
  for (const p of psaps) {
    const registered = (links.get(p.id) as PsapLinks).registeredPlace;
    if (!isTribal(p.id) || overrides.get(p.id)?.jurisdiction) continue;
    if (!registered?.incorporated || !cityCentres.has(registered.geoid)) continue;
    reclassify(p, "special", "tribal police in a city with its own centre");
  }
  for (const p of territoryWideCentres(psaps, links, input.counties, overrides)) {
    reclassify(p, "state", "every centre of a state or territory of many counties in one county");
  }
  for (const p of psaps) {
    const l = links.get(p.id) as PsapLinks;
    const o = overrides.get(p.id);
    switch (p.jurisdiction) {
      case "municipal":
        if (l.municipalPlace) add(servedPlaces, p.id, l.municipalPlace.geoid);
        break;
      case "county":
      case "regional":
        for (const c of [...l.counties, ...l.namedCounties]) add(servedCounties, p.id, c.fips);
        for (const pl of l.namedPlaces) add(servedPlaces, p.id, pl.geoid);
        // A city named as one office's site answers through its own centre when it has one: "Pima County
        // Sheriffs Office-tucson" does not answer Tucson, "Lasd - West Hollywood Sheriffs Station" does
        // answer West Hollywood (a contract city), "Miami-dade Communications Center" not Miami.
        if (l.cityInName && (l.cityInName.beforeCounty || !ownCentre.has(l.cityInName.place.geoid)))
          add(servedPlaces, p.id, l.cityInName.place.geoid);
        if (
          p.jurisdiction === "regional" &&
          l.registeredPlace?.incorporated &&
          !ownCentre.has(l.registeredPlace.geoid)
        ) {
          add(servedPlaces, p.id, l.registeredPlace.geoid);
        }
        break;
      case "state":
        for (const pl of places.places)
          if (pl.state === p.state && pl.incorporated) add(servedPlaces, p.id, pl.geoid);
        for (const c of input.counties) if (c.state === p.state) add(servedCounties, p.id, c.fips);
        break;
      case "special":
        break;
    }
    if (o?.servedPlaces) servedPlaces.set(p.id, new Set(o.servedPlaces.filter((g) => placeById.has(g))));
    if (o?.servedCounties)
      servedCounties.set(p.id, new Set(o.servedCounties.filter((f) => countyByFips.has(f))));
  }
  const countyAnswering = new Map<string, Set<string>>(); // county FIPS -> PSAPs answering for it
  for (const p of psaps) {
    if (withBoundary.has(p.id)) continue;
    for (const f of servedCounties.get(p.id) ?? []) add(countyAnswering, f, p.id);
  }
  const answeringFor = (fips: string): Set<string> => countyAnswering.get(fips) ?? new Set();
  const placeMembers = new Map<string, Set<string>>();
  const countyMembers = new Map<string, Set<string>>();
  for (const p of psaps) {
    if (withBoundary.has(p.id)) continue; // its own service area decides where it answers
    for (const g of servedPlaces.get(p.id) ?? []) add(placeMembers, g, p.id);
    for (const f of servedCounties.get(p.id) ?? []) add(countyMembers, f, p.id);
    // "then the other PSAPs registered in that county"
    for (const c of (links.get(p.id) as PsapLinks).counties) add(countyMembers, c.fips, p.id);
  }
  // A town with no centre of its own is answered by its county's: those are the answering centres of
  // the incorporated place, so a fix inside it ranks them before a neighbouring city's centre reached only
  // through the fix's accuracy (Covington KY: Kenton County's, not Newport's across the river). A town
  // spanning counties gets the centres of each county it reaches into.
  for (const pl of places.places) {
    if (!pl.incorporated || placeMembers.has(pl.geoid)) continue;
    for (const c of countiesOfPlace(pl, input.counties)) {
      for (const id of answeringFor(c.fips)) add(placeMembers, pl.geoid, id);
    }
  }
  // A secondary's primary answers right before it, wherever the secondary is listed.
  const withPrimaries = (ids: Set<string>): string[] => {
    const out = new Set(ids);
    for (const id of ids) {
      const lead = kept.get(id)?.handled_by;
      if (lead) out.add(lead);
    }
    return [...out].sort();
  };
  for (const a of areas) a.psapIds = withPrimaries(new Set(a.psapIds));
  for (const pl of places.places) {
    const members = placeMembers.get(pl.geoid);
    areas.push({
      kind: pl.incorporated ? "city" : "community",
      id: pl.geoid,
      name: pl.name,
      state: pl.state,
      rings: pl.rings,
      psapIds: pl.incorporated && members ? withPrimaries(members) : [],
    });
  }
  for (const c of input.counties) {
    const members = countyMembers.get(c.fips);
    areas.push({
      kind: "county",
      id: c.fips,
      name: c.name,
      state: c.state,
      rings: c.rings,
      psapIds: members ? withPrimaries(members) : [],
    });
  }
  // What each PSAP serves (for the admin catalogue): every city it answers in, and the counties it
  // answers for (a county also lists the PSAPs merely registered in it: those do not serve it).
  const served = new Map<string, { places: string[]; counties: string[] }>();
  const servedOf = (id: string) => {
    let s = served.get(id);
    if (!s) {
      s = { places: [], counties: [] };
      served.set(id, s);
    }
    return s;
  };
  for (const a of areas) {
    if (a.kind === "city") for (const id of a.psapIds) servedOf(id).places.push(a.id);
    if (a.kind !== "county") continue;
    const answering = new Set([...servedCounties.entries()].filter(([, f]) => f.has(a.id)).map(([id]) => id));
    for (const id of a.psapIds) {
      const lead = kept.get(id)?.handled_by;
      if (lead && answering.has(id)) answering.add(lead);
    }
    for (const id of answering) servedOf(id).counties.push(a.id);
  }

  const jurisdictions = Object.fromEntries(JURISDICTIONS.map((j) => [j, 0])) as Record<
    PsapJurisdiction,
    number
  >;
  for (const p of psaps) jurisdictions[p.jurisdiction]++;
  const handledDropped = [...handledBy].flatMap(([id, l]) => (l.problem ? [{ id, reason: l.problem }] : []));
  const summary: MergeSummary = {
    psaps: psaps.length,
    primaries: psaps.filter((p) => p.type === "primary").length,
    secondaries: psaps.filter((p) => p.type === "secondary").length,
    jurisdictions,
    rules,
    unclassified: psaps
      .filter((p) => classified.get(p.id)?.unclassified)
      .map((p) => ({ id: p.id, name: p.name, state: p.state })),
    overridden: overrides.size,
    handledBy: {
      named: [...named.values()].filter((n) => n.named !== null).length,
      linked: psaps.filter((p) => p.handled_by !== null).length,
      dropped: handledDropped,
    },
    placement,
    moved,
    unplaced,
    countyMatched: psaps.filter((p) => (links.get(p.id)?.counties.length ?? 0) > 0).length,
    countyFromName: psaps.filter((p) => links.get(p.id)?.countyFromName).length,
    unmatchedCounties: [...unmatched.values()].sort((a, b) => b.psaps - a.psaps),
    places: {
      read: input.places.length,
      incorporated: places.places.filter((p) => p.incorporated).length,
      communities: places.places.filter((p) => !p.incorporated).length,
    },
    municipal: {
      linked: psaps.filter((p) => p.jurisdiction === "municipal" && links.get(p.id)?.municipalPlace).length,
      unlinked: psaps
        .filter((p) => p.jurisdiction === "municipal" && !links.get(p.id)?.municipalPlace)
        .map((p) => ({ id: p.id, name: p.name, state: p.state })),
    },
    answered: {
      places: areas.filter((a) => a.kind === "city" && a.psapIds.length > 0).length,
      counties: areas.filter((a) => a.kind === "county" && a.psapIds.length > 0).length,
      countiesTotal: input.counties.length,
    },
    withPhone: psaps.filter((p) => p.phone !== null).length,
    boundaries: areas.filter((a) => a.kind === "boundary").length,
  };
  return { dataset: { dataVersion: input.dataVersion, psaps, areas, served }, summary };
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
