// Who answers where (docs/contract.md, section 4): for every municipality (city or town), community and county, the
// centres that answer 911 there, and what each PSAP serves (for the admin catalogue). Step by step:
// operator service areas, the municipalities with centres of their own, the later rules that settle a
// PSAP's jurisdiction, what each PSAP serves, the members of every area, and the municipalities that
// inherit their town's or county's centres.
import type { AreaInput, IndexedPsap } from "../index/dataset.ts";
import { countiesOfPlace, SetMap, servedBy, servedOf, territoryWideCentres } from "./answering-rules.ts";
import { type Classified, isTribalRule, reclassify } from "./classify-and-link.ts";
import type { County } from "./counties.ts";
import { dropUnknown } from "./drafts.ts";
import type { PsapLinks } from "./link.ts";
import type { MatchedMembers } from "./member-towns.ts";
import type { BoundaryFeature, FileReport, OverrideRow } from "./model.ts";
import { enclosingTowns } from "./municipalities.ts";
import type { PlaceIndex } from "./places.ts";

export interface Answering {
  areas: AreaInput[];
  /** What each PSAP serves: the municipalities it answers in (GEOIDs) and the counties it answers for (FIPS). */
  served: Map<string, { places: string[]; counties: string[] }>;
  /** Municipalities answered by their town's centres or their county's, for want of a primary of their own. */
  inherited: { fromTown: number; fromCounty: number };
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

/** What every step reads besides the input. */
interface Context extends AnsweringInput {
  kept: Map<string, IndexedPsap>;
  linkOf(id: string): PsapLinks;
  isTribal(id: string): boolean;
}

export function whoAnswers(input: AnsweringInput): Answering {
  const ctx: Context = {
    ...input,
    kept: new Map(input.psaps.map((p) => [p.id, p])),
    linkOf: (id) => input.classes.links.get(id) as PsapLinks,
    isTribal: (id) => isTribalRule(input.classes.classified.get(id)?.rule ?? ""),
  };
  const boundaries = boundaryAreas(ctx);
  const centres = ownCentres(ctx);
  settleLaterRules(ctx, centres.ownCentre);
  const served = servedByEach(ctx, centres);
  const members = membersOfAreas(ctx, served, boundaries.withBoundary);
  const inherited = inheritCentres(ctx, members);
  const withPrimaries = primariesFirst(ctx.kept);
  const areas: AreaInput[] = boundaries.areas.map((a) => ({ ...a, psapIds: withPrimaries(a.psapIds) }));
  for (const pl of ctx.places.places) {
    const m = members.places.get(pl.geoid);
    areas.push({
      kind: pl.kind,
      id: pl.geoid,
      name: pl.name,
      state: pl.state,
      rings: pl.rings,
      psapIds: m ? withPrimaries(m) : [],
    });
  }
  for (const c of ctx.counties) {
    const m = members.counties.get(c.fips);
    areas.push({
      kind: "county",
      id: c.fips,
      name: c.name,
      state: c.state,
      rings: c.rings,
      psapIds: m ? withPrimaries(m) : [],
    });
  }
  return { areas, served: servedOf(areas, served.counties, ctx.kept), inherited };
}

/** Operator service areas: a PSAP with one answers inside it, and nowhere by the rules below. */
function boundaryAreas(ctx: Context): { areas: AreaInput[]; withBoundary: Set<string> } {
  const withBoundary = new Set<string>();
  const areas: AreaInput[] = [];
  for (const { rows, report } of ctx.boundaries) {
    for (const b of rows) {
      const psap = ctx.kept.get(b.psapId);
      if (!psap) {
        dropUnknown(report, b.line, `no PSAP with id ${b.psapId} in this import`);
        continue;
      }
      withBoundary.add(b.psapId);
      areas.push({
        kind: "boundary",
        id: b.areaId,
        name: b.name ?? b.areaId,
        state: psap.state,
        rings: b.rings,
        psapIds: [b.psapId],
      });
    }
  }
  return { areas, withBoundary };
}

interface Centres {
  /** Municipalities with a municipal primary of their own, or a member list: a regional centre registered there does not answer for them. */
  ownCentre: Set<string>;
  /**
   * A municipal centre that names no municipality we know, linked only by the city it is registered in,
   * does not answer there when a centre named for that city does: it is another agency of the place (the
   * Ak-Chin police registered in Maricopa, AZ), which answers where its registry row says, as a site.
   */
  standIn(id: string): boolean;
}

function ownCentres(ctx: Context): Centres {
  const ownCentre = new Set<string>();
  const namedFor = new Set<string>(); // municipalities a municipal primary is named for
  for (const p of ctx.psaps) {
    const l = ctx.linkOf(p.id);
    const m = l.municipality;
    if (p.jurisdiction !== "municipal" || p.type !== "primary" || !m || ctx.isTribal(p.id)) continue;
    if (m.kind !== "community") ownCentre.add(m.geoid);
    if (l.municipalityByName) namedFor.add(m.geoid);
  }
  for (const geoid of ctx.members.byPlace.keys()) ownCentre.add(geoid);
  const standIn = (id: string) => {
    const l = ctx.linkOf(id);
    return (
      !l.municipalityByName &&
      l.municipality !== null &&
      namedFor.has(l.municipality.geoid) &&
      !ctx.isTribal(id)
    );
  };
  return { ownCentre, standIn };
}

/**
 * The rules that settle a PSAP's jurisdiction only once every PSAP is linked. A tribal police registered in
 * a city where a municipal or regional centre is registered too ("Las Vegas Tribal Police Department",
 * "Reno-sparks Tribal Police") serves a colony or rancheria in or beside that city, not the city: a special
 * site. A reservation's own centre is registered in its reservation community (Pine Ridge, Kayenta).
 * And the territory-wide centres (answering-rules.ts).
 */
function settleLaterRules(ctx: Context, ownCentre: ReadonlySet<string>): void {
  const cityCentres = new Set(ownCentre);
  for (const p of ctx.psaps) {
    const registered = ctx.linkOf(p.id).registeredPlace;
    if (
      p.type === "primary" &&
      p.jurisdiction === "regional" &&
      registered?.incorporated &&
      !ctx.isTribal(p.id)
    )
      cityCentres.add(registered.geoid);
  }
  for (const p of ctx.psaps) {
    const registered = ctx.linkOf(p.id).registeredPlace;
    if (!ctx.isTribal(p.id) || ctx.overrides.get(p.id)?.jurisdiction) continue;
    if (!registered?.incorporated || !cityCentres.has(registered.geoid)) continue;
    reclassify(ctx.classes, p, "special", "tribal police in a city with its own centre");
  }
  for (const p of territoryWideCentres(ctx.psaps, ctx.classes.links, ctx.counties, ctx.overrides)) {
    reclassify(
      ctx.classes,
      p,
      "state",
      "every centre of a state or territory of many counties in one county",
    );
  }
}

/** What each PSAP answers for, by its jurisdiction; a member list, where given, is its service area; an override decides over both. */
function servedByEach(ctx: Context, centres: Centres): { places: SetMap; counties: SetMap } {
  const places = new SetMap(); // PSAP id -> place GEOIDs
  const counties = new SetMap(); // PSAP id -> county FIPS
  for (const p of ctx.psaps) {
    const o = ctx.overrides.get(p.id);
    const memberOf = ctx.members.byPsap.get(p.id);
    // A member list names the communities a centre took over; its own municipality, which its rules give
    // it and no member row gives to another, stays its own (a consolidated centre hosted by a village
    // answers there too, listed or not).
    const host = memberOf ? ctx.linkOf(p.id).municipality?.geoid : undefined;
    const keepsHost = (g: string) => g === host && !ctx.members.byPlace.has(g);
    if (memberOf) for (const g of memberOf) places.add2(p.id, g);
    if (!memberOf || (host && (p.jurisdiction === "municipal" || p.jurisdiction === "regional"))) {
      servedBy(
        p.jurisdiction,
        p,
        ctx.linkOf(p.id),
        { ownCentre: centres.ownCentre, standIn: centres.standIn(p.id) },
        ctx.places,
        ctx.counties,
        (g) => (!memberOf || keepsHost(g) ? places.add2(p.id, g) : undefined),
        (f) => (!memberOf ? counties.add2(p.id, f) : undefined),
      );
    }
    if (o?.servedPlaces) places.set(p.id, new Set(o.servedPlaces.map((g) => ctx.places.canonical(g))));
    if (o?.servedCounties) counties.set(p.id, new Set(o.servedCounties));
  }
  return { places, counties };
}

interface Members {
  /** Municipality or community GEOID -> its answering centres. */
  places: SetMap;
  /** County FIPS -> its answering centres and the other PSAPs registered in it. */
  counties: SetMap;
  /** County FIPS -> the PSAPs answering for it. */
  answering: SetMap;
}

function membersOfAreas(
  ctx: Context,
  served: { places: SetMap; counties: SetMap },
  withBoundary: ReadonlySet<string>,
): Members {
  const out: Members = { places: new SetMap(), counties: new SetMap(), answering: new SetMap() };
  for (const p of ctx.psaps) {
    if (withBoundary.has(p.id)) continue; // its own service area decides where it answers
    for (const g of served.places.get(p.id) ?? []) out.places.add2(g, p.id);
    for (const f of served.counties.get(p.id) ?? []) {
      out.counties.add2(f, p.id);
      out.answering.add2(f, p.id);
    }
    // "then the other PSAPs registered in that county"
    for (const c of ctx.linkOf(p.id).counties) out.counties.add2(c.fips, p.id);
  }
  // A municipality with a member list is answered by the centres it lists (and a statewide centre), not by
  // a police row of its own that the registry still lists after the town joined a regional centre.
  for (const [geoid, centres] of ctx.members.byPlace) {
    const statewide = [...(out.places.get(geoid) ?? [])].filter(
      (id) => ctx.kept.get(id)?.jurisdiction === "state",
    );
    out.places.set(
      geoid,
      new Set([...centres, ...statewide].filter((id) => ctx.kept.has(id) && !withBoundary.has(id))),
    );
  }
  return out;
}

/**
 * A municipality with no primary centre of its own is answered by the town it lies in (a New York
 * village), else by its county's centres: those are its answering centres, so a fix inside it ranks them
 * before a neighbouring city's reached only through the fix's accuracy (Covington KY: Kenton County's,
 * not Newport's across the river). One spanning counties gets the centres of each county it reaches
 * into. A secondary of its own that names no primary stays, after them: the registry says it takes
 * calls another centre answers first (a town police whose county centre answers 911).
 */
function inheritCentres(ctx: Context, members: Members): Answering["inherited"] {
  const answersFirst = (ids: ReadonlySet<string> | undefined) =>
    [...(ids ?? [])].some((id) => ctx.kept.get(id)?.type === "primary" || ctx.kept.get(id)?.handled_by);
  const parentTown = enclosingTowns(ctx.places);
  const inherited = { fromTown: 0, fromCounty: 0 };
  // Towns first: a village inherits what its town ends with.
  const townsFirst = [...ctx.places.places].sort(
    (a, b) => (a.kind === "town" ? 0 : 1) - (b.kind === "town" ? 0 : 1),
  );
  for (const pl of townsFirst) {
    if (!pl.incorporated || answersFirst(members.places.get(pl.geoid))) continue;
    const own = members.places.get(pl.geoid) ?? new Set<string>();
    const town = parentTown.get(pl.geoid);
    const fromTown = town ? members.places.get(town.geoid) : undefined;
    if (fromTown && answersFirst(fromTown)) {
      members.places.set(pl.geoid, new Set([...fromTown, ...own]));
      inherited.fromTown++;
      continue;
    }
    const fromCounty = countiesOfPlace(pl, ctx.counties).flatMap((c) => [
      ...(members.answering.get(c.fips) ?? []),
    ]);
    if (fromCounty.length === 0) continue;
    members.places.set(pl.geoid, new Set([...fromCounty, ...own]));
    inherited.fromCounty++;
  }
  return inherited;
}

/** A secondary's primary answers right before it, wherever the secondary is listed. */
function primariesFirst(kept: ReadonlyMap<string, IndexedPsap>) {
  return (ids: ReadonlySet<string> | readonly string[]): string[] => {
    const out = new Set(ids);
    for (const id of ids) {
      const lead = kept.get(id)?.handled_by;
      if (lead) out.add(lead);
    }
    return [...out].sort();
  };
}
