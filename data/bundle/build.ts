// `npm run psap:bundle [-- --data DIR]`: builds the compact real-data bundle that `npm run dev` loads on a
// fresh clone, from the public sources in ../shared/psap-data (the FCC registry, its 2017 geocodes, the
// Census places, the town boundaries, the Census tribal lands and the National Parks). The same sources give the same bytes: every step is
// deterministic and gzip writes no time.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gunzipSync, gzipSync } from "node:zlib";
import type { FeatureCollection } from "geojson";
import { readFccCsv } from "../import/read-fcc-csv.ts";
import { simplifyAreas } from "./simplify.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const BUNDLE_DIR = join(ROOT, "data/bundle");

/** The sources, by their names in ../shared/psap-data. */
export const SOURCES = {
  registry: "fcc_master_psap_registry_v2.295.csv",
  geocodes: "psap_registry.json",
  places: "census-places-2019.geojson.gz",
  towns: "town-boundaries.geojson.gz",
  tribal: "tribal-areas-2011.geojson.gz",
  parks: "national-parks-2020.geojson.gz",
} as const;

/** The bundle's files, in the order `npm run psap:import` takes them. */
export const BUNDLE_FILES = {
  registry: "fcc_master_psap_registry_v2.295.csv.gz",
  geocodes: "psap_registry_2017_geocodes.json.gz",
  places: "census-places-2019-100m.topojson.gz",
  towns: "town-boundaries-100m.topojson.gz",
  tribal: "tribal-lands-2011-100m.topojson.gz",
  parks: "national-parks-2020-100m.topojson.gz",
} as const;

export function bundlePaths(dir: string = BUNDLE_DIR): string[] {
  return [
    BUNDLE_FILES.registry,
    BUNDLE_FILES.geocodes,
    BUNDLE_FILES.places,
    BUNDLE_FILES.towns,
    BUNDLE_FILES.tribal,
    BUNDLE_FILES.parks,
  ].map((f) => join(dir, f));
}

/** Census place properties the import reads; the rest are dropped. */
const PLACE_FIELDS = ["GEOID", "STATEFP", "NAME", "NAMELSAD", "CLASSFP", "FUNCSTAT", "INTPTLAT", "INTPTLON"];
/** Town properties the import reads. */
const TOWN_FIELDS = ["STATEFP", "COUNTYFP", "GEOID", "NAME", "NAMELSAD", "kind"];
/** AIANNH properties the import reads. */
const TRIBAL_FIELDS = ["AIANNHCE", "GEOID", "NAME", "NAMELSAD", "MTFCC", "COMPTYP"];
/** National Park properties the import reads. */
const PARK_FIELDS = ["UNIT_CODE", "UNIT_NAME", "UNIT_TYPE", "STATE"];

/**
 * Only reservations and off-reservation trust lands go into the bundle: a statistical area (an Oklahoma
 * OTSA among them) is never linked, and leaving it out keeps the bundle small.
 */
function governedLandOnly(geojson: Buffer): Buffer {
  const fc = JSON.parse(geojson.toString("utf8")) as FeatureCollection;
  fc.features = fc.features.filter((f) => ["G2101", "G2102"].includes(String(f.properties?.MTFCC)));
  return Buffer.from(JSON.stringify(fc));
}

/** No border moves farther than this (Douglas-Peucker tolerance per shared arc, metres). */
export const SIMPLIFY_INTERVAL_M = 100;
/** Points per axis of the TopoJSON grid over each layer (about a metre or less). */
const QUANTIZATION = 1_000_000;

function gzip(bytes: Buffer | string): Buffer {
  return gzipSync(bytes, { level: 9 });
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The 2017 export reduced to what the import uses: id and city geocode, for PSAPs the current registry lists. */
function reduceGeocodes(json: unknown, current: ReadonlySet<string>): string {
  if (!Array.isArray(json)) throw new Error("the 2017 export is not a JSON array");
  const kept = json.flatMap(
    (item: { psap_id?: unknown; geocode_city_level?: { latitude?: unknown; longitude?: unknown } }) => {
      const id = String(item?.psap_id ?? "");
      const g = item?.geocode_city_level;
      if (!current.has(id) || g?.latitude === undefined || g?.longitude === undefined) return [];
      return [{ psap_id: id, geocode_city_level: { latitude: g.latitude, longitude: g.longitude } }];
    },
  );
  return JSON.stringify(kept);
}

/** A layer of areas simplified (simplify.ts) and written as TopoJSON. */
function simplifiedLayer(geojson: Buffer, layer: string, fields: readonly string[]): Buffer {
  const fc = JSON.parse(geojson.toString("utf8")) as FeatureCollection;
  const out = simplifyAreas(fc, {
    layer,
    fields,
    toleranceM: SIMPLIFY_INTERVAL_M,
    quantization: QUANTIZATION,
  });
  return Buffer.from(JSON.stringify(out.topology));
}

export interface BuiltBundle {
  files: { name: string; bytes: number; sha256: string }[];
  sources: { name: string; sha256: string }[];
  psaps: number;
  places: number;
}

export async function buildBundle(dataDir: string, outDir: string = BUNDLE_DIR): Promise<BuiltBundle> {
  const read = (name: string) => readFileSync(join(dataDir, name));
  const registry = read(SOURCES.registry);
  const geocodes = read(SOURCES.geocodes);
  const places = read(SOURCES.places);
  const towns = read(SOURCES.towns);
  const tribal = read(SOURCES.tribal);
  const parks = read(SOURCES.parks);
  const current = new Set(readFccCsv(SOURCES.registry, registry.toString("utf8")).rows.map((r) => r.id));
  const placesJson = gunzipSync(places);
  const outputs: [string, Buffer][] = [
    [BUNDLE_FILES.registry, gzip(registry)],
    [BUNDLE_FILES.geocodes, gzip(reduceGeocodes(JSON.parse(geocodes.toString("utf8")), current))],
    [BUNDLE_FILES.places, gzip(simplifiedLayer(placesJson, "places", PLACE_FIELDS))],
    [BUNDLE_FILES.towns, gzip(simplifiedLayer(gunzipSync(towns), "towns", TOWN_FIELDS))],
    [
      BUNDLE_FILES.tribal,
      gzip(simplifiedLayer(governedLandOnly(gunzipSync(tribal)), "tribal", TRIBAL_FIELDS)),
    ],
    [BUNDLE_FILES.parks, gzip(simplifiedLayer(gunzipSync(parks), "parks", PARK_FIELDS))],
  ];
  mkdirSync(outDir, { recursive: true });
  for (const [name, bytes] of outputs) writeFileSync(join(outDir, name), bytes);
  return {
    files: outputs.map(([name, bytes]) => ({ name, bytes: bytes.length, sha256: sha256(bytes) })),
    sources: [
      { name: SOURCES.registry, sha256: sha256(registry) },
      { name: SOURCES.geocodes, sha256: sha256(geocodes) },
      { name: SOURCES.places, sha256: sha256(places) },
      { name: SOURCES.towns, sha256: sha256(towns) },
      { name: SOURCES.tribal, sha256: sha256(tribal) },
      { name: SOURCES.parks, sha256: sha256(parks) },
    ],
    psaps: current.size,
    places: (JSON.parse(placesJson.toString("utf8")) as { features: unknown[] }).features.length,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { data: { type: "string" }, out: { type: "string" } } });
  const dataDir = resolve(
    values.data ?? process.env.PSAP_DATA_DIR ?? join(ROOT, "..", "shared", "psap-data"),
  );
  const built = await buildBundle(dataDir, values.out ? resolve(values.out) : BUNDLE_DIR);
  for (const f of built.files) console.log(`${f.name}: ${f.bytes} bytes, sha256 ${f.sha256}`);
  console.log(`${built.psaps} current PSAPs, ${built.places} places; sources:`);
  for (const s of built.sources) console.log(`  ${s.name}: sha256 ${s.sha256}`);
}
