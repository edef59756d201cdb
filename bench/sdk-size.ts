// SDK size: minified and gzipped bytes of each browser module, built here from sdk/src with the very
// esbuild options `npm run build:sdk` ships with (scripts/build-sdk.ts). Never read from sdk/dist: a
// build left there by an earlier checkout would report the size of code that is no longer the source.
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { bundleOptions } from "../scripts/build-sdk.ts";
import type { SdkResult } from "./results.ts";

const MODULES = ["patient", "counselor"] as const;

export function gzBytes(code: Uint8Array | string): number {
  return gzipSync(code, { level: 9 }).length;
}

/** One module as `npm run build:sdk` writes it (minified, props mangled), in memory. */
export async function bundleMinified(module: string): Promise<Uint8Array> {
  const out = await build({ ...bundleOptions(module), write: false, logLevel: "silent" });
  const file = out.outputFiles?.[0];
  if (!file) throw new Error(`esbuild produced nothing for ${module}`);
  return file.contents;
}

export async function benchSdkSize(): Promise<{ result: SdkResult; source: string }> {
  const [patient, counselor] = await Promise.all(MODULES.map(async (m) => gzBytes(await bundleMinified(m))));
  return {
    result: { patient_min_gz_bytes: patient ?? Number.NaN, counselor_min_gz_bytes: counselor ?? Number.NaN },
    source: "sdk/src bundled with build:sdk's esbuild options",
  };
}
