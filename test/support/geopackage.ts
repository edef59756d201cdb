// Writes small GeoPackages for the import's tests, from the OGC GeoPackage encoding standard (12-128r18):
// the three core tables, a feature table, and geometries as the GeoPackage binary header followed by
// WKB written here byte by byte (independently of the `wkx` the importer reads them with).
import { DatabaseSync } from "node:sqlite";

export type Position = [number, number];
/** GeoJSON MultiPolygon coordinates: polygons of rings, outer ring first. */
export type MultiPolygonCoords = Position[][][];

/** A WKB MultiPolygon (type 6) of these polygons, in either byte order. */
export function wkbMultiPolygon(polygons: MultiPolygonCoords, littleEndian = true): Uint8Array {
  let size = 1 + 4 + 4;
  for (const polygon of polygons) {
    size += 1 + 4 + 4;
    for (const ring of polygon) size += 4 + ring.length * 16;
  }
  const view = new DataView(new ArrayBuffer(size));
  let at = 0;
  const u32 = (n: number) => {
    view.setUint32(at, n, littleEndian);
    at += 4;
  };
  const f64 = (n: number) => {
    view.setFloat64(at, n, littleEndian);
    at += 8;
  };
  const header = (type: number) => {
    view.setUint8(at, littleEndian ? 1 : 0);
    at += 1;
    u32(type);
  };
  header(6);
  u32(polygons.length);
  for (const polygon of polygons) {
    header(3);
    u32(polygon.length);
    for (const ring of polygon) {
      u32(ring.length);
      for (const [x, y] of ring) {
        f64(x);
        f64(y);
      }
    }
  }
  return new Uint8Array(view.buffer);
}

/** A GeoPackage geometry: "GP", version 0, flags, srs_id, an xy envelope (none when empty), the WKB. */
export function gpkgGeometry(
  polygons: MultiPolygonCoords,
  srsId: number,
  options: { littleEndian?: boolean; empty?: boolean } = {},
): Uint8Array {
  const littleEndian = options.littleEndian ?? true;
  const empty = options.empty ?? false;
  const wkb = wkbMultiPolygon(empty ? [] : polygons, littleEndian);
  const envelope = empty ? 0 : 32;
  const out = new Uint8Array(8 + envelope + wkb.length);
  const view = new DataView(out.buffer);
  out[0] = 0x47;
  out[1] = 0x50;
  out[2] = 0;
  out[3] = (littleEndian ? 0x01 : 0) | (empty ? 0x10 : 0x02);
  view.setInt32(4, srsId, littleEndian);
  if (!empty) {
    const xs = polygons.flat(2).map((p) => p[0]);
    const ys = polygons.flat(2).map((p) => p[1]);
    [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)].forEach((v, i) => {
      view.setFloat64(8 + i * 8, v, littleEndian);
    });
  }
  out.set(wkb, 8 + envelope);
  return out;
}

/**
 * The PsapPolygon layer's fields in the NENA GIS data model v3 (NENA911/NG911GISDataModel,
 * flatfile_templates/schema/v3.0/flatfile_schema_v3.yaml): name, type, required.
 */
export const PSAP_POLYGON_V3: readonly [string, string, boolean][] = [
  ["DiscrpAgID", "TEXT(100)", true],
  ["DateUpdate", "DATETIME", true],
  ["Effective", "DATETIME", false],
  ["Expire", "DATETIME", false],
  ["NGUID", "TEXT(254)", true],
  ["Agency_ID", "TEXT(100)", true],
  ["ServiceURI", "TEXT(254)", true],
  ["ServiceURN", "TEXT(100)", true],
  ["ServiceNum", "TEXT(15)", false],
  ["AVcard_URI", "TEXT(254)", true],
  ["DsplayName", "TEXT(60)", true],
];

export interface GpkgRow {
  fields: Record<string, string | number | null>;
  geometry: Uint8Array | null;
}

export interface GpkgOptions {
  table?: string;
  /** The layer's CRS; EPSG:4326 by default. */
  srs?: { id: number; organization: string; code: number; name: string };
  /** More columns, as `NAME TYPE` (an operator's PSAP_ID). */
  extraColumns?: string[];
}

/** Writes a GeoPackage with one feature table of the v3 PsapPolygon fields (and `extraColumns`). */
export function writeGeoPackage(path: string, rows: readonly GpkgRow[], options: GpkgOptions = {}): void {
  const table = options.table ?? "PsapPolygon";
  const srs = options.srs ?? { id: 4326, organization: "EPSG", code: 4326, name: "WGS 84 geodetic" };
  const db = new DatabaseSync(path);
  try {
    db.exec(`
      PRAGMA application_id = 1196444487;
      PRAGMA user_version = 10400;
      CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY,
        organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL,
        description TEXT);
      CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL,
        identifier TEXT UNIQUE, description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT
        (strftime('%Y-%m-%dT%H:%M:%fZ','now')), min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE,
        srs_id INTEGER REFERENCES gpkg_spatial_ref_sys(srs_id));
      CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL,
        geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
        CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name));
      INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', NULL);
      INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', NULL);
    `);
    db.prepare(
      "INSERT OR REPLACE INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, 'a test definition', NULL)",
    ).run(srs.name, srs.id, srs.organization, srs.code);
    const columns = [
      "OBJECTID INTEGER PRIMARY KEY AUTOINCREMENT",
      "Shape MULTIPOLYGON",
      ...PSAP_POLYGON_V3.map(([name, type, required]) => `${name} ${type}${required ? " NOT NULL" : ""}`),
      ...(options.extraColumns ?? []),
    ];
    db.exec(`CREATE TABLE "${table}" (${columns.join(", ")})`);
    db.prepare(
      "INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES (?, 'features', ?, ?)",
    ).run(table, table, srs.id);
    db.prepare("INSERT INTO gpkg_geometry_columns VALUES (?, 'Shape', 'MULTIPOLYGON', ?, 0, 0)").run(
      table,
      srs.id,
    );
    for (const row of rows) {
      const names = ["Shape", ...Object.keys(row.fields)];
      const insert = db.prepare(
        `INSERT INTO "${table}" (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
      );
      insert.run(row.geometry, ...Object.values(row.fields));
    }
  } finally {
    db.close();
  }
}
