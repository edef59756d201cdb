// Loads the real data (FCC registry CSV, its 2017 JSON export, Census places, town boundaries, and the
// shipped operator files) through the importer, as `npm run psap:import` does.
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
 * The registry CSV, the JSON export, the Census places and the town boundaries in `dir` (a folder without
 * town boundaries is read without them), or a message saying what is missing.
 */
export function fccFiles(
  dir: string,
): { csv: string; json: string; places: string; towns: string | null } | { missing: string } {
  if (!existsSync(dir)) return { missing: `${dir} does not exist` };
  const names = readdirSync(dir);
  const csv =
    names.find((n) => /master.*psap.*registry.*\.csv$/i.test(n)) ?? names.find((n) => n.endsWith(".csv"));
  const json =
    names.find((n) => /psap.*registry.*\.json$/i.test(n)) ?? names.find((n) => n.endsWith(".json"));
  const places = names.find((n) => /census-places.*\.geojson(\.gz)?$/i.test(n));
  const towns = names.find((n) => /town-boundaries.*\.geojson(\.gz)?$/i.test(n));
  if (!csv || !json || !places)
    return { missing: `${dir} holds no registry CSV, JSON export and Census places` };
  return {
    csv: join(dir, csv),
    json: join(dir, json),
    places: join(dir, places),
    towns: towns ? join(dir, towns) : null,
  };
}

/** The FCC data set with Census places, towns and counties at full resolution, exactly as the CLI builds it. */
export async function loadFccDataset(dir: string): Promise<PsapDataset> {
  const files = fccFiles(dir);
  if ("missing" in files)
    throw new Error(`FCC data: ${files.missing} (set PSAP_DATA_DIR or pass --data DIR)`);
  const inputs = [files.csv, files.json, files.places, ...(files.towns ? [files.towns] : [])];
  return (await prepareImport([...inputs, ...SHIPPED_OPERATOR_FILES])).dataset;
}
