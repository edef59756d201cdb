// What the project ships beside the code and every import of real data includes: the operator files of
// data/overrides/ (facts the registry cannot tell, each row with its reason) and the open PSAP directory of
// data/directory/ (lines, member communities and land areas of centres, each row with its source and the day
// it was read). The import CLI leaves out both with `--no-shipped-overrides`, the directory alone with
// `--no-directory`; the accuracy bench measures with and without.
import { readdirSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const DIRECTORY_DIR = resolve(ROOT, "data/directory");

export const SHIPPED_OVERRIDE_FILES: readonly string[] = [resolve(ROOT, "data/overrides/psap-overrides.csv")];

function csvFilesIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".csv"))
    .sort()
    .map((f) => join(dir, f));
}

/** Every CSV file of the directory: its lines and member files, one per state, and its land areas. */
export const DIRECTORY_FILES: readonly string[] = [
  ...csvFilesIn(join(DIRECTORY_DIR, "lines")),
  ...csvFilesIn(join(DIRECTORY_DIR, "members")),
  join(DIRECTORY_DIR, "areas.csv"),
];

/** The overrides and the directory: what `npm run psap:import` adds to real data by default. */
export const SHIPPED_OPERATOR_FILES: readonly string[] = [...SHIPPED_OVERRIDE_FILES, ...DIRECTORY_FILES];

/** True for a file of the shipped directory (its lines are `directory` lines, not the operator's). */
export function isDirectoryFile(path: string): boolean {
  return resolve(path).startsWith(DIRECTORY_DIR + sep);
}
