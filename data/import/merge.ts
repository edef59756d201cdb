// Merges the inputs into one data set: registry rows, their geocodes, operator overrides,
// placement of the rest, county matching and boundary polygons.
import type { IndexedPsap, PsapDataset, ServiceAreaInput } from "../../src/psap/types.ts";
import { type County, CountyMatcher } from "./counties.ts";
import type { Gazetteer } from "./gazetteer.ts";
import type { BoundaryFeature, FccGeocode, FccRow, FileReport, ProjectRow } from "./model.ts";

export type PlacementMethod =
  | "operator file"
  | "registry geocode (city)"
  | "gazetteer (city, state)"
  | "county centroid";

export interface MergeSummary {
  psaps: number;
  primaries: number;
  secondaries: number;
  placement: Record<PlacementMethod, number>;
  /** PSAPs left out because nothing could place them. */
  unplaced: { id: string; reason: string }[];
  countyMatched: number;
  /** Registry county texts that match no Census county, with how many PSAPs name them. */
  unmatchedCounties: { state: string; county: string; psaps: number }[];
  withPhone: number;
  boundaries: number;
}

export interface MergeInputs {
  fcc: FccRow[];
  geocodes: { rows: FccGeocode[]; report: FileReport }[];
  project: ProjectRow[];
  boundaries: { rows: BoundaryFeature[]; report: FileReport }[];
  counties: readonly County[];
  /** Loaded only if some PSAP needs it. */
  gazetteer: () => Gazetteer;
  dataVersion: string;
}

/** A PSAP being merged: its position may still be unknown until it is placed. */
type Draft = Omit<IndexedPsap, "latitude" | "longitude" | "location_precision"> &
  Partial<Pick<IndexedPsap, "latitude" | "longitude" | "location_precision">> & {
    placedBy?: PlacementMethod;
  };

export function mergeInputs(input: MergeInputs): { dataset: PsapDataset; summary: MergeSummary } {
  const drafts = new Map<string, Draft>();
  for (const r of input.fcc) {
    drafts.set(r.id, {
      id: r.id,
      name: r.name,
      type: r.secondary ? "secondary" : "primary",
      state: r.state,
      county: r.county || null,
      city: r.city || null,
      phone: null,
      phone_kind: null,
      jurisdiction: "county",
      handled_by: null,
    });
  }
  // The 2017 export only places PSAPs the current registry lists.
  for (const { rows, report } of input.geocodes) {
    for (const g of rows) {
      const d = drafts.get(g.id);
      if (!d) {
        report.dropped.push({
          line: g.line,
          reason: "not in the current registry (orphaned or unknown): ignored",
        });
        report.kept--;
        continue;
      }
      if (d.latitude === undefined) {
        d.latitude = g.latitude;
        d.longitude = g.longitude;
        d.location_precision = "city";
        d.placedBy = "registry geocode (city)";
      }
    }
  }
  const unplaced: MergeSummary["unplaced"] = [];
  for (const p of input.project) {
    let d = drafts.get(p.id);
    if (!d) {
      if (!p.name || !p.state) {
        unplaced.push({ id: p.id, reason: `project row line ${p.line}: a new PSAP needs name and state` });
        continue;
      }
      d = {
        id: p.id,
        name: p.name,
        type: "primary",
        state: p.state,
        county: null,
        city: null,
        phone: null,
        phone_kind: null,
        jurisdiction: "county",
        handled_by: null,
      };
      drafts.set(p.id, d);
    }
    if (p.name !== undefined) d.name = p.name;
    if (p.type !== undefined) d.type = p.type;
    if (p.state !== undefined) d.state = p.state;
    if (p.county !== undefined) d.county = p.county;
    if (p.city !== undefined) d.city = p.city;
    if (p.phone !== undefined) {
      d.phone = p.phone;
      d.phone_kind = p.phone === null ? null : "administrative";
    }
    if (p.latitude !== undefined && p.longitude !== undefined) {
      d.latitude = p.latitude;
      d.longitude = p.longitude;
      d.location_precision = p.location_precision ?? "building";
      d.placedBy = "operator file";
    } else if (p.location_precision !== undefined && d.latitude !== undefined) {
      d.location_precision = p.location_precision;
    }
  }

  const matcher = new CountyMatcher(input.counties);
  const unmatched = new Map<string, { state: string; county: string; psaps: number }>();
  const countiesOf = new Map<string, County[]>();
  let gazetteer: Gazetteer | undefined;
  const placement: Record<PlacementMethod, number> = {
    "operator file": 0,
    "registry geocode (city)": 0,
    "gazetteer (city, state)": 0,
    "county centroid": 0,
  };
  const psaps: IndexedPsap[] = [];
  for (const d of drafts.values()) {
    const matched = d.county ? matcher.match(d.state, d.county) : { counties: [], unmatched: [] };
    for (const part of matched.unmatched) {
      const key = `${d.state}:${part}`;
      const u = unmatched.get(key) ?? { state: d.state, county: part, psaps: 0 };
      u.psaps++;
      unmatched.set(key, u);
    }
    if (d.latitude === undefined && d.city) {
      gazetteer ??= input.gazetteer();
      const hit = gazetteer.find(d.state, d.city);
      if (hit) {
        d.latitude = hit.latitude;
        d.longitude = hit.longitude;
        d.location_precision = "city";
        d.placedBy = "gazetteer (city, state)";
      }
    }
    const first = matched.counties[0];
    if (d.latitude === undefined && first) {
      d.longitude = first.centroid[0];
      d.latitude = first.centroid[1];
      d.location_precision = "county";
      d.placedBy = "county centroid";
    }
    if (d.latitude === undefined || d.longitude === undefined || !d.placedBy) {
      unplaced.push({ id: d.id, reason: "no geocode, city not in the gazetteer, county not matched" });
      continue;
    }
    placement[d.placedBy]++;
    if (matched.counties.length > 0) countiesOf.set(d.id, matched.counties);
    psaps.push({
      id: d.id,
      name: d.name,
      type: d.type,
      state: d.state,
      county: d.county,
      city: d.city,
      phone: d.phone,
      phone_kind: d.phone_kind,
      jurisdiction: d.jurisdiction,
      handled_by: d.handled_by,
      latitude: d.latitude,
      longitude: d.longitude,
      location_precision: d.location_precision ?? "city",
    });
  }

  const ids = new Set(psaps.map((p) => p.id));
  const areas: ServiceAreaInput[] = [];
  const withBoundary = new Set<string>();
  for (const { rows, report } of input.boundaries) {
    for (const b of rows) {
      if (!ids.has(b.psapId)) {
        report.dropped.push({ line: b.line, reason: `no PSAP with id ${b.psapId} in this import` });
        report.kept--;
        continue;
      }
      withBoundary.add(b.psapId);
      areas.push({ id: b.areaId, kind: "boundary", rings: b.rings, psapIds: [b.psapId] });
    }
  }
  // A PSAP with its own boundary is matched by it, not by its registered county.
  const members = new Map<string, string[]>();
  for (const [id, counties] of countiesOf) {
    if (withBoundary.has(id)) continue;
    for (const c of counties) members.set(c.fips, [...(members.get(c.fips) ?? []), id]);
  }
  for (const c of input.counties) {
    const m = members.get(c.fips);
    if (m) areas.push({ id: c.fips, kind: "county", rings: c.rings, psapIds: m });
  }

  const summary: MergeSummary = {
    psaps: psaps.length,
    primaries: psaps.filter((p) => p.type === "primary").length,
    secondaries: psaps.filter((p) => p.type === "secondary").length,
    placement,
    unplaced,
    countyMatched: countiesOf.size,
    unmatchedCounties: [...unmatched.values()].sort((a, b) => b.psaps - a.psaps),
    withPhone: psaps.filter((p) => p.phone !== null).length,
    boundaries: areas.filter((a) => a.kind === "boundary").length,
  };
  return { dataset: { dataVersion: input.dataVersion, psaps, areas }, summary };
}
