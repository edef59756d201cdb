// Loads the real data (FCC registry CSV, its 2017 JSON export, Census places, town boundaries, tribal
// areas, National Parks, and the shipped operator files) through the importer, as `npm run psap:import` does.
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { prepareImport } from "../data/import/pipeline.ts";
import { SHIPPED_OPERATOR_FILES } from "../data/import/shipped.ts";
import type { PsapDataset } from "../data/index/dataset.ts";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** `--data DIR`, else $PSAP_DATA_DIR, else ../shared/psap-data beside the repository. */
export function psapDataDir(flag?: string): string {
  return resolve(flag ?? process.env.PSAP_DATA_DIR ?? join(REPO_ROOT, "..", "shared", "psap-data"));
}

/**
 * The registry CSV, the JSON export, the Census places, the town boundaries and the land areas (tribal
 * areas, National Parks) in `dir` (a folder without towns or land areas is read without them), or a
 * message saying what is missing.
 */
export function fccFiles(
  dir: string,
): { csv: string; json: string; places: string; towns: string | null; land: string[] } | { missing: string } {
  if (!existsSync(dir)) return { missing: `${dir} does not exist` };
  const names = readdirSync(dir);
  const csv =
    names.find((n) => /master.*psap.*registry.*\.csv$/i.test(n)) ?? names.find((n) => n.endsWith(".csv"));
  const json =
    names.find((n) => /psap.*registry.*\.json$/i.test(n)) ?? names.find((n) => n.endsWith(".json"));
  const places = names.find((n) => /census-places.*\.geojson(\.gz)?$/i.test(n));
  const towns = names.find((n) => /town-boundaries.*\.geojson(\.gz)?$/i.test(n));
  const land = names.filter((n) => /^(tribal-areas|national-parks).*\.geojson(\.gz)?$/i.test(n)).sort();
  if (!csv || !json || !places)
    return { missing: `${dir} holds no registry CSV, JSON export and Census places` };
  return {
    csv: join(dir, csv),
    json: join(dir, json),
    places: join(dir, places),
    towns: towns ? join(dir, towns) : null,
    land: land.map((n) => join(dir, n)),
  };
}

/** The FCC data set with Census places, towns, land areas and counties at full resolution, exactly as the CLI builds it. */
export async function loadFccDataset(dir: string): Promise<PsapDataset> {
  const files = fccFiles(dir);
  if ("missing" in files)
    throw new Error(`FCC data: ${files.missing} (set PSAP_DATA_DIR or pass --data DIR)`);
  const inputs = [files.csv, files.json, files.places, ...(files.towns ? [files.towns] : []), ...files.land];
  return (await prepareImport([...inputs, ...SHIPPED_OPERATOR_FILES])).dataset;
}
