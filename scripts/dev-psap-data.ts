// The PSAP data `npm run dev` loads into the local index: the real FCC registry with Census city limits
// from the committed bundle (data/bundle/), or the demo set with `--demo`. The import CLI does the work,
// and does nothing when an index is loaded already (--if-empty).
import { join } from "node:path";
import { bundlePaths } from "../data/bundle/build.ts";
import { WranglerKvTarget } from "../data/import/kv.ts";
import { readCurrentManifest } from "../data/import/publish.ts";
import { ROOT, runNode, warn } from "./dev-run.ts";

/** What the banner says about the loaded data, and how to load the full-resolution or a newer registry. */
export interface LoadedPsapData {
  dataVersion: string;
  psaps: number;
}

export const FULL_RESOLUTION_IMPORT =
  "npm run psap:import -- ../shared/psap-data/fcc_master_psap_registry_v2.295.csv ../shared/psap-data/psap_registry.json ../shared/psap-data/census-places-2019.geojson.gz ../shared/psap-data/town-boundaries.geojson.gz";

export async function loadPsapData(
  persistTo: string | undefined,
  demo: boolean,
): Promise<LoadedPsapData | null> {
  const cli = join(ROOT, "data/import/cli.ts");
  const store = persistTo === undefined ? [] : ["--persist-to", persistTo];
  const inputs = demo ? ["--demo"] : bundlePaths();
  const { code, output } = await runNode([cli, ...inputs, "--if-empty", ...store]);
  if (code !== 0) {
    const what = demo ? "the demo PSAP data" : "the real PSAP data (data/bundle)";
    warn(`loading ${what} failed (exit code ${code}):\n${output.trim()}`);
    return null;
  }
  const manifest = await readCurrentManifest(new WranglerKvTarget({ remote: false, cwd: ROOT, persistTo }));
  return manifest ? { dataVersion: manifest.data_version, psaps: manifest.psaps } : null;
}
