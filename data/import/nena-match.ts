// Ties each polygon of a NENA PsapPolygon layer (read-nena.ts) to the PSAP it bounds, never by a guess:
// by an explicit id column (PSAP_ID, FCC_PSAP_ID), or by an NGUID that already names a PSAP of the
// import (an operator's project row); else by its display name against the registry's names in its
// state (normalised as names.ts does; the state from the v2 State field, else from the counties its
// area lies in: polygon-county.ts). A name that no registry PSAP of the state has, or that several
// have, ties it to no registry PSAP: the polygon becomes a PSAP of its own, its NGUID as id, placed
// inside it (one PSAP per Agency_ID of a state, where the layer gives several polygons of one agency).
// Every feature's tie is in its file's report (`boundaryMatches`), with why.
import type { NenaServiceArea } from "../../lib/psap-index/format.ts";
import type { County } from "./counties.ts";
import { type Draft, dropUnknown } from "./drafts.ts";
import type { BoundaryFeature, BoundaryMatch, FileReport, NenaFeature } from "./model.ts";
import { normalizeName } from "./names.ts";
import { type PolygonPlace, placePolygon } from "./polygon-county.ts";

export interface NenaLayer {
  features: readonly NenaFeature[];
  report: FileReport;
}

export interface MatchedLayers {
  /** The polygons as service-area boundaries (answering.ts makes them `boundary` areas). */
  boundaries: { rows: BoundaryFeature[]; report: FileReport }[];
  /** PSAP id -> what the layers say of it, for the admin catalogue. */
  records: Map<string, NenaServiceArea[]>;
}

type Tie = { reason: string } | { psapId: string; by: BoundaryMatch["by"]; why: string; state: string };

/** Adds the PSAPs of their own to `drafts`, and gives a matched registry PSAP its service area's point. */
export function matchNenaLayers(
  layers: readonly NenaLayer[],
  drafts: Map<string, Draft>,
  counties: readonly County[],
): MatchedLayers {
  // The registry's names as they stand before any polygon adds a PSAP: a polygon never matches by name
  // a PSAP that another polygon made.
  const byName = new Map<string, string[]>();
  for (const d of drafts.values()) {
    const key = nameKey(d.state, d.name);
    byName.set(key, [...(byName.get(key) ?? []), d.id]);
  }
  const own = new OwnPsaps(drafts);
  const out: MatchedLayers = { boundaries: [], records: new Map() };
  for (const { features, report } of layers) {
    const rows: BoundaryFeature[] = [];
    for (const f of features) {
      const tie = tieFeature(f, placePolygon(counties, f, f.state), drafts, byName, own);
      if ("reason" in tie) {
        dropUnknown(report, f.line, tie.reason);
        continue;
      }
      const d = drafts.get(tie.psapId) as Draft;
      d.serviceArea ??= { latitude: f.interior[1], longitude: f.interior[0], layerOnly: false };
      rows.push({ line: f.line, psapId: tie.psapId, areaId: f.nguid, name: f.displayName, rings: f.rings });
      report.boundaryMatches?.push({
        line: f.line,
        nguid: f.nguid,
        name: f.displayName,
        state: tie.state,
        by: tie.by,
        psapId: tie.psapId,
        why: tie.why,
      });
      const records = out.records.get(tie.psapId) ?? [];
      records.push({
        nguid: f.nguid,
        display_name: f.displayName,
        agency_id: f.agencyId,
        service_uri: f.serviceUri,
        avcard_uri: f.avcardUri,
        service_number: f.serviceNumber,
        matched_by: tie.by,
      });
      out.records.set(tie.psapId, records);
    }
    out.boundaries.push({ rows, report });
  }
  return out;
}

function tieFeature(
  f: NenaFeature,
  place: PolygonPlace,
  drafts: ReadonlyMap<string, Draft>,
  byName: ReadonlyMap<string, readonly string[]>,
  own: OwnPsaps,
): Tie {
  if (f.explicitId !== null) {
    const d = drafts.get(f.explicitId);
    if (!d) return { reason: `no PSAP with id ${f.explicitId} in this import (the layer's PSAP_ID column)` };
    return { psapId: d.id, by: "id", why: "its PSAP_ID column", state: d.state };
  }
  const sameNguid = drafts.get(f.nguid);
  if (sameNguid && !own.made(f.nguid)) {
    return {
      psapId: sameNguid.id,
      by: "id",
      why: "its NGUID is a PSAP of the import",
      state: sameNguid.state,
    };
  }
  if ("problem" in place) return { reason: `no state: no State field, and ${place.problem}` };
  const { state, county } = place;
  const ids = byName.get(nameKey(state, f.displayName)) ?? [];
  if (ids.length === 1) {
    return { psapId: ids[0] as string, by: "name", why: `its name, in ${state}`, state };
  }
  const why =
    ids.length === 0
      ? `no registry PSAP of its name in ${state}`
      : `ambiguous: ${ids.length} registry PSAPs of its name in ${state} (${[...ids].sort().join(", ")})`;
  const { psapId, firstLine } = own.psapFor(f, state, county);
  const made =
    firstLine === f.line
      ? "a PSAP of its own"
      : `the PSAP item ${firstLine} made (the same ${psapId === f.nguid ? "NGUID" : "Agency_ID"})`;
  return { psapId, by: "own", why: `${why}: ${made}`, state };
}

/** The PSAPs the layers make: one per NGUID, and one per Agency_ID of a state. */
class OwnPsaps {
  private readonly byAgency = new Map<string, string>();
  /** PSAP id -> the item that made it. */
  private readonly firstLine = new Map<string, number>();

  private readonly drafts: Map<string, Draft>;

  constructor(drafts: Map<string, Draft>) {
    this.drafts = drafts;
  }

  made(id: string): boolean {
    return this.firstLine.has(id);
  }

  psapFor(f: NenaFeature, state: string, county: County | null): { psapId: string; firstLine: number } {
    const agencyKey = f.agencyId ? `${state}:${f.agencyId.toLowerCase()}` : null;
    const existing =
      (agencyKey ? this.byAgency.get(agencyKey) : undefined) ?? (this.made(f.nguid) ? f.nguid : undefined);
    if (existing !== undefined)
      return { psapId: existing, firstLine: this.firstLine.get(existing) as number };
    this.drafts.set(f.nguid, {
      id: f.nguid,
      name: f.displayName,
      type: "primary",
      state,
      county: county && county.state === state ? county.name : null,
      city: null,
      phone: null,
      comments: "",
      operator: null,
      serviceArea: { latitude: f.interior[1], longitude: f.interior[0], layerOnly: true },
    });
    this.firstLine.set(f.nguid, f.line);
    if (agencyKey) this.byAgency.set(agencyKey, f.nguid);
    return { psapId: f.nguid, firstLine: f.line };
  }
}

function nameKey(state: string, name: string): string {
  return `${state}:${normalizeName(name)}`;
}
