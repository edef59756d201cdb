// Reads the PSAP service-boundary layer of a GeoPackage (an OGC SQLite database: the NENA GIS data
// model's v3 template is one) with Node's own `node:sqlite`, read-only, from disk: nothing is inflated
// or copied, so the per-file bound on its size (read-input.ts) bounds what is read. The layer is the
// feature table named PsapPolygon in gpkg_contents, else the one feature table whose columns are a
// PsapPolygon's; its geometries must be in WGS 84 longitude and latitude (EPSG:4326): another CRS is
// refused with the command that reprojects it, never read as if it were degrees.
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { ImportError } from "./errors.ts";
import type { GeoJsonGeometry } from "./geojson-rings.ts";
import { decodeGpkgGeometry, GpkgGeometryError } from "./gpkg-geometry.ts";
import { hasNenaFields } from "./nena-fields.ts";
import { printable } from "./printable.ts";

/** The layer's rows as GeoJSON features; `geometry` is null where the row's could not be read (`error` says why). */
export interface GpkgFeature {
  type: "Feature";
  properties: Record<string, unknown>;
  geometry: GeoJsonGeometry | null;
  error?: string;
}

export interface GpkgLayer {
  table: string;
  features: GpkgFeature[];
}

/** The layer name the NENA data model gives PSAP boundaries. */
export const PSAP_LAYER = "PsapPolygon";

interface FeatureTable {
  table_name: string;
  column_name: string;
  srs_id: number;
}

export async function readGeoPackage(path: string): Promise<GpkgLayer> {
  const where = printable(path);
  // Loaded only for a GeoPackage: Node 22 prints an experimental-feature warning when node:sqlite loads.
  const { DatabaseSync } = await import("node:sqlite");
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: true });
  } catch (err) {
    throw new ImportError(`${where}: not a readable GeoPackage (${(err as Error).message})`, { cause: err });
  }
  try {
    // Nothing stored in the file may run code of its own while it is read.
    db.exec("PRAGMA trusted_schema = OFF");
    const layer = psapTable(db, where);
    checkSrs(db, where, layer);
    return { table: layer.table_name, features: readFeatures(db, layer) };
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw new ImportError(`${where}: not a readable GeoPackage (${(err as Error).message})`, { cause: err });
  } finally {
    db.close();
  }
}

/** The PsapPolygon feature table, else the only one with a PsapPolygon's columns. */
function psapTable(db: DatabaseSync, where: string): FeatureTable {
  const tables = new Set(
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
      (r) => r.name,
    ),
  );
  if (!tables.has("gpkg_contents") || !tables.has("gpkg_geometry_columns"))
    throw new ImportError(`${where}: an SQLite database that is not a GeoPackage (no gpkg_contents)`);
  const layers = db
    .prepare(
      `SELECT c.table_name AS table_name, g.column_name AS column_name, g.srs_id AS srs_id
         FROM gpkg_contents c JOIN gpkg_geometry_columns g ON g.table_name = c.table_name
        WHERE c.data_type = 'features'`,
    )
    .all() as unknown as FeatureTable[];
  // A view's SQL would run as it is read (and could loop): only a real table is read.
  const real = layers.filter((l) => tables.has(l.table_name));
  const named = real.find((l) => l.table_name.toLowerCase() === PSAP_LAYER.toLowerCase());
  if (named) return named;
  const alike = real.filter((l) => hasNenaFields(columnsOf(db, l.table_name)));
  if (alike.length === 1) return alike[0] as FeatureTable;
  const names = real.map((l) => printable(l.table_name)).join(", ") || "none";
  throw new ImportError(
    alike.length > 1
      ? `${where}: no ${PSAP_LAYER} layer, and several layers with its fields (${alike.map((l) => printable(l.table_name)).join(", ")}): rename the PSAP layer ${PSAP_LAYER}`
      : `${where}: no ${PSAP_LAYER} layer (feature layers: ${names})`,
  );
}

/** The table's columns, as an object of column names (what hasNenaFields reads). */
function columnsOf(db: DatabaseSync, table: string): Record<string, unknown> {
  const rows = db.prepare(`PRAGMA table_info(${quoted(table)})`).all() as { name: string }[];
  return Object.fromEntries(rows.map((r) => [r.name, true]));
}

/** EPSG:4326, under its EPSG code or as OGC's CRS84 (the same datum, longitude first as GeoPackage stores it). */
function checkSrs(db: DatabaseSync, where: string, layer: FeatureTable): void {
  const srs = db
    .prepare(
      "SELECT srs_name, organization, organization_coordsys_id FROM gpkg_spatial_ref_sys WHERE srs_id = ?",
    )
    .get(layer.srs_id) as
    | { srs_name: string; organization: string; organization_coordsys_id: number }
    | undefined;
  const org = String(srs?.organization ?? "").toUpperCase();
  const code = Number(srs?.organization_coordsys_id);
  if ((org === "EPSG" && code === 4326) || (org === "OGC" && code === 84)) return;
  const named = srs
    ? `${printable(String(srs.organization))}:${code} (${printable(String(srs.srs_name))})`
    : `srs_id ${layer.srs_id}, not defined`;
  throw new ImportError(
    `${where}: layer ${printable(layer.table_name)} is in ${named}; the import reads WGS 84 longitude and latitude (EPSG:4326): reproject it first, e.g. ogr2ogr -t_srs EPSG:4326 out.gpkg in.gpkg`,
  );
}

function readFeatures(db: DatabaseSync, layer: FeatureTable): GpkgFeature[] {
  const statement: StatementSync = db.prepare(`SELECT * FROM ${quoted(layer.table_name)}`);
  const features: GpkgFeature[] = [];
  for (const row of statement.iterate() as Iterable<Record<string, unknown>>) {
    const properties: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) {
      if (key !== layer.column_name && !(value instanceof Uint8Array)) properties[key] = value;
    }
    features.push({ type: "Feature", properties, ...geometryOf(row[layer.column_name], layer.srs_id) });
  }
  return features;
}

function geometryOf(blob: unknown, srsId: number): { geometry: GeoJsonGeometry | null; error?: string } {
  if (!(blob instanceof Uint8Array)) return { geometry: null, error: "no geometry" };
  try {
    const decoded = decodeGpkgGeometry(blob);
    if (decoded.geometry === null) return { geometry: null, error: "the geometry is empty" };
    // A geometry in another SRS than its column's is not in degrees as the column says.
    if (decoded.srsId !== srsId)
      return { geometry: null, error: `the geometry is in srs_id ${decoded.srsId}, not the layer's` };
    return { geometry: decoded.geometry };
  } catch (err) {
    if (err instanceof GpkgGeometryError) return { geometry: null, error: err.message };
    throw err;
  }
}

/** An SQL identifier, quoted (a table name comes from the file). */
function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
