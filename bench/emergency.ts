// `npm run bench:emergency`: what the country lookup and the emergency table cost the worker, per call and per isolate.
// Prints the bundle bytes the module adds, the time to load it, and microseconds per call of each function.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { emergencyNumbersFor, locateCountry, withinReachOfUs } from "../src/emergency/index.ts";
import { REPO_ROOT } from "./fcc.ts";
import { seededRandom } from "./random.ts";
import { percentiles, round } from "./stats.ts";

const BATCH = 1_000;

async function bundleBytes(entry: string, minify: boolean): Promise<{ raw: number; gzip: number }> {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "neutral",
    minify,
    write: false,
    logLevel: "silent",
  });
  const code = out.outputFiles[0]?.contents ?? new Uint8Array();
  return { raw: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

/** Milliseconds to import the module in a fresh process: parsing the borders and building the library's index. */
function loadMs(runs: number): number[] {
  const script = `const t = performance.now(); await import(${JSON.stringify(join(REPO_ROOT, "src/emergency/index.ts"))}); console.log(performance.now() - t);`;
  return Array.from({ length: runs }, () =>
    Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })),
  );
}

/** Microseconds per call, from batches of BATCH calls (a timer read per call would cost more than the call). */
function perCallUs(points: readonly [number, number][], call: (lat: number, lon: number) => unknown) {
  const batches: number[] = [];
  let sink = 0;
  for (let start = 0; start + BATCH <= points.length; start += BATCH) {
    const t = performance.now();
    for (let i = start; i < start + BATCH; i++) {
      const [lat, lon] = points[i] as [number, number];
      if (call(lat, lon)) sink++;
    }
    batches.push(((performance.now() - t) * 1000) / BATCH);
  }
  const p = percentiles(batches, [50, 99]);
  return { p50: round(p[50], 2), p99: round(p[99], 2), sink };
}

const random = seededRandom(20261124);
const spread = (n: number, lat: [number, number], lon: [number, number]): [number, number][] =>
  Array.from({ length: n }, () => [
    lat[0] + random() * (lat[1] - lat[0]),
    lon[0] + random() * (lon[1] - lon[0]),
  ]);
const N = 200_000;
const world = spread(N, [-60, 75], [-180, 180]);
const us = spread(N, [30, 48], [-120, -75]);
const usBorder = spread(N, [42, 49.5], [-124, -67]); // a band across the US-Canada border
const farFromUs = spread(N, [35, 60], [-10, 40]); // Europe

// Warm up the JIT before timing.
perCallUs(world.slice(0, 20_000), locateCountry);
perCallUs(usBorder.slice(0, 20_000), (lat, lon) => withinReachOfUs(lat, lon, 5_000));

const library = await bundleBytes(
  join(REPO_ROOT, "node_modules/@rapideditor/country-coder/dist/country-coder.mjs"),
  false,
);
const module = await bundleBytes(join(REPO_ROOT, "src/emergency/index.ts"), false);
const moduleMin = await bundleBytes(join(REPO_ROOT, "src/emergency/index.ts"), true);
const loads = percentiles(loadMs(5), [50]);

const rows: [string, string][] = [
  [
    "bundle: src/emergency (as wrangler bundles it, not minified)",
    `${round(module.raw / 1024)} KiB, ${round(module.gzip / 1024)} KiB gzipped`,
  ],
  [
    "bundle: src/emergency minified",
    `${round(moduleMin.raw / 1024)} KiB, ${round(moduleMin.gzip / 1024)} KiB gzipped`,
  ],
  [
    "bundle: of which @rapideditor/country-coder",
    `${round(library.raw / 1024)} KiB, ${round(library.gzip / 1024)} KiB gzipped`,
  ],
  ["load: import in a fresh process (median of 5)", `${round(loads[50], 1)} ms`],
];
const timed: [string, ReturnType<typeof perCallUs>][] = [
  ["locateCountry, random points on Earth", perCallUs(world, locateCountry)],
  ["locateCountry, points in the contiguous US", perCallUs(us, locateCountry)],
  [
    "emergencyNumbersFor(locateCountry(...))",
    perCallUs(world, (lat, lon) => emergencyNumbersFor(locateCountry(lat, lon).country)),
  ],
  [
    "withinReachOfUs, 5 km accuracy, around the US-Canada border",
    perCallUs(usBorder, (lat, lon) => withinReachOfUs(lat, lon, 5_000)),
  ],
  [
    "withinReachOfUs, 100 km accuracy, around the US-Canada border",
    perCallUs(usBorder, (lat, lon) => withinReachOfUs(lat, lon, 100_000)),
  ],
  [
    "withinReachOfUs, 5 km accuracy, Europe",
    perCallUs(farFromUs, (lat, lon) => withinReachOfUs(lat, lon, 5_000)),
  ],
];
for (const [name, value] of rows) console.log(`${name.padEnd(64)} ${value}`);
for (const [name, t] of timed)
  console.log(`${name.padEnd(64)} p50 ${t.p50} µs/call, p99 ${t.p99} µs/call (batches of ${BATCH})`);
