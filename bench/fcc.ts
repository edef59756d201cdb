// Loads the FCC registry (CSV, 2017 JSON export, Census places) through the importer, as `npm run psap:import` does.
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { prepareImport } from "../data/import/pipeline.ts";
import type { PsapDataset } from "../data/index/dataset.ts";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** `--data DIR`, else $PSAP_DATA_DIR, else ../shared/psap-data beside the repository. */
export function psapDataDir(flag?: string): string {
  return resolve(flag ?? process.env.PSAP_DATA_DIR ?? join(REPO_ROOT, "..", "shared", "psap-data"));
}

/** The registry CSV, the JSON export and the Census places in `dir`, or a message saying what is missing. */
export function fccFiles(dir: string): { csv: string; json: string; places: string } | { missing: string } {
  if (!existsSync(dir)) return { missing: `${dir} does not exist` };
  const names = readdirSync(dir);
  const csv =
    names.find((n) => /master.*psap.*registry.*\.csv$/i.test(n)) ?? names.find((n) => n.endsWith(".csv"));
  const json =
    names.find((n) => /psap.*registry.*\.json$/i.test(n)) ?? names.find((n) => n.endsWith(".json"));
  const places = names.find((n) => /census-places.*\.geojson(\.gz)?$/i.test(n));
  if (!csv || !json || !places)
    return { missing: `${dir} holds no registry CSV, JSON export and Census places` };
  return { csv: join(dir, csv), json: join(dir, json), places: join(dir, places) };
}

/** The FCC data set with Census places and counties at full resolution, exactly as the import builds it. */
export async function loadFccDataset(dir: string): Promise<PsapDataset> {
  const files = fccFiles(dir);
  if ("missing" in files)
    throw new Error(`FCC data: ${files.missing} (set PSAP_DATA_DIR or pass --data DIR)`);
  return (await prepareImport([files.csv, files.json, files.places])).dataset;
}
