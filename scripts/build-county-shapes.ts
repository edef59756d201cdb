// Cuts the us-atlas county shapes into one small file per state for the counselor console's map
// (public/demo/counties/<state>.json, git-ignored). Run by `npm run build:sdk`; deterministic.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { MultiPolygon, Polygon } from "geojson";
import { feature } from "topojson-client";
import type { GeometryCollection, Topology } from "topojson-specification";
import { syncDir } from "./sync-dir.ts";

const require = createRequire(import.meta.url);

/** State FIPS code → the postal code the service puts in `area.state`. */
// biome-ignore format: a table reads better in rows
const POSTAL: Record<string, string> = {
  "01": "AL", "02": "AK", "04": "AZ", "05": "AR", "06": "CA", "08": "CO", "09": "CT", "10": "DE",
  "11": "DC", "12": "FL", "13": "GA", "15": "HI", "16": "ID", "17": "IL", "18": "IN", "19": "IA",
  "20": "KS", "21": "KY", "22": "LA", "23": "ME", "24": "MD", "25": "MA", "26": "MI", "27": "MN",
  "28": "MS", "29": "MO", "30": "MT", "31": "NE", "32": "NV", "33": "NH", "34": "NJ", "35": "NM",
  "36": "NY", "37": "NC", "38": "ND", "39": "OH", "40": "OK", "41": "OR", "42": "PA", "44": "RI",
  "45": "SC", "46": "SD", "47": "TN", "48": "TX", "49": "UT", "50": "VT", "51": "VA", "53": "WA",
  "54": "WV", "55": "WI", "56": "WY", "60": "AS", "66": "GU", "69": "MP", "72": "PR", "78": "VI",
};

/** Coordinates are kept to 3 decimals (about 100 m): finer than the 10m atlas itself, and a third the bytes. */
const round = (v: number) => Math.round(v * 1000) / 1000;

export interface CountyShape {
  /** County FIPS (5 digits). */
  id: string;
  name: string;
  /** Outer rings and holes alike, each a flat list lon, lat, lon, lat, ... (even-odd fill). */
  rings: number[][];
}

/** Writes one file per state (only those that change); returns how many and their size, for the build's report. */
export function buildCountyShapes(outDir: string): { files: number; bytes: number } {
  const atlasPath = require.resolve("us-atlas/counties-10m.json");
  const version = (
    JSON.parse(readFileSync(require.resolve("us-atlas/package.json"), "utf8")) as { version: string }
  ).version;
  const topo = JSON.parse(readFileSync(atlasPath, "utf8")) as Topology<{
    counties: GeometryCollection<{ name: string }>;
  }>;
  const counties = feature(topo, topo.objects.counties).features;
  const byState = new Map<string, CountyShape[]>();
  for (const f of counties) {
    const id = String(f.id);
    const state = POSTAL[id.slice(0, 2)];
    const geom = f.geometry as Polygon | MultiPolygon | null;
    if (!state || !geom) continue;
    const polygons = geom.type === "Polygon" ? [geom.coordinates] : geom.coordinates;
    const rings = polygons
      .flat()
      .map((ring) => ring.flatMap(([lon = 0, lat = 0]) => [round(lon), round(lat)]));
    const list = byState.get(state) ?? [];
    list.push({ id, name: f.properties?.name ?? id, rings });
    byState.set(state, list);
  }
  const files = new Map<string, string>();
  for (const [state, list] of [...byState].sort(([a], [b]) => a.localeCompare(b))) {
    list.sort((a, b) => a.id.localeCompare(b.id));
    files.set(
      `${state}.json`,
      JSON.stringify({ source: `us-atlas ${version} counties-10m.json`, state, counties: list }),
    );
  }
  // Only the files whose bytes change are written: a dev server serving them does not reload for nothing.
  const { bytes } = syncDir(outDir, files);
  return { files: byState.size, bytes };
}
