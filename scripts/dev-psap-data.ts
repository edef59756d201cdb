// The PSAP data `npm run dev` serves. One way to ask for it: `npm run dev` serves the real FCC registry
// with Census city limits (the committed bundle, data/bundle/), `npm run dev -- --demo` the fictional demo
// set. The local index is imported only when it does not hold what was asked for: an empty index, the demo
// set without --demo, anything else with --demo, or an index made from the bundle by other bundle files or
// other import code than the checkout's (a pulled change would otherwise go on serving the old answers).
// An index an operator imported by hand (full resolution, a newer registry) is kept by `npm run dev`;
// --demo replaces it. The import CLI does the work.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { BUNDLE_FILES, bundlePaths } from "../data/bundle/build.ts";
import { IMPORT_NODE_FLAGS } from "../data/import/cli.ts";
import { LocalKvTarget } from "../data/import/kv-local.ts";
import { readCurrentManifest } from "../data/import/publish.ts";
import { markImportRunning } from "./dev-import-marker.ts";
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

/** The code that turns the bundle into an index: what it imports and how it indexes and ranks. */
export const IMPORT_CODE_DIRS = [
  "data/import",
  "data/index",
  "data/bundle",
  "data/directory",
  "data/overrides",
  "lib",
];

/**
 * What an index made from the bundle was made of: the bundle's files, the code that imports them and the
 * files the project ships beside it (the overrides and the PSAP directory's CSV files).
 */
export function bundleFingerprint(root: string = ROOT): string {
  const hash = createHash("sha256");
  const code = IMPORT_CODE_DIRS.flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".ts") || name.endsWith(".csv"))
      .map((name) => join(root, dir, name)),
  ).sort();
  for (const file of [...bundlePaths(join(root, "data/bundle")), ...code])
    hash.update(file.slice(root.length)).update(readFileSync(file));
  return hash.digest("hex").slice(0, 16);
}

/**
 * Whether the loaded index was made from the bundle (its data version names the bundle's files) by other
 * files or code than `fingerprint` says (`recorded`: what the last import by `npm run dev` recorded, or
 * null when none did). An index imported by hand from other files is never stale here.
 */
export function bundleIndexIsStale(loaded: string, recorded: string | null, fingerprint: string): boolean {
  const fromBundle = Object.values(BUNDLE_FILES).some((file) => loaded.includes(file));
  return fromBundle && recorded !== fingerprint;
}

/** Where `npm run dev` records what its last bundle import was made of: beside the local state. */
function fingerprintFile(persistTo: string | undefined): string {
  return join(
    persistTo === undefined ? join(ROOT, ".wrangler", "state") : resolve(ROOT, persistTo),
    "psap-bundle",
  );
}

function recordedFingerprint(persistTo: string | undefined): string | null {
  const file = fingerprintFile(persistTo);
  return existsSync(file) ? readFileSync(file, "utf8").trim() : null;
}

export async function loadPsapData(
  persistTo: string | undefined,
  demo: boolean,
): Promise<LoadedPsapData | null> {
  const store = new LocalKvTarget({ cwd: ROOT, persistTo });
  try {
    return await loadInto(store, persistTo, demo);
  } finally {
    await store.close();
  }
}

/** What loadPsapData does, with the local store it reads (opened on use, let go while the import runs). */
async function loadInto(
  store: LocalKvTarget,
  persistTo: string | undefined,
  demo: boolean,
): Promise<LoadedPsapData | null> {
  const current = await readCurrentManifest(store).catch(() => null);
  // The browser tests serve the bundle without the directory (SOS_DEV_DIRECTORY=off), so that every line
  // they show is one they set: the directory's rows change as centres are checked, their cases must not.
  const withDirectory = process.env.SOS_DEV_DIRECTORY !== "off";
  const fingerprint = demo ? null : `${bundleFingerprint()}${withDirectory ? "" : "-no-directory"}`;
  const stale =
    current !== null &&
    fingerprint !== null &&
    bundleIndexIsStale(current.data_version, recordedFingerprint(persistTo), fingerprint);
  if (current && servesWhatWasAsked(current.data_version, demo) && !stale)
    return { dataVersion: current.data_version, psaps: current.psaps };
  const what = demo ? "the demo PSAP data" : "the real PSAP data (data/bundle)";
  const why = stale ? " (made from other bundle files or import code than this checkout's)" : "";
  log(`loading ${what}${current ? ` in place of ${current.data_version}${why}` : ""}`);
  const cli = join(ROOT, "data/import/cli.ts");
  const inputs = demo ? ["--demo"] : bundlePaths();
  // Until it ends, a lookup says the data is still loading (src/psap-import-marker.ts). Written and
  // cleared through this store, which is open then anyway: no other local runtime to start for it.
  const mark = await markImportRunning(persistTo, { store });
  await store.close();
  const { code, output } = await runNode([
    ...IMPORT_NODE_FLAGS,
    cli,
    ...inputs,
    ...(withDirectory ? [] : ["--no-directory"]),
    ...(persistTo === undefined ? [] : ["--persist-to", persistTo]),
  ]);
  if (code !== 0) {
    await mark.done(store);
    warn(`loading ${what} failed (exit code ${code}):\n${output.trim()}`);
    return null;
  }
  if (fingerprint !== null) writeFileSync(fingerprintFile(persistTo), `${fingerprint}\n`);
  const manifest = await readCurrentManifest(store);
  await mark.done(store);
  return manifest ? { dataVersion: manifest.data_version, psaps: manifest.psaps } : null;
}
