// SDK size: minified and gzipped bytes of each browser module, as shipped in sdk/dist.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { REPO_ROOT } from "./fcc.ts";
import type { SdkResult } from "./results.ts";

const run = promisify(execFile);
const MODULES = ["patient", "counselor"] as const;

export function gzBytes(code: Uint8Array | string): number {
  return gzipSync(code, { level: 9 }).length;
}

/** A fallback when sdk/dist cannot be built: esbuild bundle + minify of sdk/src, in memory. */
export async function bundleMinified(module: string): Promise<Uint8Array> {
  const out = await build({
    entryPoints: [join(REPO_ROOT, "sdk", "src", `${module}.ts`)],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
    write: false,
    logLevel: "silent",
  });
  const file = out.outputFiles[0];
  if (!file) throw new Error(`esbuild produced nothing for ${module}`);
  return file.contents;
}

export async function benchSdkSize(
  log: (line: string) => void = () => {},
): Promise<{ result: SdkResult; source: string }> {
  const dist = (m: string) => join(REPO_ROOT, "sdk", "dist", `${m}.js`);
  let source = "sdk/dist (npm run build:sdk)";
  if (!MODULES.every((m) => existsSync(dist(m)))) {
    log("  sdk: sdk/dist missing, running npm run build:sdk");
    try {
      await run(process.execPath, [join(REPO_ROOT, "scripts", "build-sdk.ts")], {
        cwd: REPO_ROOT,
        timeout: 120_000,
      });
    } catch (err) {
      log(
        `  sdk: build:sdk failed (${(err as Error).message.split("\n")[0]}); bundling sdk/src with esbuild`,
      );
    }
  }
  const sizes: number[] = [];
  for (const m of MODULES) {
    if (existsSync(dist(m))) sizes.push(gzBytes(readFileSync(dist(m))));
    else {
      source = "esbuild bundle of sdk/src (minified)";
      sizes.push(gzBytes(await bundleMinified(m)));
    }
  }
  return {
    result: { patient_min_gz_bytes: sizes[0] ?? Number.NaN, counselor_min_gz_bytes: sizes[1] ?? Number.NaN },
    source,
  };
}
