// Merges the inputs into one data set, step by step: the PSAPs (registry rows, operator rows, geocodes,
// overrides), every one classified and linked, secondaries linked to their primaries, locations repaired,
// and who answers for every municipality, community and county (docs/contract.md, section 4); then the report's summary.
import type { PsapDataset } from "../index/dataset.ts";
import { whoAnswers } from "./answering.ts";
import { attachLines, type LineInput } from "./attach-lines.ts";
import { classifyAndLink } from "./classify-and-link.ts";
import { type County, CountyMatcher } from "./counties.ts";
import { collectDrafts } from "./drafts.ts";
import { handledByInComment, resolveHandledBy } from "./handled-by.ts";
import { type LinkInput, landBoundaries } from "./land-areas.ts";
import { matchMembers } from "./member-towns.ts";
import type {
  BoundaryFeature,
  FccGeocode,
  FccRow,
  FileReport,
  MemberTownRow,
  OverrideRow,
  Place,
  ProjectRow,
} from "./model.ts";
import { combineMunicipalities, type TownInput } from "./municipalities.ts";
import { matchNenaLayers, type NenaLayer } from "./nena-match.ts";
import { placeAll } from "./placement.ts";
import { PlaceIndex } from "./places.ts";
import type { LandArea } from "./read-land-areas.ts";
import { type MergeSummary, summarize } from "./summary.ts";

export type { MergeSummary } from "./summary.ts";

export interface MergeInputs {
  fcc: FccRow[];
  geocodes: { rows: FccGeocode[]; report: FileReport }[];
  project: ProjectRow[];
  boundaries: { rows: BoundaryFeature[]; report: FileReport }[];
  /** NENA PsapPolygon layers, read (read-nena.ts) but not yet tied to PSAPs. */
  nena?: NenaLayer[];
  places: Place[];
  towns?: TownInput[];
  overrides: { rows: OverrideRow[]; report: FileReport }[];
  memberTowns?: { rows: MemberTownRow[]; report: FileReport }[];
  /** Lines files: the directory's (data/directory/lines/) and the operator's. */
  lines?: LineInput[];
  /** Reservations, trust lands and National Parks (read-land-areas.ts), and the rows linking them to centres. */
  landAreas?: LandArea[];
  areaLinks?: LinkInput[];
  counties: readonly County[];
  dataVersion: string;
}

export function mergeInputs(input: MergeInputs): { dataset: PsapDataset; summary: MergeSummary } {
  const drafts = collectDrafts(input);
  // Before any rule: a polygon that matches no registry PSAP makes one, classified and linked like the rest.
  const nena = matchNenaLayers(input.nena ?? [], drafts.drafts, input.counties);
  const municipalities = combineMunicipalities(input.places, input.towns ?? []);
  const places = new PlaceIndex(municipalities.places, municipalities.aliases);
  const classes = classifyAndLink(drafts, new CountyMatcher(input.counties), places);

  // The registry's own links: a secondary's primary.
  const named = new Map(
    [...drafts.drafts.values()].map((d) => [
      d.id,
      { type: d.type, named: d.type === "secondary" ? handledByInComment(d.comments) : null },
    ]),
  );
  const handledBy = resolveHandledBy(named);
  const primaryOf = new Map([...handledBy].map(([id, link]) => [id, link.primary]));

  const placed = placeAll(drafts, classes, primaryOf, places);
  const psaps = placed.psaps;
  const lines = attachLines(psaps, input.lines ?? []);
  const members = matchMembers(
    input.memberTowns ?? [],
    new Set(psaps.map((p) => p.id)),
    places,
    input.counties,
  );
  const answering = whoAnswers({
    psaps,
    classes,
    overrides: drafts.overrides,
    boundaries: [...input.boundaries, ...nena.boundaries],
    members,
    places,
    counties: input.counties,
  });
  const land = landBoundaries(input.landAreas ?? [], input.areaLinks ?? [], psaps);
  const summary = summarize({
    psaps,
    classes,
    overrides: drafts.overrides,
    handledBy,
    namedHandledBy: [...named.values()].filter((n) => n.named !== null).length,
    placed,
    unplaced: [...drafts.unplaced, ...placed.unplaced],
    places,
    placesRead: input.places.length + (input.towns ?? []).reduce((n, t) => n + t.towns.length, 0),
    answering,
    members,
    lines,
    land: land.summary,
    countiesTotal: input.counties.length,
  });
  return {
    dataset: {
      dataVersion: input.dataVersion,
      psaps,
      areas: [...land.areas, ...answering.areas],
      served: answering.served,
      nena: nena.records,
    },
    summary,
  };
}
