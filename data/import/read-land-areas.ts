// Reads public land areas whose own centre may answer 911 there (the contract (docs/contract.md): the `boundary` group): Census
// AIANNH areas (reservations, off-reservation trust lands, and statistical areas, which are read only to be
// refused by name), and the National Park Service's National Park outlines. Which centre answers on an area
// is not in these files: the PSAP directory's land area rows (data/directory/areas.csv) say it, with a source.
import type { Ring } from "../../lib/psap-index/geometry.ts";
import { ImportError } from "./errors.ts";
import { geojsonRings } from "./geojson-rings.ts";
import type { FileReport } from "./model.ts";
import { printable } from "./printable.ts";
import type { LandAreaKind } from "./read-area-links.ts";
import { firstProperties } from "./read-places.ts";

export interface LandArea {
  kind: LandAreaKind;
  /** AIANNH GEOID ("2430R") or NPS unit code ("YELL"). */
  id: string;
  name: string;
  /**
   * Why a link to it is refused, or null when a tribal centre can answer there: an Oklahoma tribal
   * statistical area or any other statistical area says nothing of who answers 911.
   */
  refused: string | null;
  rings: Ring[];
}

/** Census AIANNH: reservations (G2101) and off-reservation trust lands (G2102) are land a tribe governs. */
const GOVERNED_LAND = new Set(["G2101", "G2102"]);

export function isTribalAreas(json: unknown): boolean {
  const p = firstProperties(json);
  return p !== null && "AIANNHCE" in p && "GEOID" in p && "MTFCC" in p;
}

export function isNationalParks(json: unknown): boolean {
  const p = firstProperties(json);
  return p !== null && "UNIT_CODE" in p && "UNIT_TYPE" in p;
}

interface Feature {
  properties?: Record<string, unknown> | null;
  geometry?: { type?: unknown; coordinates?: unknown } | null;
}

const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");

export function readLandAreas(path: string, json: unknown): { areas: LandArea[]; report: FileReport } {
  const tribal = isTribalAreas(json);
  if (!tribal && !isNationalParks(json))
    throw new ImportError(`${printable(path)}: neither Census AIANNH areas nor National Park outlines`);
  const features = (json as { features: Feature[] }).features;
  const report: FileReport = {
    path,
    kind: "land-areas",
    rowsRead: features.length,
    kept: 0,
    dropped: [],
    notes: [],
  };
  const areas: LandArea[] = [];
  features.forEach((f, i) => {
    const p = f.properties ?? {};
    const line = i + 1;
    const rings = geojsonRings(f.geometry, false);
    if (!rings || rings.length === 0) {
      report.dropped.push({ line, reason: "no Polygon or MultiPolygon geometry" });
      return;
    }
    if (tribal) {
      const id = text(p.GEOID);
      const mtfcc = text(p.MTFCC);
      if (!/^\d{4}[RT]$/.test(id)) {
        report.dropped.push({
          line,
          reason: `GEOID ${printable(id)} is no AIANNH reservation or trust land code`,
        });
        return;
      }
      areas.push({
        kind: "tribal",
        id,
        name: text(p.NAMELSAD) || text(p.NAME) || id,
        refused: GOVERNED_LAND.has(mtfcc)
          ? null
          : `${text(p.NAMELSAD) || id} is a statistical area (${mtfcc}): it says nothing of who answers 911`,
        rings,
      });
    } else {
      if (text(p.UNIT_TYPE) !== "National Park") {
        report.dropped.push({
          line,
          reason: `${text(p.UNIT_CODE)} is a ${text(p.UNIT_TYPE) || "unit"}, not a National Park`,
        });
        return;
      }
      const id = text(p.UNIT_CODE).toUpperCase();
      areas.push({ kind: "park", id, name: text(p.UNIT_NAME) || id, refused: null, rings });
    }
  });
  report.kept = areas.length;
  const statistical = areas.filter((a) => a.refused !== null).length;
  if (statistical > 0)
    report.notes.push(`${statistical} statistical areas read: a directory row linking one is refused`);
  return { areas, report };
}
