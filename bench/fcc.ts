// Loads the FCC registry (CSV + 2017 JSON export) through the importer, as `npm run psap:import` does.
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { prepareImport } from "../data/import/pipeline.ts";
import type { PsapDataset } from "./lookup-contenders.ts";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** `--data DIR`, else $PSAP_DATA_DIR, else ../shared/psap-data beside the repository. */
export function psapDataDir(flag?: string): string {
  return resolve(flag ?? process.env.PSAP_DATA_DIR ?? join(REPO_ROOT, "..", "shared", "psap-data"));
}

/** The registry CSV and the JSON export in `dir`, or a message saying what is missing. */
export function fccFiles(dir: string): { csv: string; json: string } | { missing: string } {
  if (!existsSync(dir)) return { missing: `${dir} does not exist` };
  const names = readdirSync(dir);
  const csv =
    names.find((n) => /master.*psap.*registry.*\.csv$/i.test(n)) ?? names.find((n) => n.endsWith(".csv"));
  const json =
    names.find((n) => /psap.*registry.*\.json$/i.test(n)) ?? names.find((n) => n.endsWith(".json"));
  if (!csv || !json) return { missing: `${dir} holds no registry CSV and JSON export` };
  return { csv: join(dir, csv), json: join(dir, json) };
}

/** The FCC data set with county areas, exactly as the import builds it. */
export function loadFccDataset(dir: string): PsapDataset {
  const files = fccFiles(dir);
  if ("missing" in files)
    throw new Error(`FCC data: ${files.missing} (set PSAP_DATA_DIR or pass --data DIR)`);
  return prepareImport([files.csv, files.json]).dataset;
}
