// The bench's wrangler config, derived from the real one at run time (so it always has every binding
// of wrangler.toml): the bench entry (floor/worker.ts) as `main`, the floor Durable Object added, and
// paths made absolute so the config can live in the run's temporary folder.
import { writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { experimental_readRawConfig } from "wrangler";
import { REPO_ROOT } from "../fcc.ts";

export const FLOOR_ENTRY = join(REPO_ROOT, "bench", "floor", "worker.ts");
export const FLOOR_BINDING = { name: "FLOOR", class_name: "FloorObject" } as const;
export const FLOOR_MIGRATION = { tag: "bench-floor-v1", new_sqlite_classes: ["FloorObject"] } as const;

type Json = Record<string, unknown>;

function objects(value: unknown): Json[] {
  return Array.isArray(value)
    ? value.filter((v): v is Json => typeof v === "object" && v !== null && !Array.isArray(v))
    : [];
}

/** The real config (top level, production's `env` left out) turned into the bench's. */
export function floorConfig(raw: Json, baseDir: string): Json {
  const { env: _production, ...top } = raw;
  const abs = (p: unknown) => (typeof p === "string" && !isAbsolute(p) ? resolve(baseDir, p) : p);
  const config: Json = { ...top, main: FLOOR_ENTRY };
  if (typeof top.assets === "object" && top.assets !== null) {
    const assets = top.assets as Json;
    config.assets = { ...assets, ...(assets.directory ? { directory: abs(assets.directory) } : {}) };
    // The floor's paths reach the worker the way the API's do (no asset lookup first), so both are timed alike.
    if (Array.isArray(assets.run_worker_first))
      config.assets = {
        ...(config.assets as Json),
        run_worker_first: [...assets.run_worker_first, "/__floor/*"],
      };
  }
  if (Array.isArray(top.d1_databases))
    config.d1_databases = objects(top.d1_databases).map((d) =>
      d.migrations_dir ? { ...d, migrations_dir: abs(d.migrations_dir) } : d,
    );
  if (typeof top.tsconfig === "string") config.tsconfig = abs(top.tsconfig);
  const durable = (
    typeof top.durable_objects === "object" && top.durable_objects !== null ? top.durable_objects : {}
  ) as Json;
  config.durable_objects = { ...durable, bindings: [...objects(durable.bindings), FLOOR_BINDING] };
  config.migrations = [...objects(top.migrations), FLOOR_MIGRATION];
  return config;
}

/** Writes the bench config for the repository's wrangler.toml into `dir`; returns its path. */
export function writeFloorConfig(dir: string, configPath = join(REPO_ROOT, "wrangler.toml")): string {
  const { rawConfig } = experimental_readRawConfig({ config: configPath });
  const path = join(dir, "wrangler.bench.json");
  writeFileSync(path, `${JSON.stringify(floorConfig(rawConfig as Json, dirname(configPath)), null, 2)}\n`);
  return path;
}
