// What every part of an index build reads, prepared once: the PSAPs by type with a k-d tree of each,
// the areas (rings on the storage grid, members as PSAP indexes) with a coarse grid over their boxes, and
// the limits the entries are exact for.
import KDBush from "kdbush";
import { PSAP_LIMITS } from "../../lib/config.ts";
import {
  AREA_BOUNDARY,
  AREA_CITY,
  AREA_COMMUNITY,
  AREA_COUNTY,
  AREA_TOWN,
  type AreaKindCode,
} from "../../lib/psap-index/format.ts";
import { type AreaGeometry, decodeRings, encodeRings } from "../../lib/psap-index/geometry.ts";
import { AreaBoxGrid } from "./area-box-grid.ts";
import { type AreaKind, type IndexedPsap, memberIndexes, type PsapDataset } from "./dataset.ts";

/** Slack on every distance compared against a bound (km). */
export const EPS_KM = 1e-6;

const KIND_CODE: Readonly<Record<AreaKind, AreaKindCode>> = {
  boundary: AREA_BOUNDARY,
  city: AREA_CITY,
  community: AREA_COMMUNITY,
  county: AREA_COUNTY,
  town: AREA_TOWN,
};

export interface PreparedArea {
  kind: AreaKindCode;
  id: string;
  name: string;
  state: string | null;
  geometry: AreaGeometry;
  vertices: number;
  /** Member PSAP indexes. */
  members: number[];
}

export interface BuildLimits {
  /** Most records a lookup may ask for. */
  topN: number;
  /** Nothing farther than this is returned, km. */
  maxKm: number;
  /** Largest border tolerance the entries are exact for, km. */
  tolKm: number;
  /** Deepest resolution a leaf may have. */
  rMax: number;
  /** A leaf whose entry is larger than this is split (unless already at rMax). */
  maxEntryBytes: number;
}

export interface BuildContext extends BuildLimits {
  psaps: readonly IndexedPsap[];
  /** PSAP indexes of the primaries [0] and the secondaries [1]. */
  byType: readonly [number[], number[]];
  /** A k-d tree over each of byType (null where there is none of the type). */
  kds: readonly [KDBush | null, KDBush | null];
  areas: readonly PreparedArea[];
  grid: AreaBoxGrid;
}

function kdIndex(psaps: readonly IndexedPsap[], ids: readonly number[]): KDBush | null {
  if (ids.length === 0) return null;
  const kd = new KDBush(ids.length);
  for (const i of ids) {
    const p = psaps[i] as IndexedPsap;
    kd.add(p.longitude, p.latitude);
  }
  return kd.finish();
}

/** Areas on the storage grid, with their members as indexes (an area with no ring left is dropped). */
function prepareAreas(dataset: PsapDataset, indexOf: ReadonlyMap<string, number>): PreparedArea[] {
  const areas: PreparedArea[] = [];
  for (const a of dataset.areas) {
    const encoded = encodeRings(a.rings);
    if (encoded.length === 0) continue;
    const members = memberIndexes(a, indexOf);
    const geometry = decodeRings(encoded);
    const vertices = geometry.rings.reduce((n, r) => n + r.length / 2, 0);
    areas.push({
      kind: KIND_CODE[a.kind],
      id: a.id,
      name: a.name,
      state: a.state,
      geometry,
      vertices,
      members,
    });
  }
  return areas;
}

/** The context of a build; throws on a duplicate PSAP id or a PSAP without valid coordinates. */
export function buildContext(dataset: PsapDataset, limits: Partial<BuildLimits> = {}): BuildContext {
  const psaps = dataset.psaps;
  const indexOf = new Map<string, number>();
  psaps.forEach((p, i) => {
    if (indexOf.has(p.id)) throw new Error(`duplicate PSAP id ${p.id}`);
    if (!Number.isFinite(p.latitude) || !Number.isFinite(p.longitude) || Math.abs(p.latitude) > 90) {
      throw new Error(`PSAP ${p.id} has no valid coordinates`);
    }
    indexOf.set(p.id, i);
  });
  const byType: [number[], number[]] = [[], []];
  psaps.forEach((p, i) => {
    byType[p.type === "primary" ? 0 : 1].push(i);
  });
  const areas = prepareAreas(dataset, indexOf);
  return {
    topN: limits.topN ?? PSAP_LIMITS.maxResults,
    maxKm: limits.maxKm ?? PSAP_LIMITS.maxDistanceKm,
    tolKm: limits.tolKm ?? PSAP_LIMITS.maxBorderToleranceKm,
    rMax: limits.rMax ?? 7,
    maxEntryBytes: limits.maxEntryBytes ?? 96_000,
    psaps,
    byType,
    kds: [kdIndex(psaps, byType[0]), kdIndex(psaps, byType[1])],
    areas,
    grid: new AreaBoxGrid(areas),
  };
}
