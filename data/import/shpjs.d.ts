// shpjs ships no types: the one call the import makes (a shapefile layer's parts, already inflated, to GeoJSON).
declare module "shpjs" {
  export interface ShapefileLayer {
    shp: Uint8Array;
    dbf?: Uint8Array;
    /** The .cpg's text: the .dbf's character set. */
    cpg?: string;
    /** The .prj's text: the layer's projection (proj4 reads it). */
    prj?: string;
  }
  export default function shp(input: ArrayBuffer | Uint8Array | ShapefileLayer): Promise<unknown>;
}
