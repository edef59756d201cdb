// Reads the registry's 2017 JSON export: only its city-level geocodes are used.
import type { FccGeocode, FileReport } from "./model.ts";

interface ExportItem {
  psap_id?: unknown;
  geocode_city_level?: { latitude?: unknown; longitude?: unknown };
}

function coordinate(v: unknown, limit: number): number | null {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : typeof v === "number" ? v : Number.NaN;
  return Number.isFinite(n) && Math.abs(n) <= limit ? n : null;
}

export function isFccJson(json: unknown): json is unknown[] {
  return Array.isArray(json);
}

/** `line` is the item's position in the array (1-based). Items without a usable geocode are dropped. */
export function readFccJson(path: string, items: unknown[]): { geocodes: FccGeocode[]; report: FileReport } {
  const report: FileReport = {
    path,
    kind: "fcc-json",
    rowsRead: items.length,
    kept: 0,
    dropped: [],
    notes: [],
  };
  const geocodes: FccGeocode[] = [];
  const seen = new Set<string>();
  items.forEach((raw, k) => {
    const line = k + 1;
    const item = (raw && typeof raw === "object" ? raw : {}) as ExportItem;
    const id =
      typeof item.psap_id === "string" || typeof item.psap_id === "number" ? String(item.psap_id) : "";
    if (!/^\d{1,9}$/.test(id)) {
      report.dropped.push({ line, reason: "bad item: psap_id missing or not a number" });
      return;
    }
    const lat = coordinate(item.geocode_city_level?.latitude, 90);
    const lon = coordinate(item.geocode_city_level?.longitude, 180);
    if (lat === null || lon === null) {
      report.dropped.push({ line, reason: "no geocode (latitude or longitude missing)" });
      return;
    }
    if (seen.has(id)) {
      report.dropped.push({ line, reason: `duplicate psap_id ${id}` });
      return;
    }
    seen.add(id);
    geocodes.push({ line, id, latitude: lat, longitude: lon });
  });
  report.kept = geocodes.length;
  return { geocodes, report };
}
