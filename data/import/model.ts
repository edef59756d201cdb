// Shapes shared by the import's readers, merge step and report.
import type { LocationPrecision } from "../../sdk/src/protocol.ts";
import type { Ring } from "../../src/psap/area.ts";

export type FileKind = "fcc-csv" | "fcc-json" | "project-csv" | "geojson";

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
