// The admin catalogue of an index version: every PSAP with what it answers for, in parts sorted by id.
import { isAroundTheClock } from "../../lib/lines.ts";
import {
  type CatalogueIndex,
  type CataloguePart,
  type CatalogueRecord,
  catalogueIndexKey,
  cataloguePartKey,
} from "../../lib/psap-index/format.ts";
import type { PsapDataset } from "./dataset.ts";

/** PSAPs per catalogue part: small enough to read for one admin request, few enough keys at a million. */
export const CATALOGUE_PART_SIZE = 2_000;

function servedFromAreas(dataset: PsapDataset): Map<string, { places: string[]; counties: string[] }> {
  const served = new Map<string, { places: string[]; counties: string[] }>();
  const of = (id: string) => {
    let s = served.get(id);
    if (!s) {
      s = { places: [], counties: [] };
      served.set(id, s);
    }
    return s;
  };
  for (const a of dataset.areas) {
    if (a.kind === "city") for (const id of a.psapIds) of(id).places.push(a.id);
    if (a.kind === "county") for (const id of a.psapIds) of(id).counties.push(a.id);
  }
  return served;
}

/** The catalogue's keys and values: an index key, then the parts. */
export function buildCatalogue(dataset: PsapDataset, version: string): Map<string, string> {
  const served = dataset.served ?? servedFromAreas(dataset);
  const records: CatalogueRecord[] = dataset.psaps
    .map((p) => {
      const s = served.get(p.id);
      const serviceAreas = dataset.nena?.get(p.id);
      const record: CatalogueRecord = {
        ...p,
        served_places: [...new Set(s?.places ?? [])].sort(),
        served_counties: [...new Set(s?.counties ?? [])].sort(),
      };
      if (serviceAreas && serviceAreas.length > 0) record.nena = { service_areas: [...serviceAreas] };
      return record;
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const out = new Map<string, string>();
  const parts: CataloguePart[] = [];
  const byState: CatalogueIndex["by_state"] = {};
  for (let start = 0; start < records.length; start += CATALOGUE_PART_SIZE) {
    const chunk = records.slice(start, start + CATALOGUE_PART_SIZE);
    const states: Record<string, number> = {};
    for (const r of chunk) {
      states[r.state] = (states[r.state] ?? 0) + 1;
      const s = byState[r.state] ?? { psaps: 0, with_phone: 0, with_24x7: 0, oldest_check: {} };
      byState[r.state] = s;
      s.psaps++;
      if (r.lines.length > 0) s.with_phone++;
      if (r.lines.some(isAroundTheClock)) s.with_24x7++;
      const oldest = r.lines.reduce<string | null>(
        (o, l) => (o === null || l.checked_on < o ? l.checked_on : o),
        null,
      );
      if (oldest !== null) s.oldest_check[oldest] = (s.oldest_check[oldest] ?? 0) + 1;
    }
    out.set(cataloguePartKey(version, parts.length), JSON.stringify(chunk));
    parts.push({
      first: (chunk[0] as CatalogueRecord).id,
      last: (chunk[chunk.length - 1] as CatalogueRecord).id,
      count: chunk.length,
      states,
    });
  }
  const index: CatalogueIndex = {
    data_version: dataset.dataVersion,
    psaps: records.length,
    parts,
    by_state: byState,
  };
  out.set(catalogueIndexKey(version), JSON.stringify(index));
  return out;
}
