// What the merge did, for the import report: counts by rule and by kind, and every PSAP, place, town and
// row the rules could not use.
import { PSAP_JURISDICTIONS, type PsapJurisdiction } from "../../sdk/src/protocol.ts";
import { coverageByState } from "../directory/coverage.ts";
import type { AreaInput, IndexedPsap } from "../index/dataset.ts";
import type { Answering } from "./answering.ts";
import type { LinesSummary } from "./attach-lines.ts";
import type { Classified } from "./classify-and-link.ts";
import type { HandledByLink } from "./handled-by.ts";
import type { LandAreasSummary } from "./land-areas.ts";
import type { PlacementMethod } from "./locate.ts";
import type { OverrideRow } from "./model.ts";
import type { Placed } from "./placement.ts";
import type { PlaceIndex } from "./places.ts";

export interface MergeSummary {
  psaps: number;
  primaries: number;
  secondaries: number;
  jurisdictions: Record<PsapJurisdiction, number>;
  /** How many PSAPs each classification rule decided. */
  rules: Record<string, number>;
  unclassified: { id: string; name: string; state: string }[];
  overridden: number;
  /** Every override row that set a jurisdiction, with its reason. */
  overrides: { id: string; name: string; jurisdiction: PsapJurisdiction; reason: string }[];
  handledBy: { named: number; linked: number; dropped: { id: string; reason: string }[] };
  placement: Record<PlacementMethod, number>;
  /** PSAPs whose registry geocode was not used and that moved more than 1 km, farthest first. */
  moved: Placed["moved"];
  unplaced: { id: string; reason: string }[];
  countyMatched: number;
  countyFromName: number;
  unmatchedCounties: { state: string; county: string; psaps: number }[];
  places: { read: number; incorporated: number; towns: number; communities: number };
  municipal: {
    linked: number;
    toTowns: number;
    unlinked: { id: string; name: string; state: string }[];
    /**
     * Each municipal PSAP and the municipality (or community) it was linked to, by GEOID; `overridden`
     * when an override row sets what it serves instead.
     */
    links: { id: string; geoid: string; overridden: boolean }[];
  };
  answered: {
    places: number;
    towns: number;
    counties: number;
    countiesTotal: number;
    inheritedFromTown: number;
    inheritedFromCounty: number;
  };
  /** The municipalities a member list gives to regional or county-wide centres (GEOIDs), and how many centres. */
  memberTowns: { centres: number; municipalities: number; listed: string[] };
  withPhone: number;
  /** Lines by state (data/directory/coverage.ts), the primaries only: secondaries take their calls by transfer. */
  lineCoverage: ReturnType<typeof coverageByState>;
  linesKept: number;
  /** Reservations, trust lands and National Parks read, those linked to the centre that answers there, and the links. */
  landAreas: LandAreasSummary;
  boundaries: number;
}

export interface SummaryInputs {
  psaps: readonly IndexedPsap[];
  classes: Classified;
  overrides: ReadonlyMap<string, OverrideRow>;
  handledBy: ReadonlyMap<string, HandledByLink>;
  namedHandledBy: number;
  placed: Placed;
  unplaced: readonly { id: string; reason: string }[];
  places: PlaceIndex;
  placesRead: number;
  answering: Answering;
  members: { byPsap: ReadonlyMap<string, unknown>; byPlace: ReadonlyMap<string, unknown> };
  lines: LinesSummary;
  land: LandAreasSummary;
  countiesTotal: number;
}

export function summarize(args: SummaryInputs): MergeSummary {
  const { psaps, classes } = args;
  const links = classes.links;
  const jurisdictions = Object.fromEntries(PSAP_JURISDICTIONS.map((j) => [j, 0])) as Record<
    PsapJurisdiction,
    number
  >;
  for (const p of psaps) jurisdictions[p.jurisdiction]++;
  const byId = new Map(psaps.map((p) => [p.id, p]));
  return {
    psaps: psaps.length,
    primaries: psaps.filter((p) => p.type === "primary").length,
    secondaries: psaps.filter((p) => p.type === "secondary").length,
    jurisdictions,
    rules: classes.rules,
    unclassified: psaps
      .filter((p) => classes.classified.get(p.id)?.unclassified)
      .map((p) => ({ id: p.id, name: p.name, state: p.state })),
    overridden: args.overrides.size,
    overrides: [...args.overrides.values()].flatMap((o) => {
      const p = byId.get(o.psapId);
      return p && o.jurisdiction
        ? [{ id: p.id, name: p.name, jurisdiction: o.jurisdiction, reason: o.reason ?? "(no reason given)" }]
        : [];
    }),
    handledBy: {
      named: args.namedHandledBy,
      linked: psaps.filter((p) => p.handled_by !== null).length,
      dropped: [...args.handledBy].flatMap(([id, l]) => (l.problem ? [{ id, reason: l.problem }] : [])),
    },
    placement: args.placed.placement,
    moved: args.placed.moved,
    unplaced: [...args.unplaced],
    countyMatched: psaps.filter((p) => (links.get(p.id)?.counties.length ?? 0) > 0).length,
    countyFromName: psaps.filter((p) => links.get(p.id)?.countyFromName).length,
    unmatchedCounties: [...classes.unmatched.values()].sort((a, b) => b.psaps - a.psaps),
    ...placesSummary(args),
    withPhone: psaps.filter((p) => p.phone !== null).length,
    lineCoverage: coverageByState(
      psaps.filter((p) => p.type === "primary"),
      new Date(),
    ),
    linesKept: args.lines.rows,
    landAreas: args.land,
    boundaries: args.answering.areas.filter((a) => a.kind === "boundary").length,
  };
}

/** The places and towns read, the municipal links, who answers where and the member lists. */
function placesSummary(
  args: SummaryInputs,
): Pick<MergeSummary, "places" | "municipal" | "answered" | "memberTowns"> {
  const { places, answering } = args;
  const links = args.classes.links;
  const municipal = args.psaps.filter((p) => p.jurisdiction === "municipal");
  const areasOf = (kind: AreaInput["kind"]) =>
    answering.areas.filter((a) => a.kind === kind && a.psapIds.length > 0);
  return {
    places: {
      read: args.placesRead,
      incorporated: places.places.filter((p) => p.kind === "city").length,
      towns: places.places.filter((p) => p.kind === "town").length,
      communities: places.places.filter((p) => p.kind === "community").length,
    },
    municipal: {
      linked: municipal.filter((p) => links.get(p.id)?.municipality).length,
      toTowns: municipal.filter((p) => links.get(p.id)?.municipality?.kind === "town").length,
      unlinked: municipal
        .filter((p) => !links.get(p.id)?.municipality)
        .map((p) => ({ id: p.id, name: p.name, state: p.state })),
      links: municipal.flatMap((p) => {
        const m = links.get(p.id)?.municipality;
        return m
          ? [{ id: p.id, geoid: m.geoid, overridden: args.overrides.get(p.id)?.servedPlaces !== undefined }]
          : [];
      }),
    },
    answered: {
      places: areasOf("city").length,
      towns: areasOf("town").length,
      counties: areasOf("county").length,
      countiesTotal: args.countiesTotal,
      inheritedFromTown: answering.inherited.fromTown,
      inheritedFromCounty: answering.inherited.fromCounty,
    },
    memberTowns: {
      centres: args.members.byPsap.size,
      municipalities: args.members.byPlace.size,
      listed: [...args.members.byPlace.keys()].sort(),
    },
  };
}
