// `npm run bench -- --only accuracy`: the truth sets against the full-resolution data and the bundle
// `npm run dev` serves, the README's accuracy section written from the figures (never typed by hand).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundlePaths } from "../data/bundle/build.ts";
import { prepareImport } from "../data/import/pipeline.ts";
import { readMemberTowns } from "../data/import/read-member-towns.ts";
import { DIRECTORY_FILES, SHIPPED_OPERATOR_FILES, SHIPPED_OVERRIDE_FILES } from "../data/import/shipped.ts";
import { buildIndex } from "../data/index/build.ts";
import type { PsapDataset } from "../data/index/dataset.ts";
import { MemoryPsapStore } from "../data/index/memory-store.ts";
import type { PsapArea } from "../sdk/src/protocol.ts";
import { lookupPsaps } from "../src/answer/lookup.ts";
import { resetPsapLookupCache } from "../src/psap/lookup.ts";
import {
  type AccuracyResult,
  formatAccuracy,
  fullResolutionDataset,
  measureAccuracy,
  readTruth,
  type TruthPlace,
} from "./accuracy.ts";

export const ACCURACY_MARKER = "<!-- section: accuracy (owner: psap) -->";
/**
 * The truth sets, in pairs: the places the import's rules were developed against, and those held out
 * (bench/truth/README.md); the second pair is in the states where towns and townships govern.
 */
export const TRUTH_FILES = [
  "bench/truth/places.csv",
  "bench/truth/holdout.csv",
  "bench/truth/towns.csv",
  "bench/truth/towns-holdout.csv",
] as const;

export interface BundleComparison {
  places: number;
  /** Places where the bundle's first PSAP is not the full-resolution one. */
  firstDiffers: number;
  /** Of those, where the containing place or county differs (a border moved by the simplification). */
  borderMoved: number;
  /** Any other difference (none is expected). */
  other: { id: string; full: string | null; bundle: string | null }[];
}

export interface AccuracyBench {
  /** The default import at full resolution: the shared files, the shipped overrides and the PSAP directory. */
  full: AccuracyResult[];
  /** The same with the overrides but without the directory (`--no-directory`). */
  noDirectory: AccuracyResult[];
  /** The same without anything shipped (`--no-shipped-overrides`): the import's rules alone. */
  rulesOnly: AccuracyResult[];
  /** The bundle `npm run dev` serves, with the shipped operator files, as the dev script imports it. */
  bundle: AccuracyResult[];
  comparison: BundleComparison;
}

async function compareBundle(
  full: PsapDataset,
  bundle: PsapDataset,
  places: TruthPlace[],
): Promise<BundleComparison> {
  const stores = [full, bundle].map((d) => MemoryPsapStore.fromIndex(buildIndex(d, { version: "compare" })));
  const comparison: BundleComparison = { places: places.length, firstDiffers: 0, borderMoved: 0, other: [] };
  for (const p of places) {
    const [a, b] = await Promise.all(
      stores.map((store) => {
        resetPsapLookupCache(store);
        return lookupPsaps(store, { latitude: p.latitude, longitude: p.longitude, accuracy: 20 });
      }),
    );
    if (!a || !b || a.psaps[0]?.id === b.psaps[0]?.id) continue;
    comparison.firstDiffers++;
    if (a.area.place !== b.area.place || a.area.county !== b.area.county) comparison.borderMoved++;
    else comparison.other.push({ id: p.id, full: a.psaps[0]?.id ?? null, bundle: b.psaps[0]?.id ?? null });
  }
  return comparison;
}

export async function benchAccuracy(
  root: string,
  dataDir: string,
  log: (line: string) => void,
): Promise<AccuracyBench> {
  const files = TRUTH_FILES.filter((f) => existsSync(join(root, f)));
  if (files.length === 0) throw new Error("no truth set in bench/truth/");
  log(
    "accuracy: importing the full-resolution data (with and without the shipped operator files) and the bundle",
  );
  const full = await fullResolutionDataset(dataDir, SHIPPED_OPERATOR_FILES);
  const noDirectory = await fullResolutionDataset(dataDir, SHIPPED_OVERRIDE_FILES);
  const rulesOnly = await fullResolutionDataset(dataDir);
  const answeredByDirectory = directoryAnswers();
  const bundle = (await prepareImport([...bundlePaths(), ...SHIPPED_OPERATOR_FILES])).dataset;
  const out: AccuracyBench = {
    full: [],
    noDirectory: [],
    rulesOnly: [],
    bundle: [],
    comparison: { places: 0, firstDiffers: 0, borderMoved: 0, other: [] },
  };
  const all: TruthPlace[] = [];
  for (const file of files) {
    const places = readTruth(join(root, file));
    all.push(...places);
    out.full.push(await measureAccuracy(full, places, file, answeredByDirectory));
    out.noDirectory.push(await measureAccuracy(noDirectory, places, `${file} (without the directory)`));
    out.rulesOnly.push(await measureAccuracy(rulesOnly, places, `${file} (rules alone)`));
    out.bundle.push(await measureAccuracy(bundle, places, `${file} (bundle)`));
    const f = out.full[out.full.length - 1] as AccuracyResult;
    log(`  accuracy ${file}: top 1 ${f.top1_pct} %, top 5 ${f.top5_pct} % of ${f.places}`);
  }
  out.comparison = await compareBundle(full, bundle, all);
  return out;
}

/**
 * Whether a directory member row gives a place's answer: a row naming one of its answering centres for the
 * municipality that contains it. Such a place measures the directory's sources as much as the lookup.
 */
function directoryAnswers(): (place: TruthPlace, area: PsapArea) => boolean {
  const rows = new Set<string>();
  for (const path of DIRECTORY_FILES.filter((f) => f.includes("/members/"))) {
    for (const r of readMemberTowns(path, readFileSync(path, "utf8")).rows)
      rows.add(`${r.psapId}|${r.state}|${r.municipality.toLowerCase()}`);
  }
  return (place, area) =>
    area.place !== null &&
    place.answering.some((id) => rows.has(`${id}|${area.state}|${(area.place as string).toLowerCase()}`));
}

/** The README section, from the figures. */
export function accuracyMarkdown(bench: AccuracyBench, when: string): string {
  const lines = [
    ACCURACY_MARKER,
    "## Accuracy against real places",
    "",
    "At real places whose answering 911 centre is known from public sources (`bench/truth/`: city",
    "halls, unincorporated communities, consolidated centres, state lines, New York's boroughs,",
    "tribal lands, territories, small towns, cities across county lines, big cities with many PSAPs",
    "registered in them, and the towns and townships of New England, New Jersey, New York, Pennsylvania,",
    "Michigan, Wisconsin and Minnesota; every row says why, `bench/truth/README.md` how it was established),",
    "is the first PSAP the one that answers, and is it in the top 5? A fix as a phone gives it outdoors",
    "(accuracy 20 m). Of each pair of files, the first is the set the import's rules were developed against;",
    "the second was held out and only measured. Figures of `npm run bench -- --only accuracy` at " +
      when +
      ",",
    "full-resolution data (`../shared/psap-data`: the registry, its geocodes, Census places, towns, tribal lands and",
    "National Parks) imported as the CLI does, with what the project ships: the overrides (`data/overrides/`) and",
    "the PSAP directory (`data/directory/`: lines, member communities of regional centres, land areas):",
    "",
  ];
  for (const r of bench.full) lines.push(formatAccuracy(r), "");
  const summary = (results: readonly AccuracyResult[], suffix: string) =>
    results
      .map((r) => `${r.file.replace(suffix, "")}: top 1 ${r.top1_pct} %, top 5 ${r.top5_pct} %`)
      .join("; ");
  lines.push(
    `Without the directory (\`--no-directory\`): ${summary(bench.noDirectory, " (without the directory)")}.`,
    "",
    `The import's rules alone, without anything shipped (\`--no-shipped-overrides\`):`,
    `${summary(bench.rulesOnly, " (rules alone)")}.`,
    "",
  );
  const b = summary(bench.bundle, " (bundle)");
  const c = bench.comparison;
  lines.push(
    `The bundle \`npm run dev\` serves (places and towns simplified to 100 m): ${b}. Its first PSAP differs from the`,
    `full-resolution one at ${c.firstDiffers} of ${c.places} places, ${c.borderMoved} of them where the simplified`,
    `border puts the point in another place or county${c.other.length > 0 ? `, ${c.other.length} for another reason (${c.other.map((o) => o.id).join(", ")})` : ""}.`,
    "",
  );
  return lines.join("\n");
}

/** Replaces the accuracy section of the README (added before the performance section when absent). */
export function replaceAccuracySection(readmePath: string, markdown: string): void {
  const text = readFileSync(readmePath, "utf8");
  const start = text.indexOf(ACCURACY_MARKER);
  if (start >= 0) {
    const next = text.indexOf("<!-- section:", start + ACCURACY_MARKER.length);
    writeFileSync(readmePath, text.slice(0, start) + markdown + (next >= 0 ? text.slice(next) : ""));
    return;
  }
  const perf = text.indexOf("<!-- section: performance");
  writeFileSync(
    readmePath,
    perf >= 0 ? text.slice(0, perf) + markdown + text.slice(perf) : `${text}\n${markdown}`,
  );
}
