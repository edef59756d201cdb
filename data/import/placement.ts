// Where each PSAP is put (locate.ts decides for one), as the records the index is built from.
import type { PsapLine } from "../../sdk/src/protocol.ts";
import type { IndexedPsap } from "../index/dataset.ts";
import type { Classified } from "./classify-and-link.ts";
import type { Drafts } from "./drafts.ts";
import { nearCounties, type PsapLinks } from "./link.ts";
import { type PlacementMethod, placePsap } from "./locate.ts";
import type { PlaceIndex } from "./places.ts";

export interface Placed {
  psaps: IndexedPsap[];
  placement: Record<PlacementMethod, number>;
  /** PSAPs whose registry geocode was not used and that moved more than 1 km, farthest first. */
  moved: { id: string; name: string; state: string; method: PlacementMethod; km: number; why: string }[];
  unplaced: { id: string; reason: string }[];
}

export function placeAll(
  { drafts, geocodeOf }: Drafts,
  { classified, links }: Classified,
  handledBy: ReadonlyMap<string, string | null>,
  places: PlaceIndex,
): Placed {
  const placement: Record<PlacementMethod, number> = {
    "operator building": 0,
    "service area": 0,
    municipality: 0,
    "registry geocode": 0,
    "county centroid": 0,
  };
  const out: Placed = { psaps: [], placement, moved: [], unplaced: [] };
  for (const d of drafts.values()) {
    const l = links.get(d.id) as PsapLinks;
    const jurisdiction = classified.get(d.id)?.jurisdiction ?? "county";
    const op = d.operator;
    const home = jurisdiction === "municipal" ? (l.municipality ?? l.registeredPlace) : l.registeredPlace;
    const spot = placePsap(
      {
        operator:
          op?.latitude !== undefined && op.longitude !== undefined
            ? {
                latitude: op.latitude,
                longitude: op.longitude,
                precision: op.location_precision ?? "building",
              }
            : null,
        place: home,
        registeredPlace: l.registeredPlace,
        geocode: geocodeOf.get(d.id) ?? null,
        serviceArea: d.serviceArea ?? null,
        counties: l.counties,
        // One county's site of a place spanning several ("NYPD -queens" of New York city).
        countyNamed:
          l.countyNamed && home !== null && !nearCounties(l.counties, home.interior[1], home.interior[0], 1),
      },
      places,
    );
    if (!spot) {
      out.unplaced.push({ id: d.id, reason: "no geocode, no Census place and no county matched" });
      continue;
    }
    placement[spot.method]++;
    if (spot.distrusted && spot.movedKm !== undefined) {
      out.moved.push({
        id: d.id,
        name: d.name,
        state: d.state,
        method: spot.method,
        km: spot.movedKm,
        why: spot.distrusted,
      });
    }
    out.psaps.push({
      id: d.id,
      name: d.name,
      type: d.type,
      state: d.state,
      county: d.county,
      city: d.city,
      phone: d.phone,
      phone_kind: d.phone === null ? null : "administrative",
      lines: d.phone === null ? [] : [projectLine(d.phone)],
      jurisdiction,
      handled_by: d.type === "secondary" ? (handledBy.get(d.id) ?? null) : null,
      latitude: spot.latitude,
      longitude: spot.longitude,
      location_precision: spot.precision,
    });
  }
  out.moved.sort((a, b) => b.km - a.km);
  // A secondary whose primary was left out follows no one.
  const kept = new Set(out.psaps.map((p) => p.id));
  for (const p of out.psaps) if (p.handled_by !== null && !kept.has(p.handled_by)) p.handled_by = null;
  return out;
}

/**
 * The line of a project CSV's `phone` column: the operator's, kept as the business line it always was
 * (the column says nothing of its kind; an operator's lines file says more), read on the day of the import.
 */
function projectLine(phone: string): PsapLine {
  return {
    phone,
    kind: "administrative",
    label: "From the operator's PSAP file",
    source: "the operator's project CSV",
    checked_on: new Date().toISOString().slice(0, 10),
    origin: "operator",
  };
}
