// The last runs' results (bench/results/history, gitignored like latest.json: figures belong to the
// machine they were taken on), so the README can show each figure's spread over runs.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type BenchResults, resultsShapeProblems } from "./results.ts";
import type { StateMedium } from "./state-dir.ts";

export type RunMode = "quick" | "full";

export interface HistoryRun {
  file: string;
  mode: RunMode;
  /** Where its servers kept their state (bench/state-dir.ts); unknown for runs saved before it was recorded. */
  medium?: StateMedium;
  results: BenchResults;
}

export const HISTORY_KEEP = 10;
const NAME = /^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)\.(quick|full)(?:\.(memory|disk))?\.json$/;

/** Adds a run (named by its date, mode and state medium) and keeps the newest `keep`. */
export function saveHistory(
  dir: string,
  results: BenchResults,
  mode: RunMode,
  medium?: StateMedium,
  keep = HISTORY_KEEP,
): string {
  mkdirSync(dir, { recursive: true });
  const stamp = results.machine.date.replace(/[:.]/g, "-");
  const file = `${stamp}.${mode}${medium ? `.${medium}` : ""}.json`;
  writeFileSync(join(dir, file), `${JSON.stringify(results, null, 2)}\n`);
  const names = readdirSync(dir)
    .filter((n) => NAME.test(n))
    .sort();
  for (const old of names.slice(0, Math.max(0, names.length - keep))) rmSync(join(dir, old));
  return file;
}

/** Kept runs, oldest first; files of another shape (an older bench) are left out. */
export function loadHistory(dir: string): HistoryRun[] {
  if (!existsSync(dir)) return [];
  const out: HistoryRun[] = [];
  for (const file of readdirSync(dir).sort()) {
    const m = NAME.exec(file);
    if (!m) continue;
    try {
      const results = JSON.parse(readFileSync(join(dir, file), "utf8")) as unknown;
      if (resultsShapeProblems(results).length > 0) continue;
      const medium = m[3] as StateMedium | undefined;
      out.push({
        file,
        mode: m[2] as RunMode,
        ...(medium ? { medium } : {}),
        results: results as BenchResults,
      });
    } catch {
      // unreadable: not a run
    }
  }
  return out;
}
