// Ties each polygon of a NENA PsapPolygon layer (read-nena.ts) to the PSAP it bounds, never by a guess:
// by an explicit id column (PSAP_ID, FCC_PSAP_ID), or by an NGUID that already names a PSAP of the
// import (an operator's project row); else by its display name against the registry's names in its
// state (normalised as names.ts does; the state from the v2 State field, else from the county holding
// the polygon's interior point or most of its border). A name that no registry PSAP of the state has,
// or that several have, ties it to no registry PSAP: the polygon becomes a PSAP of its own, its NGUID
// as id, placed inside it (one PSAP per Agency_ID of a state, where the layer gives several polygons of
// one agency). Every feature's tie is in its file's report (`boundaryMatches`), with why.
import type { NenaServiceArea } from "../../src/psap/format.ts";
import { areaLevel, INSIDE } from "../../src/psap/geometry.ts";
import type { County } from "./counties.ts";
import { type Draft, dropUnknown } from "./drafts.ts";
import type { BoundaryFeature, BoundaryMatch, FileReport, NenaFeature } from "./model.ts";
import { normalizeName } from "./names.ts";

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

/** Vertices of a polygon sampled to find its county when its interior point lies in no county. */
const VERTEX_SAMPLE = 64;
/** The share of those vertices one state must hold for the polygon to be read as in that state. */
const STATE_SHARE = 0.75;

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
      const county = countyOf(counties, f);
      const state = f.state ?? county?.state ?? null;
      const tie = tieFeature(f, state, county, drafts, byName, own);
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
  state: string | null,
  county: County | null,
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
  if (state === null)
    return { reason: "no state: no State field, and the polygon lies in no county or in several states" };
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

/**
 * The county holding the polygon's interior point. A coastal polygon drawn out to sea (a town or a
 * PSAP to its state's waters) can have its interior point offshore, where the 1:10M counties hold
 * nothing: then the county holding most of a sample of its vertices, provided its state holds at
 * least STATE_SHARE of the sampled vertices that lie in any county.
 */
export function countyOf(
  counties: readonly County[],
  f: Pick<NenaFeature, "interior" | "rings">,
): County | null {
  const [lon, lat] = f.interior;
  const inside = countyAt(counties, lon, lat);
  if (inside) return inside;
  const all = f.rings.flat();
  const step = Math.max(1, Math.floor(all.length / VERTEX_SAMPLE));
  const hits = new Map<County, number>();
  let total = 0;
  for (let i = 0; i < all.length; i += step) {
    const [x, y] = all[i] as readonly [number, number];
    const c = countyAt(counties, x, y);
    if (!c) continue;
    hits.set(c, (hits.get(c) ?? 0) + 1);
    total++;
  }
  const byState = new Map<string, number>();
  for (const [c, n] of hits) byState.set(c.state, (byState.get(c.state) ?? 0) + n);
  const [best] = [...hits].sort((a, b) => b[1] - a[1]);
  if (!best || (byState.get(best[0].state) ?? 0) < STATE_SHARE * total) return null;
  return best[0];
}

function countyAt(counties: readonly County[], lon: number, lat: number): County | null {
  return counties.find((c) => areaLevel(c.geometry, lat, lon, 1e-9) === INSIDE) ?? null;
}
