// shpjs ships no types: the one call the import makes (a shapefile ZIP's bytes to GeoJSON).
declare module "shpjs" {
  export default function shp(input: ArrayBuffer | Uint8Array): Promise<unknown>;
}
