// Shapes shared by the import's readers, merge step and report.
import type { LocationPrecision, PsapJurisdiction } from "../../sdk/src/protocol.ts";
import type { Ring } from "../../src/psap/geometry.ts";

export type FileKind = "fcc-csv" | "fcc-json" | "project-csv" | "geojson" | "census-places" | "overrides";

/** One dropped or ignored row, and why. `line` is the file's line (CSV) or the item's position (JSON). */
export interface RowIssue {
  line: number;
  reason: string;
}

/** What one file contributed, for the report: every row read is kept or has an issue. */
export interface FileReport {
  path: string;
  kind: FileKind;
  rowsRead: number;
  kept: number;
  dropped: RowIssue[];
  notes: string[];
}

export interface FccRow {
  line: number;
  id: string;
  name: string;
  state: string;
  county: string;
  city: string;
  secondary: boolean;
  modified: string;
  comments: string;
}

export interface FccGeocode {
  line: number;
  id: string;
  latitude: number;
  longitude: number;
}

/** A row of the project's CSV: only the fields it fills are set. */
export interface ProjectRow {
  line: number;
  id: string;
  name?: string;
  type?: "primary" | "secondary";
  state?: string;
  county?: string | null;
  city?: string | null;
  phone?: string | null;
  latitude?: number;
  longitude?: number;
  location_precision?: LocationPrecision;
}

export interface BoundaryFeature {
  line: number;
  psapId: string;
  areaId: string;
  rings: Ring[];
}

/** A Census place (TIGER/Line PLACE layer): city limits, or a census-designated community. */
export interface CensusPlace {
  /** Seven-digit GEOID: state FIPS + place FIPS. */
  geoid: string;
  /** USPS code of its state or territory. */
  state: string;
  name: string;
  /** "Evanston city", "Spring CDP": the Census's own label. */
  nameLsad: string;
  /** CLASSFP: C* incorporated (C9: not functioning), U1/U2 census-designated, M2 military CDP. */
  classFp: string;
  /** An incorporated place with a functioning government: it has city limits and usually its own police. */
  incorporated: boolean;
  rings: Ring[];
  /** The Census internal point, [lon, lat]. */
  interior: [number, number];
}

/** A row of an operator's jurisdiction override file. */
export interface OverrideRow {
  line: number;
  psapId: string;
  jurisdiction?: PsapJurisdiction;
  /** Census GEOIDs; undefined leaves what the import derived. */
  servedPlaces?: string[];
  /** County FIPS; undefined leaves what the import derived. */
  servedCounties?: string[];
}
