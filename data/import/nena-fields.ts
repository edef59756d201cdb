// The fields of the NENA GIS data model's `PsapPolygon` layer (NENA-STA-006: v3's DiscrpAgID, DateUpdate,
// Effective, Expire, NGUID, Agency_ID, ServiceURI, ServiceURN, ServiceNum, AVcard_URI, DsplayName; v2.0a
// adds Country and State; earlier v2 data named the polygon's id ES_NGUID), read from whatever a GIS tool
// wrote: any letter case (a shapefile's DBF often upper-cases its field names), and dates as ISO text
// (GeoPackage, GeoJSON), epoch milliseconds (ArcGIS's GeoJSON export) or a Date (a shapefile's DBF).

/** The polygon's own globally unique id: v2.0a and v3 first, then the name earlier v2 data used. */
export const NGUID_FIELDS = ["NGUID", "ES_NGUID"] as const;
/** Columns an operator adds to name the registry's PSAP explicitly. */
export const EXPLICIT_ID_FIELDS = ["PSAP_ID", "FCC_PSAP_ID"] as const;

/**
 * The service URNs of a primary PSAP's boundary: RFC 5031's `urn:service:sos` (the v3 layer's rule:
 * "All polygons in this layer MUST have a Service URN of urn:service:sos") and NENA's
 * `urn:emergency:service:sos.psap` (the v2 and v3 templates' default). Any other (a police, fire or EMS
 * responder's, an ESRP's, a test service's) bounds another service. Compared without case, as URNs are.
 */
export const PSAP_SERVICE_URNS: readonly string[] = ["urn:service:sos", "urn:emergency:service:sos.psap"];

/** A feature's properties, read by field name in any letter case. */
export class NenaProperties {
  private readonly byLowerName = new Map<string, unknown>();

  constructor(properties: Record<string, unknown> | null | undefined) {
    for (const [key, value] of Object.entries(properties ?? {})) {
      const lower = key.toLowerCase();
      if (!this.byLowerName.has(lower)) this.byLowerName.set(lower, value);
    }
  }

  has(field: string): boolean {
    return this.byLowerName.has(field.toLowerCase());
  }

  /** The raw value of the first of `fields` that holds one (not null, not blank text). */
  value(...fields: readonly string[]): unknown {
    for (const field of fields) {
      const v = this.byLowerName.get(field.toLowerCase());
      if (v === undefined || v === null || (typeof v === "string" && v.trim() === "")) continue;
      return v;
    }
    return undefined;
  }

  /** The first of `fields` that holds a value, as trimmed text (a number as its shortest form); else null. */
  text(...fields: readonly string[]): string | null {
    const v = this.value(...fields);
    if (typeof v === "string") return v.trim();
    if (typeof v === "number" && Number.isFinite(v)) return String(v);
    if (typeof v === "bigint") return String(v);
    return null;
  }
}

/**
 * True for a layer whose first feature carries a PsapPolygon's identifying fields: a display name and an
 * NGUID (or ES_NGUID). A plain boundary GeoJSON (PSAP_ID and ES_NGUID only) is read-geojson.ts's.
 */
export function isNenaPsapLayer(json: unknown): boolean {
  const fc = json as { type?: unknown; features?: unknown } | null;
  if (fc?.type !== "FeatureCollection" || !Array.isArray(fc.features) || fc.features.length === 0)
    return false;
  return hasNenaFields((fc.features[0] as { properties?: Record<string, unknown> } | null)?.properties);
}

/** True when these properties (or column names) have a PsapPolygon's display name and NGUID. */
export function hasNenaFields(properties: Record<string, unknown> | null | undefined): boolean {
  const p = new NenaProperties(properties);
  return p.has("DsplayName") && NGUID_FIELDS.some((f) => p.has(f));
}

/** A date field: absent (null), a date, or unreadable ("bad"). */
export type NenaDate = Date | null | "bad";

/** 1973-03-03: no NENA layer holds an earlier date, and epoch seconds of any date since 1970 stay below it. */
const MIN_EPOCH_MS = 1e11;

const ISO_DATE =
  /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i;
const SLASHED_DATE = /^(\d{4})\/(\d{2})\/(\d{2})$/;

/**
 * Reads a DateUpdate/Effective/Expire value. Text is ISO 8601 (`2026-01-31`, `2026-01-31T08:00:00Z`,
 * `2026-01-31 08:00:00`, `20260131` as a DBF stores a date, `2026/01/31`); a time without a zone and a
 * date alone are UTC. A number is epoch milliseconds (from 1973 on). A Date (shpjs builds one from a DBF date field, at
 * local midnight) is its calendar day, UTC. An empty DBF date reads as absent.
 */
export function readNenaDate(value: unknown): NenaDate {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return null;
    return new Date(Date.UTC(value.getFullYear(), value.getMonth(), value.getDate()));
  }
  // Epoch milliseconds, as ArcGIS writes dates in GeoJSON; a smaller number (a Julian day, epoch seconds)
  // would read as 1970 and make a polygon look expired: refused rather than misread.
  if (typeof value === "number")
    return Number.isFinite(value) && value >= MIN_EPOCH_MS ? new Date(value) : "bad";
  if (typeof value !== "string") return "bad";
  const text = value.trim();
  if (text === "") return null;
  const slashed = SLASHED_DATE.exec(text);
  const m = ISO_DATE.exec(slashed ? `${slashed[1]}-${slashed[2]}-${slashed[3]}` : text);
  if (!m) return "bad";
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Number(`0.${m[7] ?? "0"}`) * 1000;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return "bad";
  let t = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const zone = m[8];
  if (zone && zone.toUpperCase() !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    t -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  const date = new Date(t);
  // 2026-02-31 is not a day: Date.UTC would roll it into March.
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return "bad";
  return date;
}

/** `2026-01-31` for a report line. */
export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}
