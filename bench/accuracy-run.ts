// `npm run bench -- --only accuracy`: the truth sets against the full-resolution data and the bundle
// `npm run dev` serves, the README's accuracy section written from the figures (never typed by hand).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundlePaths } from "../data/bundle/build.ts";
import { prepareImport } from "../data/import/pipeline.ts";
import { buildIndex } from "../data/index/build.ts";
import type { PsapDataset } from "../data/index/dataset.ts";
import { MemoryPsapStore } from "../data/index/memory-store.ts";
import { lookupPsaps, resetPsapLookupCache } from "../src/psap/lookup.ts";
import {
  type AccuracyResult,
  formatAccuracy,
  fullResolutionDataset,
  measureAccuracy,
  readTruth,
  type TruthPlace,
} from "./accuracy.ts";

export const ACCURACY_MARKER = "<!-- section: accuracy (owner: psap) -->";
/** The truth sets: the one the import's rules were developed against, and the one held out. */
export const TRUTH_FILES = ["bench/truth/places.csv", "bench/truth/holdout.csv"] as const;

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
  full: AccuracyResult[];
  bundle: AccuracyResult[];
  /** Full resolution plus the committed operator overrides (data/overrides/), when there are any. */
  withOverrides: AccuracyResult[];
  comparison: BundleComparison;
}

/** The committed operator override files: facts the registry cannot tell, measured apart from the rules. */
export const OVERRIDE_FILES = ["data/overrides/psap-overrides.csv"] as const;

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
  log("accuracy: importing the full-resolution data and the bundle");
  const full = await fullResolutionDataset(dataDir);
  const bundle = (await prepareImport(bundlePaths())).dataset;
  const overrides = OVERRIDE_FILES.map((f) => join(root, f)).filter((f) => existsSync(f));
  const withOverrides = overrides.length > 0 ? await fullResolutionDataset(dataDir, overrides) : null;
  const out: AccuracyBench = {
    full: [],
    bundle: [],
    withOverrides: [],
    comparison: { places: 0, firstDiffers: 0, borderMoved: 0, other: [] },
  };
  const all: TruthPlace[] = [];
  for (const file of files) {
    const places = readTruth(join(root, file));
    all.push(...places);
    out.full.push(await measureAccuracy(full, places, file));
    out.bundle.push(await measureAccuracy(bundle, places, `${file} (bundle)`));
    if (withOverrides)
      out.withOverrides.push(await measureAccuracy(withOverrides, places, `${file} (with overrides)`));
    const f = out.full[out.full.length - 1] as AccuracyResult;
    log(`  accuracy ${file}: top 1 ${f.top1_pct} %, top 5 ${f.top5_pct} % of ${f.places}`);
  }
  out.comparison = await compareBundle(full, bundle, all);
  return out;
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
    "registered in them; every row says why, `bench/truth/README.md` how it was established), is the first PSAP the one",
    "that answers, and is it in the top 5? A fix as a phone gives it outdoors (accuracy 20 m). The",
    "first file is the set the import's rules were developed against; the second was held out and",
    "only measured. Figures of `npm run bench -- --only accuracy` at " + when + ", full-resolution data",
    "(`../shared/psap-data`):",
    "",
  ];
  for (const r of bench.full) lines.push(formatAccuracy(r), "");
  const b = bench.bundle.map((r) => `${r.file}: top 1 ${r.top1_pct} %, top 5 ${r.top5_pct} %`).join("; ");
  if (bench.withOverrides.length > 0) {
    const o = bench.withOverrides
      .map((r) => `${r.file.replace(" (with overrides)", "")}: top 1 ${r.top1_pct} %, top 5 ${r.top5_pct} %`)
      .join("; ");
    lines.push(
      `The figures above are the import's rules alone. With the operator overrides of \`data/overrides/\``,
      `(facts the registry's names cannot tell, each documented there) added to the same import: ${o}.`,
      "",
    );
  }
  const c = bench.comparison;
  lines.push(
    `The bundle \`npm run dev\` serves (places simplified to about 100 m): ${b}. Its first PSAP differs from the`,
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
