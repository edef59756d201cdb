// KV layout of the PSAP index and the (de)serialisation of one entry, shared by the builder and the lookup.
//
//   psap:current:<format>               -> IndexManifest (encodeManifest): the pointer, written last by an import
//   psap:v:<version>:<root>/<digits>    -> one leaf's entry (encodeEntry: a JSON header, then its rings)
//   psap:v:<version>:catalogue          -> CatalogueIndex (JSON): the admin catalogue's parts
//   psap:v:<version>:catalogue:<n>      -> CatalogueRecord[] (JSON), sorted by id
//
// The manifest's tree says, for every H3 cell a fix can fall in, whether an entry covers it (a
// leaf), whether no PSAP is within reach (empty), or whether its children decide (split). A leaf
// whose entry cannot be read is therefore a failure of ours, never "no PSAP nearby".
import {
  LINE_ORIGINS,
  type LocationPrecision,
  PHONE_KINDS,
  type PsapJurisdiction,
  type PsapLine,
  type PsapMatch,
  type PsapRecord,
} from "../../sdk/src/protocol.ts";

// 6: a PSAP's lines (kind, label, source, checked_on, origin) in place of one phone and its kind.
export const FORMAT = 6;
/**
 * The pointer's key names its format, so that workers of the previous format keep reading their own
 * pointer (and its entries, left in place) while an import of this format is written: import, then
 * deploy, with no moment in which a worker finds a pointer it cannot read.
 */
export const POINTER_KEY = `psap:current:${FORMAT}`;
/** Pointers of earlier formats: an import retires their version like any superseded one (publish.ts). */
export const LEGACY_POINTER_KEYS: readonly string[] = [
  "psap:current:5",
  "psap:current:4",
  "psap:current:3",
  "psap:current",
];

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
   * One string, `;<root>=<code>` per root (tree.ts's `treeText`), stored after the manifest's JSON
   * (encodeManifest) and read in place: reading the pointer neither parses nor copies it.
   */
  tree: string;
  /** Earlier versions, newest first, with when they stopped being current (for cleanup). */
  previous: { version: string; superseded_at: string }[];
}

// ---------------------------------------------------------------------------
// Entries

/**
 * Area kinds in an entry: 0 an operator boundary, 1 an incorporated place, 2 a census-designated place,
 * 3 a county, 4 a town or township (a county subdivision with its own government).
 */
export const AREA_BOUNDARY = 0;
export const AREA_CITY = 1;
export const AREA_COMMUNITY = 2;
export const AREA_COUNTY = 3;
export const AREA_TOWN = 4;
export type AreaKindCode = 0 | 1 | 2 | 3 | 4;

const JURISDICTIONS: readonly PsapJurisdiction[] = ["county", "regional", "state", "municipal", "special"];
const PRECISIONS: readonly LocationPrecision[] = ["building", "city", "county"];

/** The contract's jurisdiction order within the boundary, city and county groups: county first, special last. */
export function jurisdictionRank(j: PsapJurisdiction): number {
  const i = JURISDICTIONS.indexOf(j);
  return i < 0 ? JURISDICTIONS.length : i;
}

/**
 * One line in an entry: [kind (index in PHONE_KINDS), E.164, label, source, checked_on, origin (index in
 * LINE_ORIGINS)].
 */
export type LineTuple = [number, string, string, string, string, number];

/**
 * One PSAP in an entry: [id, name, type (0 primary, 1 secondary), state, county, city, lines (best first),
 * jurisdiction (rank), handled_by, lat, lon, precision].
 */
export type PsapTuple = [
  string,
  string,
  0 | 1,
  string,
  string | null,
  string | null,
  LineTuple[],
  number,
  string | null,
  number,
  number,
  number,
];

/**
 * One area as the builder hands it over: [kind, id, name, state, bounding box [minLon, minLat, maxLon,
 * maxLat] in geometry.ts's storage units (longitudes unwrapped like its rings), its rings encoded
 * (geometry.ts), member indexes into `p`]. The box lets a lookup skip an area without decoding its rings.
 */
export type AreaDraft = [AreaKindCode, string, string, string | null, number[], string[], number[]];

/** What the builder composes for one leaf. */
export interface EntryDraft {
  /** The leaf's centre [lat, lon]: the nearest candidates' lower bounds are distances from it. */
  c: [number, number];
  /** Every PSAP this entry can return. */
  p: PsapTuple[];
  /** Indexes into `p` of the nearest candidates: primaries, then secondaries, each nearest to `c` first... */
  n: number[];
  /** ...and for each, a lower bound of its distance from `c`, whole metres. */
  d: number[];
  a: AreaDraft[];
}

/**
 * The JSON header of a stored entry. Its areas are stored column by column, a few flat arrays for all
 * of them rather than a tuple and three lists per area: reading an entry then allocates a few arrays,
 * not hundreds, and a lookup's reads of one area lie side by side. An area's id is not stored: no
 * lookup names an area by it.
 */
export interface EntryHeader {
  /** `c`, `p`, `n` and `d` as in EntryDraft. */
  c: [number, number];
  p: PsapTuple[];
  n: number[];
  d: number[];
  /** Per area, its kind. */
  k: AreaKindCode[];
  /** Per area, its name and its state (or null): two values each. */
  s: (string | null)[];
  /** Per area, its bounding box: four values each, as in AreaDraft. */
  b: number[];
  /**
   * Every area's ring bounds, back to back: area i's are `r[ro[i]]` up to `r[ro[i + 1]]`, [start, end 1,
   * ..., end k], offsets from the ring section's start: ring 1 runs from start to end 1, ring 2 from end
   * 1 to end 2, and so on.
   */
  r: number[];
  /** Per area, where its ring bounds start in `r`, then `r`'s length. */
  ro: number[];
  /** Every area's members (indexes into `p`), back to back: area i's are `m[mo[i]]` up to `m[mo[i + 1]]`. */
  m: number[];
  /** Per area, where its members start in `m`, then `m`'s length. */
  mo: number[];
}

/**
 * An entry as stored: its header as JSON, a newline, then the ring section, every area's encoded rings
 * back to back. JSON.stringify never writes a raw newline and the ring alphabet has none, so the first
 * newline ends the header. Rings stay out of the JSON so that reading an entry parses only the small
 * header and copies no ring: a lookup decodes, in place, the rings of the few areas near its fix.
 */
export function encodeEntry(draft: EntryDraft): string {
  const section: string[] = [];
  let end = 0;
  const header: EntryHeader = {
    c: draft.c,
    p: draft.p,
    n: draft.n,
    d: draft.d,
    k: [],
    s: [],
    b: [],
    r: [],
    ro: [],
    m: [],
    mo: [],
  };
  for (const [kind, , name, state, box, rings, members] of draft.a) {
    header.k.push(kind);
    header.s.push(name, state);
    header.b.push(...box);
    header.ro.push(header.r.length);
    header.r.push(end);
    for (const ring of rings) {
      section.push(ring);
      end += ring.length;
      header.r.push(end);
    }
    header.mo.push(header.m.length);
    header.m.push(...members);
  }
  header.ro.push(header.r.length);
  header.mo.push(header.m.length);
  return `${JSON.stringify(header)}\n${section.join("")}`;
}

/** A stored entry, read: its header, and where its ring section starts in its text. */
export interface ParsedEntry {
  header: EntryHeader;
  text: string;
  ringsAt: number;
}

export function psapToTuple(p: IndexedPsap): PsapTuple {
  return [
    p.id,
    p.name,
    p.type === "primary" ? 0 : 1,
    p.state,
    p.county,
    p.city,
    p.lines.map((l) => [
      PHONE_KINDS.indexOf(l.kind),
      l.phone,
      l.label,
      l.source,
      l.checked_on,
      LINE_ORIGINS.indexOf(l.origin),
    ]),
    jurisdictionRank(p.jurisdiction),
    p.handled_by,
    p.latitude,
    p.longitude,
    Math.max(0, PRECISIONS.indexOf(p.location_precision)),
  ];
}

/** The delivered record of a stored PSAP, with the lookup's distance and match (one object, no copy). */
export function recordOf(t: PsapTuple, distanceKm: number, match: PsapMatch): PsapRecord {
  const lines = t[6].map(lineOf);
  const best = lines[0];
  return {
    id: t[0],
    name: t[1],
    type: t[2] === 0 ? "primary" : "secondary",
    state: t[3],
    county: t[4],
    city: t[5],
    phone: best ? best.phone : null,
    phone_kind: best ? best.kind : null,
    lines,
    jurisdiction: JURISDICTIONS[t[7]] ?? "special",
    handled_by: t[8],
    latitude: t[9],
    longitude: t[10],
    location_precision: PRECISIONS[t[11]] ?? "city",
    distance_km: distanceKm,
    match,
  };
}

function lineOf(l: LineTuple): PsapLine {
  return {
    phone: l[1],
    kind: PHONE_KINDS[l[0]] ?? "administrative",
    label: l[2],
    source: l[3],
    checked_on: l[4],
    origin: LINE_ORIGINS[l[5]] ?? "directory",
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
    t.length === 12 &&
    typeof t[0] === "string" &&
    typeof t[1] === "string" &&
    (t[2] === 0 || t[2] === 1) &&
    Array.isArray(t[6]) &&
    t[6].every(isLineTuple) &&
    typeof t[9] === "number" &&
    typeof t[10] === "number" &&
    typeof t[7] === "number"
  );
}

function isLineTuple(l: unknown): l is LineTuple {
  return (
    Array.isArray(l) &&
    l.length === 6 &&
    typeof l[0] === "number" &&
    typeof l[1] === "string" &&
    typeof l[2] === "string" &&
    typeof l[3] === "string" &&
    typeof l[4] === "string" &&
    typeof l[5] === "number"
  );
}

function isIndexList(list: unknown, size: number): list is number[] {
  return Array.isArray(list) && list.every((i) => Number.isInteger(i) && i >= 0 && i < size);
}

/** Per-area runs of a flat list: `at` starts at 0, never decreases, has one more value than there are areas and ends at `length`. */
function isRunStarts(at: unknown, areas: number, length: number): at is number[] {
  if (!Array.isArray(at) || at.length !== areas + 1 || at[0] !== 0 || at[areas] !== length) return false;
  for (let i = 1; i <= areas; i++) if (!Number.isInteger(at[i]) || at[i] < at[i - 1]) return false;
  return true;
}

/** The areas' columns: consistent lengths, known kinds, finite boxes, ring bounds within the section, members within `p`. */
function areColumns(h: Partial<EntryHeader>, psaps: number, ringChars: number): boolean {
  const { k, s, b, r, ro, m, mo } = h;
  if (
    !Array.isArray(k) ||
    !k.every((kind) => Number.isInteger(kind) && kind >= AREA_BOUNDARY && kind <= AREA_TOWN)
  )
    return false;
  const areas = k.length;
  if (!Array.isArray(s) || s.length !== areas * 2) return false;
  for (let i = 0; i < areas; i++) {
    const state = s[2 * i + 1];
    if (typeof s[2 * i] !== "string" || (state !== null && typeof state !== "string")) return false;
  }
  if (
    !Array.isArray(b) ||
    b.length !== areas * 4 ||
    !b.every((v) => typeof v === "number" && Number.isFinite(v))
  )
    return false;
  if (!Array.isArray(r) || !isRunStarts(ro, areas, r.length)) return false;
  for (let i = 0; i < areas; i++) {
    if (!isRingBounds(r, ro[i] as number, ro[i + 1] as number, ringChars)) return false;
  }
  return isIndexList(m, psaps) && isRunStarts(mo, areas, m.length);
}

/** One area's [start, end 1, ..., end k] at `list[from..to)`: whole offsets, each ring non-empty, all within the ring section. */
function isRingBounds(list: readonly unknown[], from: number, to: number, ringChars: number): boolean {
  if (to - from < 1) return false;
  let previous = -1;
  for (let k = from; k < to; k++) {
    const v = list[k];
    if (
      !Number.isInteger(v) ||
      (v as number) > ringChars ||
      (k === from ? (v as number) < 0 : (v as number) <= previous)
    )
      return false;
    previous = v as number;
  }
  return true;
}

/** Parses and checks an entry. Throws MalformedIndexError on anything the builder would not write. */
export function parseEntry(text: string): ParsedEntry {
  const newline = text.indexOf("\n");
  if (newline < 0) throw new MalformedIndexError("PSAP index entry has no ring section");
  let json: Partial<EntryHeader>;
  try {
    json = JSON.parse(text.slice(0, newline)) as Partial<EntryHeader>;
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
  if (!areColumns(json, p.length, text.length - newline - 1)) {
    throw new MalformedIndexError("PSAP index entry has bad areas");
  }
  return { header: json as EntryHeader, text, ringsAt: newline + 1 };
}

/**
 * The pointer as stored: the manifest without its tree as JSON, a newline, then the tree (whose alphabet
 * has no newline, as JSON.stringify writes none).
 */
export function encodeManifest(manifest: IndexManifest): string {
  const { tree, ...rest } = manifest;
  return `${JSON.stringify(rest)}\n${tree}`;
}

/** The JSON part of a pointer of any format (formats before 4 are JSON alone). */
export function manifestJson(text: string): string {
  const newline = text.indexOf("\n");
  return newline < 0 ? text : text.slice(0, newline);
}

export function parseManifest(text: string): IndexManifest | null {
  const newline = text.indexOf("\n");
  if (newline < 0) return null;
  try {
    const m = JSON.parse(text.slice(0, newline)) as Partial<IndexManifest>;
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
      m.tree === undefined
    ) {
      // A slice of the text, not a copy of it.
      return { ...m, tree: text.slice(newline + 1) } as IndexManifest;
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
  /** Present for a PSAP with service-area polygons from a NENA GIS data model `PsapPolygon` layer. */
  nena?: NenaRecord;
}

/** What a NENA `PsapPolygon` layer says of a PSAP (NENA-STA-006): one entry per polygon it answers in. */
export interface NenaRecord {
  service_areas: NenaServiceArea[];
}

export interface NenaServiceArea {
  /** `NGUID` (or v2's `ES_NGUID`): the polygon's globally unique id. */
  nguid: string;
  /** `DsplayName`. */
  display_name: string;
  /** `Agency_ID`: the agency's domain-style identifier. */
  agency_id: string | null;
  /** `ServiceURI`: the SIP or tel URI calls for the service are routed to. */
  service_uri: string | null;
  /** `AVcard_URI`: where the agency's vCard (contact card) is published. */
  avcard_uri: string | null;
  /** `ServiceNum`: the number the service is dialled by, where the layer gives it. */
  service_number: string | null;
  /**
   * How the import tied the polygon to this PSAP: `id`, an explicit id column (or its NGUID is this
   * PSAP's id); `name`, its display name and state against the registry; `own`, neither: the polygon
   * made this PSAP.
   */
  matched_by: "id" | "name" | "own";
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
  /**
   * Per state: PSAPs, those with an imported line, those with an emergency or dispatch line, and how many
   * PSAPs have each day as the oldest `checked_on` of their lines (the coverage report counts the stale
   * ones on the day it is asked; it adds the operator's lines).
   */
  by_state: Record<
    string,
    { psaps: number; with_phone: number; with_24x7: number; oldest_check: Record<string, number> }
  >;
}
