// A GeoPackage geometry blob as GeoJSON. The blob is the GeoPackage binary header (OGC 12-128r18,
// section 2.1.3: magic "GP", version, flags, srs_id, an optional envelope) followed by standard WKB, which
// `wkx` reads (2D, Z, M and ZM, either byte order). The header is decoded here: no maintained library
// reads it without also bringing its own SQLite build (@ngageoint/geopackage, @loaders.gl/geopackage
// with sql.js), and the import reads the file with Node's own `node:sqlite`.
import { Geometry } from "wkx";
import type { GeoJsonGeometry } from "./geojson-rings.ts";

/** Bytes of the envelope for each envelope indicator (flags bits 1-3): none, xy, xyz, xym, xyzm. */
const ENVELOPE_BYTES: readonly number[] = [0, 32, 48, 48, 64];
const FLAG_LITTLE_ENDIAN = 0x01;
const FLAG_EMPTY = 0x10;
const FLAG_EXTENDED = 0x20;

export class GpkgGeometryError extends Error {}

/**
 * The blob's SRS id and its geometry as GeoJSON (null for an empty geometry). Throws GpkgGeometryError
 * for anything that is not a standard GeoPackage geometry.
 */
export function decodeGpkgGeometry(blob: Uint8Array): { srsId: number; geometry: GeoJsonGeometry | null } {
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50)
    throw new GpkgGeometryError("not a GeoPackage geometry (no GP header)");
  if (blob[2] !== 0) throw new GpkgGeometryError(`GeoPackage geometry version ${blob[2]} is not known`);
  const flags = blob[3] as number;
  if (flags & FLAG_EXTENDED)
    throw new GpkgGeometryError("an extended (non-standard) GeoPackage geometry type");
  const envelope = ENVELOPE_BYTES[(flags >> 1) & 0x07];
  if (envelope === undefined) throw new GpkgGeometryError("an invalid envelope indicator");
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const srsId = view.getInt32(4, (flags & FLAG_LITTLE_ENDIAN) !== 0);
  const start = 8 + envelope;
  if (blob.length < start) throw new GpkgGeometryError("the geometry ends inside its header");
  if (flags & FLAG_EMPTY) return { srsId, geometry: null };
  const wkb = Buffer.from(blob.buffer, blob.byteOffset + start, blob.length - start);
  let parsed: Geometry;
  try {
    parsed = Geometry.parse(wkb);
  } catch (err) {
    throw new GpkgGeometryError(`unreadable WKB (${(err as Error).message})`);
  }
  return { srsId, geometry: parsed.toGeoJSON() as GeoJsonGeometry };
}
