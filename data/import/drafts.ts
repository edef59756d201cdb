// The PSAPs an import is about, before any rule: the registry's rows, the operator's rows over them, the
// 2017 geocodes of those the registry lists, and the override rows that name one of them.
import type { FccGeocode, FccRow, FileReport, OverrideRow, ProjectRow } from "./model.ts";

export interface Draft {
  id: string;
  name: string;
  type: "primary" | "secondary";
  state: string;
  county: string | null;
  city: string | null;
  phone: string | null;
  comments: string;
  /** The operator's building coordinates and their precision, when a project row gives them. */
  operator: ProjectRow | null;
  /**
   * A point inside the service-area polygon a NENA layer gives it (nena-match.ts): where a PSAP that only
   * the layer names is placed (`layerOnly`), and where a registry PSAP with no other location is.
   */
  serviceArea?: { latitude: number; longitude: number; layerOnly: boolean };
}

export interface Drafts {
  drafts: Map<string, Draft>;
  geocodeOf: Map<string, { latitude: number; longitude: number }>;
  overrides: Map<string, OverrideRow>;
  /** Project rows that could not become a PSAP. */
  unplaced: { id: string; reason: string }[];
}

/** A row of another file that names no PSAP of this import: dropped, and its file's report says so. */
export function dropUnknown(report: FileReport, line: number, reason: string): void {
  report.dropped.push({ line, reason });
  report.kept--;
}

export function collectDrafts(input: {
  fcc: readonly FccRow[];
  geocodes: readonly { rows: readonly FccGeocode[]; report: FileReport }[];
  project: readonly ProjectRow[];
  overrides: readonly { rows: readonly OverrideRow[]; report: FileReport }[];
}): Drafts {
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
      comments: r.comments,
      operator: null,
    });
  }
  // The 2017 export only places PSAPs the current registry lists.
  const geocodeOf = new Map<string, { latitude: number; longitude: number }>();
  for (const { rows, report } of input.geocodes) {
    for (const g of rows) {
      if (!drafts.has(g.id)) {
        dropUnknown(report, g.line, "not in the current registry (orphaned or unknown): ignored");
        continue;
      }
      if (!geocodeOf.has(g.id)) geocodeOf.set(g.id, { latitude: g.latitude, longitude: g.longitude });
    }
  }
  const unplaced: Drafts["unplaced"] = [];
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
        comments: "",
        operator: null,
      };
      drafts.set(p.id, d);
    }
    if (p.name !== undefined) d.name = p.name;
    if (p.type !== undefined) d.type = p.type;
    if (p.state !== undefined) d.state = p.state;
    if (p.county !== undefined) d.county = p.county;
    if (p.city !== undefined) d.city = p.city;
    if (p.phone !== undefined) d.phone = p.phone;
    if (p.latitude !== undefined || p.location_precision !== undefined)
      d.operator = { ...(d.operator ?? {}), ...p };
  }
  const overrides = new Map<string, OverrideRow>();
  for (const { rows, report } of input.overrides) {
    for (const o of rows) {
      if (!drafts.has(o.psapId)) {
        dropUnknown(report, o.line, `no PSAP with id ${o.psapId} in this import`);
        continue;
      }
      overrides.set(o.psapId, o);
    }
  }
  return { drafts, geocodeOf, overrides, unplaced };
}
