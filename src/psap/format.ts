// KV layout of the PSAP index and the (de)serialisation of one bucket.
//
//   psap:current              -> IndexManifest (JSON): the pointer, written last by an import
//   psap:v:<version>:<cell>   -> Bucket (JSON) for one H3 cell at the manifest's resolution
//
// A cell without a key has no PSAP within reach (maxDistanceKm plus the cell radius).
import type { LocationPrecision, PhoneKind, PsapJurisdiction } from "../../sdk/src/protocol.ts";
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
  /** Every cell that has an entry, sorted: a cell not listed has no PSAP within reach; a listed one whose entry is missing is a failure. */
  cells: string[];
  /** Earlier versions, newest first, with when they stopped being current (for cleanup). */
  previous: { version: string; superseded_at: string }[];
}

/**
 * One PSAP in a bucket: [id, name, type(0 primary, 1 secondary), state, county, city, phone, lat, lon,
 * precision, jurisdiction, handled_by, phone_kind].
 */
export type PsapTuple = [
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
  PsapJurisdiction,
  string | null,
  PhoneKind | null,
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
    p.jurisdiction,
    p.handled_by,
    p.phone_kind,
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
    jurisdiction: t[10],
    handled_by: t[11],
    phone_kind: t[12],
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

/** Parses a bucket's JSON. Throws on a value that is not a bucket. */
export function parseBucket(text: string): BucketJson {
  const json = JSON.parse(text) as BucketJson;
  if (!json || !Array.isArray(json.p) || !Array.isArray(json.n) || !Array.isArray(json.a)) {
    throw new Error("PSAP index bucket is malformed");
  }
  return json;
}

/** The areas of a parsed bucket, decoded for ranking. */
export function bucketAreas(json: BucketJson): RankArea[] {
  return decodeAreas(json.a);
}

/** Parses a bucket into a ranking pool. Throws on a value that is not a bucket. */
export function decodeBucket(text: string): RankPool {
  const json = parseBucket(text);
  return { psaps: json.p.map(tupleToPsap), nearest: json.n, areas: bucketAreas(json) };
}

/** A bucket's PSAP tuples located in its text, without parsing them (see `scanBucket`). */
export interface ScannedBucket {
  count: number;
  latitude: number[];
  longitude: number[];
  /** 0 primary, 1 secondary. */
  type: number[];
  /** Where each tuple's text starts and ends (JSON.parse of that slice gives the tuple). */
  tupleStart: number[];
  tupleEnd: number[];
  /** The rest of the bucket, parsed. */
  nearest: number[];
  areas: AreaTuple[];
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN = 91;
const CLOSE = 93;
const P_HEAD = '{"p":[';
const N_HEAD = ',"n":';

/**
 * Reads a bucket in the layout `buildIndex` writes (JSON.stringify of `{p, n, a}`) without
 * materialising its PSAPs: each tuple's coordinates and type are read (`Number` of the same digits
 * gives the same double as JSON.parse), the tuple itself is left in the text. Null when the text is
 * not in that exact layout (the caller then parses it in full).
 */
export function scanBucket(text: string): ScannedBucket | null {
  if (!text.startsWith(P_HEAD)) return null;
  const len = text.length;
  // Plain arrays (on the JS heap): large typed arrays per cold read would add GC pressure.
  const lat: number[] = [];
  const lon: number[] = [];
  const type: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let count = 0;
  let i = P_HEAD.length;
  const valueEnd = (from: number): number => {
    let k = from;
    if (text.charCodeAt(k) === QUOTE) {
      k++;
      while (k < len) {
        const c = text.charCodeAt(k);
        if (c === BACKSLASH) k += 2;
        else if (c === QUOTE) return k + 1;
        else k++;
      }
      return -1;
    }
    while (k < len) {
      const c = text.charCodeAt(k);
      if (c === COMMA || c === CLOSE) return k;
      if (c === OPEN || c === QUOTE || c === 123 || c === 125) return -1;
      k++;
    }
    return -1;
  };
  if (text.charCodeAt(i) === CLOSE) i++;
  else {
    for (;;) {
      if (text.charCodeAt(i) !== OPEN) return null;
      const start = i;
      i++;
      let field = 0;
      let la = Number.NaN;
      let lo = Number.NaN;
      let t = -1;
      for (;;) {
        const end = valueEnd(i);
        if (end < 0) return null;
        if (field === 2) {
          const c = text.charCodeAt(i);
          t = end === i + 1 && (c === 48 || c === 49) ? c - 48 : -1;
        } else if (field === 7) la = jsonNumber(text, i, end);
        else if (field === 8) lo = jsonNumber(text, i, end);
        field++;
        i = end;
        const c = text.charCodeAt(i);
        i++;
        if (c === CLOSE) break;
        if (c !== COMMA) return null;
      }
      if (field !== 13 || t < 0 || !Number.isFinite(la) || !Number.isFinite(lo)) return null;
      lat.push(la);
      lon.push(lo);
      type.push(t);
      starts.push(start);
      ends.push(i);
      count++;
      const c = text.charCodeAt(i);
      i++;
      if (c === CLOSE) break;
      if (c !== COMMA) return null;
    }
  }
  if (!text.startsWith(N_HEAD, i)) return null;
  const rest = JSON.parse(`{${text.slice(i + 1)}`) as Partial<BucketJson>;
  if (!rest || !Array.isArray(rest.n) || !Array.isArray(rest.a) || Object.keys(rest).length !== 2)
    return null;
  return {
    count,
    latitude: lat,
    longitude: lon,
    type,
    tupleStart: starts,
    tupleEnd: ends,
    nearest: rest.n,
    areas: rest.a,
  };
}

/** Exact powers of ten (every one up to 1e22 is a double). */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * The JSON number in text[start, end), exactly as JSON.parse reads it. Plain decimals of at most
 * 2^53 in their digits and 22 fraction digits are computed directly (an exact integer divided by
 * an exact power of ten: one correctly rounded operation, so the correctly rounded value); anything
 * else goes through Number(), which rounds correctly too. NaN when it is not a number.
 */
export function jsonNumber(text: string, start: number, end: number): number {
  let k = start;
  const negative = text.charCodeAt(k) === 45;
  if (negative) k++;
  let m = 0;
  let digits = 0;
  let fraction = -1;
  for (; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      digits++;
    } else if (c === 46 && fraction < 0) fraction = 0;
    else break;
    if (fraction >= 0 && c !== 46) fraction++;
  }
  if (k < end || digits === 0 || m >= 2 ** 53 || fraction === 0 || fraction > 22) {
    return Number(text.slice(start, end));
  }
  const v = fraction > 0 ? m / (POW10[fraction] as number) : m;
  return negative ? -v : v;
}

/** The areas of a bucket, decoded for ranking. */
export function decodeAreas(areas: readonly AreaTuple[]): RankArea[] {
  return areas.map(([kind, , rings, members]) => ({
    kind: kind === 1 ? "boundary" : "county",
    geometry: decodeRings(rings),
    members,
  }));
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
      typeof m.top_n === "number" &&
      Array.isArray(m.cells)
    ) {
      return m as IndexManifest;
    }
  } catch {
    // fall through: a pointer we cannot read is no pointer
  }
  return null;
}
