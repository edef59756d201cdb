// Accuracy against reality: at real places whose answering 911 centre is known (bench/truth/), is the
// first PSAP the one that answers, and is it in the top 5? Per category, with every miss and its cause.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCsv } from "../data/import/csv.ts";
import { prepareImport } from "../data/import/pipeline.ts";
import { buildIndex } from "../data/index/build.ts";
import type { PsapDataset } from "../data/index/dataset.ts";
import { MemoryPsapStore } from "../data/index/memory-store.ts";
import type { PsapArea, PsapRecord } from "../sdk/src/protocol.ts";
import { lookupPsaps } from "../src/answer/lookup.ts";
import { resetPsapLookupCache } from "../src/psap/lookup.ts";
import { table } from "./markdown.ts";

export interface TruthPlace {
  id: string;
  category: string;
  name: string;
  state: string;
  latitude: number;
  longitude: number;
  /** FCC ids of the centre that answers (several only for the same centre listed more than once). */
  answering: string[];
  why: string;
}

export interface AccuracyMiss {
  place: TruthPlace;
  /** Rank of the answering centre (1-based), or null when it is not in the top 5. */
  rank: number | null;
  first: Pick<PsapRecord, "id" | "name" | "jurisdiction" | "match"> | null;
  area: string;
}

export interface CategoryAccuracy {
  category: string;
  places: number;
  top1: number;
  top5: number;
}

export interface AccuracyResult {
  file: string;
  places: number;
  top1: number;
  top5: number;
  top1_pct: number;
  top5_pct: number;
  /** Places whose first PSAP has a sourced line, and a 24/7 one (emergency or dispatch). */
  first_with_line_pct: number;
  first_with_24x7_pct: number;
  /**
   * The places whose answer no directory member row gives (a row naming the answering centre for the
   * municipality that contains the place), measured alone: the part of the set independent of the directory.
   */
  independent: { places: number; top1: number; top5: number; top1_pct: number; top5_pct: number };
  categories: CategoryAccuracy[];
  misses: AccuracyMiss[];
}

const COLUMNS = [
  "id",
  "category",
  "name",
  "state",
  "latitude",
  "longitude",
  "answering_psap_ids",
  "why",
] as const;

/** Reads a truth file (bench/truth/README.md describes it). Throws on a malformed one: a truth set must be clean. */
export function readTruth(path: string): TruthPlace[] {
  const table = parseCsv(readFileSync(path, "utf8"));
  for (const c of COLUMNS) if (!table.header.includes(c)) throw new Error(`${path}: no column ${c}`);
  const col = (fields: string[], name: (typeof COLUMNS)[number]) =>
    (fields[table.header.indexOf(name)] ?? "").trim();
  return table.rows.map(({ line, fields }) => {
    const latitude = Number(col(fields, "latitude"));
    const longitude = Number(col(fields, "longitude"));
    const answering = col(fields, "answering_psap_ids")
      .split(/[;\s]+/)
      .filter((x) => x.length > 0);
    if (!Number.isFinite(latitude) || !Number.isFinite(longitude) || answering.length === 0) {
      throw new Error(`${path}:${line}: bad coordinates or no answering PSAP`);
    }
    return {
      id: col(fields, "id"),
      category: col(fields, "category"),
      name: col(fields, "name"),
      state: col(fields, "state"),
      latitude,
      longitude,
      answering,
      why: col(fields, "why"),
    };
  });
}

/** Runs every place of the truth file against an index of the data set. */
export async function measureAccuracy(
  dataset: PsapDataset,
  places: readonly TruthPlace[],
  file: string,
  answeredByDirectory: (place: TruthPlace, area: PsapArea) => boolean = () => false,
): Promise<AccuracyResult> {
  const store = MemoryPsapStore.fromIndex(buildIndex(dataset, { version: "accuracy" }));
  resetPsapLookupCache(store);
  const byCategory = new Map<string, CategoryAccuracy>();
  const misses: AccuracyMiss[] = [];
  let top1 = 0;
  let top5 = 0;
  let withLine = 0;
  let with24x7 = 0;
  const independent = { places: 0, top1: 0, top5: 0 };
  for (const place of places) {
    // A fix as a phone gives it outdoors: good to about 20 m.
    const result = await lookupPsaps(store, {
      latitude: place.latitude,
      longitude: place.longitude,
      accuracy: 20,
    });
    const index = result.psaps.findIndex((p) => place.answering.includes(p.id));
    const rank = index < 0 ? null : index + 1;
    const lines = result.psaps[0]?.lines ?? [];
    if (lines.length > 0) withLine++;
    if (lines.some((l) => l.kind !== "administrative")) with24x7++;
    if (!answeredByDirectory(place, result.area)) {
      independent.places++;
      if (rank === 1) independent.top1++;
      if (rank !== null) independent.top5++;
    }
    const c = byCategory.get(place.category) ?? { category: place.category, places: 0, top1: 0, top5: 0 };
    c.places++;
    if (rank === 1) {
      c.top1++;
      top1++;
    }
    if (rank !== null) {
      c.top5++;
      top5++;
    }
    byCategory.set(place.category, c);
    if (rank !== 1) {
      const first = result.psaps[0];
      const a = result.area;
      misses.push({
        place,
        rank,
        first: first
          ? { id: first.id, name: first.name, jurisdiction: first.jurisdiction, match: first.match }
          : null,
        area: [a.place, a.county, a.state ?? a.country].filter((x) => x !== null).join(", "),
      });
    }
  }
  const pct = (n: number, of = places.length) => (of === 0 ? 0 : Math.round((1000 * n) / of) / 10);
  return {
    file,
    places: places.length,
    top1,
    top5,
    top1_pct: pct(top1),
    top5_pct: pct(top5),
    first_with_line_pct: pct(withLine),
    first_with_24x7_pct: pct(with24x7),
    independent: {
      ...independent,
      top1_pct: pct(independent.top1, independent.places),
      top5_pct: pct(independent.top5, independent.places),
    },
    categories: [...byCategory.values()].sort((a, b) => a.category.localeCompare(b.category)),
    misses,
  };
}

/** The Markdown table and miss list the bench prints and the README shows. */
export function formatAccuracy(result: AccuracyResult): string {
  const lines = [
    `**${result.file}**: ${result.places} places, first PSAP right in ${result.top1} (${result.top1_pct} %), in the top 5 in ${result.top5} (${result.top5_pct} %)`,
    "",
    `Without the ${result.places - result.independent.places} place${result.places - result.independent.places === 1 ? "" : "s"} a directory member row answers (independent of the directory): ${result.independent.places} places, top 1 ${result.independent.top1_pct} %, top 5 ${result.independent.top5_pct} %. The first PSAP has a sourced line at ${result.first_with_line_pct} % of the places, a 24/7 line at ${result.first_with_24x7_pct} %.`,
    "",
    table(
      ["category", "places", "top 1", "top 5"],
      result.categories.map((c) => [
        c.category,
        String(c.places),
        `${c.top1} (${Math.round((100 * c.top1) / c.places)} %)`,
        `${c.top5} (${Math.round((100 * c.top5) / c.places)} %)`,
      ]),
    ),
  ];
  if (result.misses.length > 0) {
    lines.push("", "Misses (expected centre, what came first, why it is expected):", "");
    for (const m of result.misses) {
      const first = m.first
        ? `${m.first.id} ${m.first.name} (${m.first.jurisdiction}, ${m.first.match})`
        : "nothing";
      lines.push(
        `- ${m.place.id} [${m.area}]: expected ${m.place.answering.join(" or ")} ${m.rank === null ? "(not in the top 5)" : `(at ${m.rank})`}; first ${first}. ${m.place.why}`,
      );
    }
  }
  return lines.join("\n");
}

/** The shared files of the real data at full resolution, in the import's order. */
export function fullResolutionPaths(dataDir: string): string[] {
  return [
    "fcc_master_psap_registry_v2.295.csv",
    "psap_registry.json",
    "census-places-2019.geojson.gz",
    "town-boundaries.geojson.gz",
    "tribal-areas-2011.geojson.gz",
    "national-parks-2020.geojson.gz",
  ].map((name) => join(dataDir, name));
}

/** The real data set at full resolution (plus any operator files, e.g. the shipped overrides). */
export async function fullResolutionDataset(
  dataDir: string,
  extraPaths: readonly string[] = [],
): Promise<PsapDataset> {
  return (await prepareImport([...fullResolutionPaths(dataDir), ...extraPaths])).dataset;
}
