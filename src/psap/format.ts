// KV layout of the PSAP index and the (de)serialisation of one bucket.
//
//   psap:current              -> IndexManifest (JSON): the pointer, written last by an import
//   psap:v:<version>:<cell>   -> Bucket (JSON) for one H3 cell at the manifest's resolution
//
// A cell without a key has no PSAP within reach (maxDistanceKm plus the cell radius).
import type { LocationPrecision } from "../../sdk/src/protocol.ts";
import { decodeRings, type EncodedRings } from "./area.ts";
import type { RankArea, RankPool } from "./rank.ts";
import type { IndexedPsap } from "./types.ts";

export const POINTER_KEY = "psap:current";
export const FORMAT = 1;

export function bucketKey(version: string, cell: string): string {
  return `psap:v:${version}:${cell}`;
}

export function versionPrefix(version: string): string {
  return `psap:v:${version}:`;
}

export interface IndexManifest {
  format: typeof FORMAT;
  version: string;
  data_version: string;
  /** H3 resolution of the buckets. */
  resolution: number;
  /** The most records a lookup can return exactly (the `limit` is clamped to it). */
  top_n: number;
  /** Border tolerances up to this are exact (larger accuracies are clamped to it). */
  max_tolerance_km: number;
  max_distance_km: number;
  created_at: string;
  psaps: number;
  buckets: number;
  /** Earlier versions, newest first, with when they stopped being current (for cleanup). */
  previous: { version: string; superseded_at: string }[];
}

/** One PSAP in a bucket: [id, name, type(0 primary, 1 secondary), state, county, city, phone, lat, lon, precision]. */
type PsapTuple = [
  string,
  string,
  0 | 1,
  string,
  string | null,
  string | null,
  string | null,
  number,
  number,
  0 | 1 | 2,
];

/** One area in a bucket: [kind(0 county, 1 boundary), id, rings, member indexes into `p`]. */
type AreaTuple = [0 | 1, string, EncodedRings, number[]];

export interface BucketJson {
  p: PsapTuple[];
  /** Indexes into `p` of the nearest-PSAP candidates. */
  n: number[];
  a: AreaTuple[];
}

const PRECISIONS: readonly LocationPrecision[] = ["building", "city", "county"];

export function psapToTuple(p: IndexedPsap): PsapTuple {
  const prec = PRECISIONS.indexOf(p.location_precision);
  return [
    p.id,
    p.name,
    p.type === "primary" ? 0 : 1,
    p.state,
    p.county,
    p.city,
    p.phone,
    p.latitude,
    p.longitude,
    (prec < 0 ? 1 : prec) as 0 | 1 | 2,
  ];
}

export function tupleToPsap(t: PsapTuple): IndexedPsap {
  return {
    id: t[0],
    name: t[1],
    type: t[2] === 0 ? "primary" : "secondary",
    state: t[3],
    county: t[4],
    city: t[5],
    phone: t[6],
    latitude: t[7],
    longitude: t[8],
    location_precision: PRECISIONS[t[9]] ?? "city",
  };
}

export function encodeArea(
  kind: "county" | "boundary",
  id: string,
  rings: EncodedRings,
  members: number[],
): AreaTuple {
  return [kind === "boundary" ? 1 : 0, id, rings, members];
}

/** Parses a bucket into a ranking pool. Throws on a value that is not a bucket. */
export function decodeBucket(text: string): RankPool {
  const json = JSON.parse(text) as BucketJson;
  if (!json || !Array.isArray(json.p) || !Array.isArray(json.n) || !Array.isArray(json.a)) {
    throw new Error("PSAP index bucket is malformed");
  }
  const areas: RankArea[] = json.a.map(([kind, , rings, members]) => ({
    kind: kind === 1 ? "boundary" : "county",
    geometry: decodeRings(rings),
    members,
  }));
  return { psaps: json.p.map(tupleToPsap), nearest: json.n, areas };
}

export function parseManifest(text: string): IndexManifest | null {
  try {
    const m = JSON.parse(text) as Partial<IndexManifest>;
    if (
      m &&
      m.format === FORMAT &&
      typeof m.version === "string" &&
      typeof m.data_version === "string" &&
      typeof m.resolution === "number" &&
      typeof m.top_n === "number"
    ) {
      return m as IndexManifest;
    }
  } catch {
    // fall through: a pointer we cannot read is no pointer
  }
  return null;
}
