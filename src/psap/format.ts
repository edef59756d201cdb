// KV layout of the PSAP index and the (de)serialisation of one entry, shared by the builder and the lookup.
//
//   psap:current                        -> IndexManifest (JSON): the pointer, written last by an import
//   psap:v:<version>:<root>/<digits>    -> EntryJson for one leaf of the manifest's cell tree
//   psap:v:<version>:catalogue          -> CatalogueIndex (JSON): the admin catalogue's parts
//   psap:v:<version>:catalogue:<n>      -> CatalogueRecord[] (JSON), sorted by id
//
// The manifest's tree says, for every H3 cell a fix can fall in, whether an entry covers it (a
// leaf), whether no PSAP is within reach (empty), or whether its children decide (split). A leaf
// whose entry cannot be read is therefore a failure of ours, never "no PSAP nearby".
import type { LocationPrecision, PhoneKind, PsapJurisdiction, PsapRecord } from "../../sdk/src/protocol.ts";

export const POINTER_KEY = "psap:current";
export const FORMAT = 2;

/** A PSAP as stored: the delivered record without the per-lookup fields. */
export type IndexedPsap = Omit<PsapRecord, "distance_km" | "match">;

export function entryKey(version: string, node: string): string {
  return `psap:v:${version}:${node}`;
}

export function versionPrefix(version: string): string {
  return `psap:v:${version}:`;
}

export function catalogueIndexKey(version: string): string {
  return `psap:v:${version}:catalogue`;
}

export function cataloguePartKey(version: string, part: number): string {
  return `psap:v:${version}:catalogue:${part}`;
}

export interface IndexManifest {
  format: typeof FORMAT;
  version: string;
  data_version: string;
  created_at: string;
  psaps: number;
  entries: number;
  /** The most records a lookup can return exactly (the `limit` is clamped to it). */
  top_n: number;
  max_distance_km: number;
  /** Border tolerances up to this are exact; a larger accuracy counts as this much at a border. */
  max_tolerance_km: number;
  /** Resolution of the tree's roots and of its deepest cells. */
  root_resolution: number;
  max_resolution: number;
  /**
   * Per root cell, its subtree in preorder: `L` a leaf (an entry exists), `E` empty (no PSAP within
   * reach), `S` split, followed by one subtree per child digit 0..6 (tree.ts). A root not listed is empty.
   */
  tree: Record<string, string>;
  /** Earlier versions, newest first, with when they stopped being current (for cleanup). */
  previous: { version: string; superseded_at: string }[];
}

// ---------------------------------------------------------------------------
// Entries

/** Area kinds in an entry: 0 an operator boundary, 1 an incorporated place, 2 a census-designated place, 3 a county. */
export const AREA_BOUNDARY = 0;
export const AREA_CITY = 1;
export const AREA_COMMUNITY = 2;
export const AREA_COUNTY = 3;
export type AreaKindCode = 0 | 1 | 2 | 3;

const JURISDICTIONS: readonly PsapJurisdiction[] = ["county", "regional", "state", "municipal", "special"];
const PRECISIONS: readonly LocationPrecision[] = ["building", "city", "county"];
const PHONE_KINDS: readonly PhoneKind[] = ["emergency", "administrative"];

/** The SPEC's jurisdiction order within the boundary, city and county groups: county first, special last. */
export function jurisdictionRank(j: PsapJurisdiction): number {
  const i = JURISDICTIONS.indexOf(j);
  return i < 0 ? JURISDICTIONS.length : i;
}

/**
 * One PSAP in an entry: [id, name, type (0 primary, 1 secondary), state, county, city, phone,
 * phone_kind (0 emergency, 1 administrative, -1 none), jurisdiction (rank), handled_by, lat, lon, precision].
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
  string | null,
  number,
  number,
  number,
];

/**
 * One area in an entry: [kind, id, name, state, bounding box [minLon, minLat, maxLon, maxLat] in
 * geometry.ts's storage units (longitudes unwrapped like its rings), rings (geometry.ts's encoding),
 * member indexes into `p`]. The box lets a lookup skip an area without decoding its rings.
 */
export type AreaTuple = [AreaKindCode, string, string, string | null, number[], string[], number[]];

export interface EntryJson {
  /** The leaf's centre [lat, lon]: the nearest candidates' lower bounds are distances from it. */
  c: [number, number];
  /** Every PSAP this entry can return. */
  p: PsapTuple[];
  /** Indexes into `p` of the nearest candidates: primaries, then secondaries, each nearest to `c` first. */
  n: number[];
  /** For each of `n`, a lower bound of its distance from `c`, whole metres. */
  d: number[];
  a: AreaTuple[];
}

export function psapToTuple(p: IndexedPsap): PsapTuple {
  return [
    p.id,
    p.name,
    p.type === "primary" ? 0 : 1,
    p.state,
    p.county,
    p.city,
    p.phone,
    p.phone_kind === null ? -1 : PHONE_KINDS.indexOf(p.phone_kind),
    jurisdictionRank(p.jurisdiction),
    p.handled_by,
    p.latitude,
    p.longitude,
    Math.max(0, PRECISIONS.indexOf(p.location_precision)),
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
    phone_kind: PHONE_KINDS[t[7]] ?? null,
    jurisdiction: JURISDICTIONS[t[8]] ?? "special",
    handled_by: t[9],
    latitude: t[10],
    longitude: t[11],
    location_precision: PRECISIONS[t[12]] ?? "city",
  };
}

/** Thrown when stored text is not what the builder writes (a corrupt or foreign value). */
export class MalformedIndexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MalformedIndexError";
  }
}

function isTuple(t: unknown): t is PsapTuple {
  return (
    Array.isArray(t) &&
    t.length === 13 &&
    typeof t[0] === "string" &&
    typeof t[1] === "string" &&
    (t[2] === 0 || t[2] === 1) &&
    typeof t[10] === "number" &&
    typeof t[11] === "number" &&
    typeof t[8] === "number"
  );
}

function isIndexList(list: unknown, size: number): list is number[] {
  return Array.isArray(list) && list.every((i) => Number.isInteger(i) && i >= 0 && i < size);
}

function isArea(a: unknown, size: number): a is AreaTuple {
  return (
    Array.isArray(a) &&
    a.length === 7 &&
    (a[0] === 0 || a[0] === 1 || a[0] === 2 || a[0] === 3) &&
    typeof a[1] === "string" &&
    typeof a[2] === "string" &&
    Array.isArray(a[4]) &&
    a[4].length === 4 &&
    a[4].every((v: unknown) => typeof v === "number" && Number.isFinite(v)) &&
    Array.isArray(a[5]) &&
    a[5].every((ring: unknown) => typeof ring === "string") &&
    isIndexList(a[6], size)
  );
}

/** Parses and checks an entry. Throws MalformedIndexError on anything the builder would not write. */
export function parseEntry(text: string): EntryJson {
  let json: Partial<EntryJson>;
  try {
    json = JSON.parse(text) as Partial<EntryJson>;
  } catch {
    throw new MalformedIndexError("PSAP index entry is not JSON");
  }
  const p = json?.p;
  if (!Array.isArray(p) || !p.every(isTuple))
    throw new MalformedIndexError("PSAP index entry has bad records");
  if (!isIndexList(json.n, p.length)) throw new MalformedIndexError("PSAP index entry has bad candidates");
  const c = json.c;
  const d = json.d;
  if (
    !Array.isArray(c) ||
    c.length !== 2 ||
    !c.every((v) => typeof v === "number" && Number.isFinite(v)) ||
    !Array.isArray(d) ||
    d.length !== json.n.length ||
    !d.every((v) => typeof v === "number" && Number.isFinite(v))
  ) {
    throw new MalformedIndexError("PSAP index entry has a bad centre or bounds");
  }
  const a = json.a;
  if (!Array.isArray(a) || !a.every((area) => isArea(area, p.length))) {
    throw new MalformedIndexError("PSAP index entry has bad areas");
  }
  return json as EntryJson;
}

export function parseManifest(text: string): IndexManifest | null {
  try {
    const m = JSON.parse(text) as Partial<IndexManifest>;
    if (
      m &&
      m.format === FORMAT &&
      typeof m.version === "string" &&
      typeof m.data_version === "string" &&
      typeof m.top_n === "number" &&
      typeof m.max_tolerance_km === "number" &&
      typeof m.max_distance_km === "number" &&
      typeof m.root_resolution === "number" &&
      typeof m.max_resolution === "number" &&
      m.tree !== null &&
      typeof m.tree === "object"
    ) {
      return m as IndexManifest;
    }
  } catch {
    // fall through: a pointer we cannot read is no pointer
  }
  return null;
}

// ---------------------------------------------------------------------------
// The admin catalogue

/** A PSAP as the admin routes show it: its record plus what it answers for. */
export interface CatalogueRecord extends IndexedPsap {
  /** Census GEOIDs of the places it answers for. */
  served_places: string[];
  /** FIPS codes of the counties it answers for. */
  served_counties: string[];
}

export interface CataloguePart {
  first: string;
  last: string;
  count: number;
  /** PSAPs per state in this part. */
  states: Record<string, number>;
}

export interface CatalogueIndex {
  data_version: string;
  psaps: number;
  parts: CataloguePart[];
  /** PSAPs and PSAPs with an imported phone, per state (the coverage report adds the contact directory). */
  by_state: Record<string, { psaps: number; with_phone: number }>;
}
