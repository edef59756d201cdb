// The PSAP data `npm run dev` serves. One way to ask for it: `npm run dev` serves the real FCC registry
// with Census city limits (the committed bundle, data/bundle/), `npm run dev -- --demo` the fictional demo
// set. The local index is imported only when it does not hold what was asked for: an empty index, the demo
// set without --demo, or anything else with --demo. An index an operator imported by hand (full
// resolution, a newer registry) is kept by `npm run dev`; --demo replaces it. The import CLI does the work.
import { join } from "node:path";
import { bundlePaths } from "../data/bundle/build.ts";
import { IMPORT_NODE_FLAGS } from "../data/import/cli.ts";
import { LocalKvTarget } from "../data/import/kv-local.ts";
import { readCurrentManifest } from "../data/import/publish.ts";
import { log, ROOT, runNode, warn } from "./dev-run.ts";

/** The `data_version` of the demo set (the import CLI's label for `--demo`). */
export const DEMO_DATA_VERSION = "demo";

/** What the banner says about the loaded data, and how to load the full-resolution or a newer registry. */
export interface LoadedPsapData {
  dataVersion: string;
  psaps: number;
}

export const FULL_RESOLUTION_IMPORT =
  "npm run psap:import -- ../shared/psap-data/fcc_master_psap_registry_v2.295.csv ../shared/psap-data/psap_registry.json ../shared/psap-data/census-places-2019.geojson.gz ../shared/psap-data/town-boundaries.geojson.gz";

/** Whether the loaded index (its `data_version`, or null when empty) is what `npm run dev` was asked for. */
export function servesWhatWasAsked(loaded: string | null, demo: boolean): boolean {
  if (loaded === null) return false;
  return demo ? loaded === DEMO_DATA_VERSION : loaded !== DEMO_DATA_VERSION;
}

export async function loadPsapData(
  persistTo: string | undefined,
  demo: boolean,
): Promise<LoadedPsapData | null> {
  const store = new LocalKvTarget({ cwd: ROOT, persistTo });
  const current = await readCurrentManifest(store)
    .catch(() => null)
    .finally(() => store.close());
  if (current && servesWhatWasAsked(current.data_version, demo))
    return { dataVersion: current.data_version, psaps: current.psaps };
  const what = demo ? "the demo PSAP data" : "the real PSAP data (data/bundle)";
  log(`loading ${what}${current ? ` in place of ${current.data_version}` : ""}`);
  const cli = join(ROOT, "data/import/cli.ts");
  const inputs = demo ? ["--demo"] : bundlePaths();
  const { code, output } = await runNode([
    ...IMPORT_NODE_FLAGS,
    cli,
    ...inputs,
    ...(persistTo === undefined ? [] : ["--persist-to", persistTo]),
  ]);
  if (code !== 0) {
    warn(`loading ${what} failed (exit code ${code}):\n${output.trim()}`);
    return null;
  }
  const manifest = await readCurrentManifest(store).finally(() => store.close());
  return manifest ? { dataVersion: manifest.data_version, psaps: manifest.psaps } : null;
}
