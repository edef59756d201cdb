// The tests' oracle: docs/contract.md, section 4's ranking as one composite sort key over the WHOLE data set (every
// PSAP, every area at full resolution), written independently of the index's ranking (src/psap/rank.ts).

import {
  type AreaKind,
  type IndexedPsap,
  memberIndexes,
  type PsapDataset,
} from "../../data/index/dataset.ts";
import { PSAP_LIMITS } from "../../lib/config.ts";
import { jurisdictionRank } from "../../lib/psap-index/format.ts";
import { haversineKm, roundKm } from "../../lib/psap-index/geo.ts";
import {
  type AreaGeometry,
  areaLevel,
  decodeRings,
  encodeRings,
  INSIDE,
  OUTSIDE,
  toleranceKm,
} from "../../lib/psap-index/geometry.ts";
import type { PsapMatch, PsapRecord } from "../../sdk/src/protocol.ts";
import { isOutsideUs } from "../../src/answer/where.ts";

interface ReferenceArea {
  kind: AreaKind;
  name: string;
  state: string | null;
  geometry: AreaGeometry;
  members: number[];
}

export interface Reference {
  psaps: readonly IndexedPsap[];
  areas: ReferenceArea[];
}

export interface ReferenceResult {
  psaps: PsapRecord[];
  place: { name: string; kind: "city" | "town" | "community"; state: string | null } | null;
  county: { name: string; state: string | null } | null;
  /** When no county contains the fix, the one county its reach touches, if just one does. */
  nearCounty: { name: string; state: string | null } | null;
}

/** Decodes a data set's areas once, through the same storage encoding as the index (so vertices agree). */
export function prepareReference(dataset: PsapDataset): Reference {
  const indexOf = new Map(dataset.psaps.map((p, i) => [p.id, i]));
  const areas: ReferenceArea[] = [];
  for (const a of dataset.areas) {
    const encoded = encodeRings(a.rings);
    if (encoded.length === 0) continue;
    const members = memberIndexes(a, indexOf);
    areas.push({ kind: a.kind, name: a.name, state: a.state, geometry: decodeRings(encoded), members });
  }
  return { psaps: dataset.psaps, areas };
}

const GROUP: Readonly<Record<AreaKind, number>> = { boundary: 0, city: 1, town: 1, community: 1, county: 2 };
const MATCH: readonly PsapMatch[] = ["boundary", "city", "county"];
/** The place named for a fix: a city, else the town around it, else a community. */
const PLACE_ORDER: Readonly<Record<string, number>> = { city: 0, town: 1, community: 2 };
type Key = (number | string)[];

function compareKeys(a: Key, b: Key): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? -1;
    const y = b[i] ?? -1;
    if (x === y) continue;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** The areas that reach the fix, and what names the fix's place, county and near county. */
function scanAreas(reference: Reference, lat: number, lon: number, t: number) {
  let place: ReferenceResult["place"] = null;
  let county: ReferenceResult["county"] = null;
  const near: { name: string; state: string | null }[] = [];
  const reached: { area: ReferenceArea; level: number }[] = [];
  for (const area of reference.areas) {
    const level = areaLevel(area.geometry, lat, lon, t);
    if (level === OUTSIDE) continue;
    reached.push({ area, level });
    if (level === INSIDE && area.kind === "county" && !county)
      county = { name: area.name, state: area.state };
    if (level !== INSIDE && area.kind === "county") near.push({ name: area.name, state: area.state });
    const order = PLACE_ORDER[area.kind];
    if (level === INSIDE && order !== undefined && (!place || order < (PLACE_ORDER[place.kind] as number))) {
      place = { name: area.name, kind: area.kind as "city" | "town" | "community", state: area.state };
    }
  }
  const nearCounty = county === null && near.length === 1 ? (near[0] ?? null) : null;
  return { place, county, nearCounty, reached };
}

/** Each reached PSAP's part (0 statewide, then containment and group) and the match it was reached by. */
function partsOf(reference: Reference, reached: readonly { area: ReferenceArea; level: number }[]) {
  // The city group is the smallest municipality's: a town's centres do not answer there when a city with
  // centres of its own contains the fix (a community never hides its town).
  const smaller = reached.some(
    (r) => r.level === INSIDE && r.area.kind === "city" && r.area.members.length > 0,
  );
  // Parts: 1-3 the groups of the areas that contain the fix, 4-6 those reached only through its accuracy.
  const part = new Map<number, number>();
  for (const { area, level } of reached) {
    if (area.kind === "town" && level === INSIDE && smaller) continue;
    const g = GROUP[area.kind];
    for (const m of area.members) part.set(m, Math.min(part.get(m) ?? 99, 1 + level * 3 + g));
  }
  // A statewide centre reached through an area that contains the fix comes first of all (part 0).
  const matchOf = new Map<number, PsapMatch>();
  for (const [m, pt] of part) {
    matchOf.set(m, MATCH[(pt - 1) % 3] as PsapMatch);
    if (pt <= 3 && (reference.psaps[m] as IndexedPsap).jurisdiction === "state") part.set(m, 0);
  }
  return { part, matchOf };
}

/** One composite sort key per PSAP within reach: docs/contract.md, section 4's order, written out. */
function sortKeys(
  reference: Reference,
  km: readonly number[],
  { part, matchOf }: ReturnType<typeof partsOf>,
): { i: number; key: Key; match: PsapMatch }[] {
  const reachable = (i: number) => (km[i] as number) <= PSAP_LIMITS.maxDistanceKm;
  // Which primaries sit in each part (after the distance cut): a secondary follows its own primary only there.
  const primariesInPart = new Map<number, Set<string>>();
  for (const [i, pt] of part) {
    const p = reference.psaps[i] as IndexedPsap;
    if (p.type === "primary" && reachable(i)) {
      const set = primariesInPart.get(pt) ?? new Set<string>();
      set.add(p.id);
      primariesInPart.set(pt, set);
    }
  }
  const byId = new Map(reference.psaps.map((p, i) => [p.id, i]));
  const keyed: { i: number; key: Key; match: PsapMatch }[] = [];
  reference.psaps.forEach((p, i) => {
    if (!reachable(i)) return;
    const pt = part.get(i);
    const d = km[i] as number;
    const j = jurisdictionRank(p.jurisdiction);
    if (pt === undefined) {
      keyed.push({ i, key: [7, p.type === "primary" ? 0 : 1, d, p.id], match: "nearest" });
      return;
    }
    const match = matchOf.get(i) as PsapMatch;
    if (p.type === "primary") {
      keyed.push({ i, key: [pt, 0, j, d, p.id, 0], match });
      return;
    }
    const lead = p.handled_by;
    if (lead !== null && primariesInPart.get(pt)?.has(lead)) {
      const li = byId.get(lead) as number;
      const l = reference.psaps[li] as IndexedPsap;
      keyed.push({
        i,
        key: [pt, 0, jurisdictionRank(l.jurisdiction), km[li] as number, l.id, 1, j, d, p.id],
        match,
      });
      return;
    }
    keyed.push({ i, key: [pt, 1, j, d, p.id], match });
  });
  return keyed;
}

/** Scans every PSAP and every area: what `lookupPsaps` must return, record for record. */
export function bruteForceLookup(
  reference: Reference,
  query: { latitude: number; longitude: number; accuracy?: number | null },
  options: { limit?: number; maxToleranceKm?: number } = {},
): ReferenceResult {
  const { latitude: lat, longitude: lon } = query;
  const limit = options.limit ?? PSAP_LIMITS.maxResults;
  const t = toleranceKm(
    query.accuracy,
    PSAP_LIMITS.minBorderToleranceM,
    options.maxToleranceKm ?? PSAP_LIMITS.maxBorderToleranceKm,
  );
  const { place, county, nearCounty, reached } = scanAreas(reference, lat, lon, t);
  // the contract (docs/contract.md): a fix abroad gets no US PSAP, unless the US is within its accuracy (the same country data as the lookup).
  if (!county && !place && isOutsideUs(lat, lon, t, false)) return { psaps: [], place, county, nearCounty };
  const km = reference.psaps.map((p) => haversineKm(lat, lon, p.latitude, p.longitude));
  const keyed = sortKeys(reference, km, partsOf(reference, reached));
  keyed.sort((a, b) => compareKeys(a.key, b.key));
  const psaps = keyed.slice(0, Math.max(0, limit)).map(({ i, match }) => {
    const p = reference.psaps[i] as IndexedPsap;
    return { ...p, distance_km: roundKm(km[i] as number), match };
  });
  return { psaps, place, county, nearCounty };
}
