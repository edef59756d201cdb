// Shapes shared by the import's readers, merge step and report.

import type { Ring } from "../../lib/psap-index/geometry.ts";
import type { LocationPrecision, PsapJurisdiction, PsapLine } from "../../sdk/src/protocol.ts";

export type FileKind =
  | "fcc-csv"
  | "fcc-json"
  | "project-csv"
  | "geojson"
  | "census-places"
  | "towns"
  | "overrides"
  | "member-towns"
  | "directory-lines"
  | "area-links"
  | "land-areas"
  | "nena-psap-polygons";

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
  /** A NENA PsapPolygon layer: how each kept feature was tied to a PSAP (nena-match.ts). */
  boundaryMatches?: BoundaryMatch[];
  /** A NENA PsapPolygon layer: the pairs of its polygons that overlap beyond the tolerance (layer-overlaps.ts). */
  overlaps?: LayerOverlap[];
}

/**
 * How a service-area polygon was tied to a PSAP: `id`, by an explicit id column (or an NGUID that is
 * already a PSAP of the import); `name`, by its display name and state against the registry; `own`, by
 * neither, so it is a PSAP of its own (`why` says whether no registry PSAP has the name or several do).
 */
export interface BoundaryMatch {
  line: number;
  nguid: string;
  name: string;
  state: string;
  by: "id" | "name" | "own";
  psapId: string;
  why: string;
}

/** Two polygons of one layer whose areas overlap beyond the tolerance. */
export interface LayerOverlap {
  lines: [number, number];
  nguids: [string, string];
  names: [string, string];
  /** Area of the overlap, km² (three decimals). */
  areaKm2: number;
  /** How far inside both polygons the overlap's deepest point lies, metres. */
  depthM: number;
}

/**
 * One feature of a NENA GIS data model `PsapPolygon` layer (NENA-STA-006, v2 or v3 field names), kept
 * by the reader: in force at the import, for the PSAP service, with a usable polygon.
 */
export interface NenaFeature {
  line: number;
  /** `NGUID` (v2.0a, v3), or `ES_NGUID` (earlier v2). */
  nguid: string;
  /** `DsplayName`. */
  displayName: string;
  agencyId: string | null;
  serviceUri: string | null;
  avcardUri: string | null;
  /** `ServiceNum`: the number the service is dialled by, where the layer gives it. */
  serviceNumber: string | null;
  /** A registry PSAP id from an explicit column (`PSAP_ID`, `FCC_PSAP_ID`), when the layer has one. */
  explicitId: string | null;
  /** The v2 `State` field (USPS code), when given. */
  state: string | null;
  rings: Ring[];
  /** A point well inside the polygon, [lon, lat]. */
  interior: [number, number];
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

/** A row of a directory lines file: one published line of a centre, with its source and the day it was read. */
export interface DirectoryLineRow {
  line: number;
  psapId: string;
  state: string;
  value: PsapLine;
}

export interface BoundaryFeature {
  line: number;
  psapId: string;
  areaId: string;
  /** The area's name where the layer gives one (NENA's `DsplayName`); else its id names it. */
  name?: string;
  rings: Ring[];
}

/**
 * What a named area of a state is: `city`, an incorporated Census place (city, town, village, borough)
 * with a functioning government; `town`, a town or township that is a county subdivision with its own
 * government (New England, New York, New Jersey, Pennsylvania, Michigan, Wisconsin, Minnesota);
 * `community`, a census-designated unincorporated community, an inactive place or a reservation.
 */
export type PlaceKind = "city" | "town" | "community";

/** A municipality or named community: a Census place (TIGER/Line PLACE layer) or a town (county subdivision). */
export interface Place {
  /** Census GEOID: seven digits for a place, ten for a county subdivision; `<state+county FIPS>:<kind>:<name>` where the source has none. */
  geoid: string;
  /** USPS code of its state or territory. */
  state: string;
  name: string;
  /** "Evanston city", "Spring CDP", "Cherry Hill township": the source's own label. */
  nameLsad: string;
  kind: PlaceKind;
  /** A municipality (a city or a town): it has a government, and usually its own police. */
  incorporated: boolean;
  /** Five-digit FIPS of its county, where the source says (towns). */
  countyFips: string | null;
  rings: Ring[];
  /** A point inside it, [lon, lat]: the Census internal point, or the pole of inaccessibility of its largest polygon. */
  interior: [number, number];
}

/** A county subdivision as a town-boundary file describes it, before it is matched against the Census places. */
export interface TownFeature {
  /** The feature's position in its file (1-based). */
  line: number;
  place: Place;
  /** The subdivision's own kind: town, township, city, borough, village, plantation, reservation, unorganized. */
  subdivision: string;
}

/** A row of the member-towns file: in this municipality, this centre answers 911. */
export interface MemberTownRow {
  line: number;
  psapId: string;
  /** The centre's state: the municipality's, unless the row says it answers across a state line. */
  psapState: string;
  /** The municipality's state. */
  state: string;
  county: string;
  municipality: string;
  /** Census code of the municipality, when the row gives one. */
  geoid: string | null;
}

/** A row of an operator's jurisdiction override file. */
export interface OverrideRow {
  line: number;
  psapId: string;
  jurisdiction?: PsapJurisdiction;
  /** Census GEOIDs of places or towns; undefined leaves what the import derived. */
  servedPlaces?: string[];
  /** County FIPS; undefined leaves what the import derived. */
  servedCounties?: string[];
  /** Why: every row of the shipped file says it (the report lists it). */
  reason?: string;
}
