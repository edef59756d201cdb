// NENA GIS data model PsapPolygon layers (NENA-STA-006) as import inputs: a v3 GeoPackage written here
// from the schema's fields, a GeoJSON with v2 field names, a shapefile ZIP. Each polygon tied to its
// registry PSAP by an id column or by name and state, or made a PSAP of its own; expired, not yet
// effective and other services' polygons left out; overlaps reported; the report accounting for every
// feature; lookups inside a polygon answering with its PSAP first, match "boundary"; the catalogue
// carrying the layer's identifiers and URIs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { gzipSync } from "node:zlib";
import shpwrite from "@mapbox/shp-write";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../data/import/cli.ts";
import { ImportError } from "../../data/import/errors.ts";
import { MemoryKvTarget } from "../../data/import/kv.ts";
import { DEFAULT_READ_LIMITS } from "../../data/import/limits.ts";
import type { FileReport } from "../../data/import/model.ts";
import { readNenaDate } from "../../data/import/nena-fields.ts";
import { type PreparedImport, prepareImport } from "../../data/import/pipeline.ts";
import { buildIndex } from "../../data/index/build.ts";
import { buildCatalogue } from "../../data/index/catalogue.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import type { CatalogueRecord } from "../../lib/psap-index/format.ts";
import { lookupPsaps } from "../../src/answer/lookup.ts";
import { resetPsapLookupCache } from "../../src/psap/lookup.ts";
import { gpkgGeometry, type MultiPolygonCoords, writeGeoPackage } from "../support/geopackage.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "psap-nena-test-"));
  resetPsapLookupCache();
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  resetPsapLookupCache();
});

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** The import's clock: what is in force is decided against it. */
const NOW = new Date("2026-06-01T12:00:00Z");

// Two IL PSAPs share a name (301 and 302): a polygon of that name is ambiguous. Every state has PSAPs in
// several counties, so none is read as a statewide centre.
const REGISTRY = [
  "PSAP ID,PSAP Name,State,County,City,Type of Change,Comments,Date Last Modified",
  "8927,Southland Dispatch Center,IL,Cook,Hazel Crest,NC,,2026-01-01",
  "2160,Evanston Police Department,IL,Cook,Evanston,NC,,2026-01-01",
  "301,Springfield Police Department,IL,Sangamon,Springfield,NC,,2026-01-01",
  "302,Springfield Police Department,IL,Cook,Chicago,NC,,2026-01-01",
  "401,Lake County Sheriff,IL,Lake,Waukegan,NC,,2026-01-01",
  "501,Dane County Public Safety Communications,WI,Dane,Madison,NC,,2026-01-01",
  "502,Milwaukee County Sheriff,WI,Milwaukee,Milwaukee,NC,,2026-01-01",
  "",
].join("\n");

/** A rectangle [west, south, east, north] as MultiPolygon coordinates. */
function rect(w: number, s: number, e: number, n: number): MultiPolygonCoords {
  return [
    [
      [
        [w, s],
        [e, s],
        [e, n],
        [w, n],
        [w, s],
      ],
    ],
  ];
}

const nguid = (n: number) => `urn:emergency:uid:gis:PSAP:${n}:il.example`;

/** v3 fields of one polygon, with what each case changes. */
function v3(n: number, name: string, more: Record<string, string | number | null> = {}) {
  return {
    DiscrpAgID: "gis.il.example",
    DateUpdate: "2026-01-15T00:00:00.000Z",
    NGUID: nguid(n),
    Agency_ID: `psap${n}.il.example`,
    ServiceURI: `sip:sos@psap${n}.il.example`,
    ServiceURN: "urn:emergency:service:sos.psap",
    AVcard_URI: `https://psap${n}.il.example/vcard.vcf`,
    DsplayName: name,
    ...more,
  };
}

// Items in layer order (1-based). Hazel Crest (Cook), Evanston (Cook), Springfield (Sangamon), the
// north of Lake County: all in Illinois.
const SOUTHLAND = rect(-87.75, 41.54, -87.62, 41.62);
const EVANSTON = rect(-87.73, 42.02, -87.66, 42.07);
const SPRINGFIELD = rect(-89.72, 39.74, -89.58, 39.86);
const LAKESIDE = rect(-88.0, 42.25, -87.9, 42.32);
const LAYER: {
  fields: Record<string, string | number | null>;
  polygons: MultiPolygonCoords;
  bigEndian?: boolean;
  empty?: boolean;
}[] = [
  // 1: the operator's PSAP_ID column names 8927, whatever the display name; in force (Effective past, Expire future)
  {
    fields: v3(1, "Southland 911", {
      PSAP_ID: "8927",
      ServiceNum: "911",
      Effective: "2020-01-01T00:00:00Z",
      Expire: "2099-12-31",
    }),
    polygons: SOUTHLAND,
  },
  // 2: its name is one registry PSAP's in Illinois (the state from the county its interior lies in); big-endian
  { fields: v3(2, "EVANSTON POLICE DEPARTMENT"), polygons: EVANSTON, bigEndian: true },
  // 3: two Illinois PSAPs have its name: ambiguous, a PSAP of its own
  { fields: v3(3, "Springfield Police Department"), polygons: SPRINGFIELD },
  // 4: no registry PSAP has its name: a PSAP of its own (RFC 5031's service URN)
  {
    fields: v3(4, "Lakeside Emergency Communications", { ServiceURN: "urn:service:sos" }),
    polygons: LAKESIDE,
  },
  // 5: expired before the import
  {
    fields: v3(5, "Old Center", { Expire: "2025-12-31T23:59:59Z" }),
    polygons: rect(-88.3, 41.7, -88.2, 41.8),
  },
  // 6: not in effect until after it
  { fields: v3(6, "Future Center", { Effective: "2027-01-01" }), polygons: rect(-88.3, 41.8, -88.2, 41.9) },
  // 7: a police responder's boundary, not a PSAP's
  {
    fields: v3(7, "Evanston Police", { ServiceURN: "urn:emergency:service:responder.police" }),
    polygons: EVANSTON,
  },
  // 8: overlaps Evanston by about 3 km by 3 km
  { fields: v3(8, "Northfield Township ECC"), polygons: rect(-87.7, 42.04, -87.6, 42.1) },
  // 9: shares Southland's east edge and nothing more
  { fields: v3(9, "Calumet Dispatch"), polygons: rect(-87.62, 41.54, -87.55, 41.62) },
  // 10: reaches 16 m into Lakeside along 7.8 km: a sliver, within the data's precision
  { fields: v3(10, "Lake Bluff Dispatch"), polygons: rect(-87.9002, 42.25, -87.85, 42.32) },
  // 11: an empty geometry
  { fields: v3(11, "Nowhere"), polygons: [], empty: true },
];

function writeLayer(name = "psaps.gpkg", options: Parameters<typeof writeGeoPackage>[2] = {}): string {
  const path = join(dir, name);
  writeGeoPackage(
    path,
    LAYER.map((f) => ({
      fields: f.fields,
      geometry: gpkgGeometry(f.polygons, options.srs?.id ?? 4326, {
        littleEndian: !f.bigEndian,
        empty: f.empty ?? false,
      }),
    })),
    { extraColumns: ["PSAP_ID TEXT"], ...options },
  );
  return path;
}

function layerReport(p: PreparedImport): FileReport {
  const report = p.files.find((f) => f.kind === "nena-psap-polygons");
  if (!report) throw new Error("no NENA layer in the report");
  return report;
}

/** The first record's id and match for a fix, and every record before the first boundary match. */
async function firstAt(store: MemoryPsapStore, lon: number, lat: number) {
  const r = await lookupPsaps(store, { latitude: lat, longitude: lon });
  return r.psaps.map((x) => [x.id, x.match]);
}

describe("a NENA v3 PsapPolygon layer in a GeoPackage", () => {
  let prepared: PreparedImport;
  let store: MemoryPsapStore;

  beforeEach(async () => {
    prepared = await prepareImport([file("registry.csv", REGISTRY), writeLayer()], { now: NOW });
    store = MemoryPsapStore.fromIndex(buildIndex(prepared.dataset));
  });

  it("accounts for every feature: kept and tied to a PSAP, or left out with why", () => {
    const report = layerReport(prepared);
    expect(report).toMatchObject({ rowsRead: 11, kept: 7 });
    expect(report.dropped).toEqual([
      { line: 5, reason: "expired (Expire on or before the import, 2026-06-01)" },
      { line: 6, reason: "not yet in effect (Effective after the import, 2026-06-01)" },
      {
        line: 7,
        reason:
          "another service's boundary (ServiceURN urn:emergency:service:responder.police), not a PSAP's",
      },
      { line: 11, reason: "bad feature: the geometry is empty" },
    ]);
    expect(report.notes).toEqual(["GeoPackage layer PsapPolygon"]);
    const ties = report.boundaryMatches?.map((m) => [m.line, m.by, m.psapId, m.state]);
    expect(ties).toEqual([
      [1, "id", "8927", "IL"],
      [2, "name", "2160", "IL"],
      [3, "own", nguid(3), "IL"],
      [4, "own", nguid(4), "IL"],
      [8, "own", nguid(8), "IL"],
      [9, "own", nguid(9), "IL"],
      [10, "own", nguid(10), "IL"],
    ]);
    const why = new Map(report.boundaryMatches?.map((m) => [m.line, m.why]));
    expect(why.get(1)).toBe("its PSAP_ID column");
    expect(why.get(2)).toBe("its name, in IL");
    expect(why.get(3)).toBe("ambiguous: 2 registry PSAPs of its name in IL (301, 302): a PSAP of its own");
    expect(why.get(4)).toBe("no registry PSAP of its name in IL: a PSAP of its own");
    expect((report.boundaryMatches?.length ?? 0) + report.dropped.length).toBe(report.rowsRead);
  });

  it("reports the one pair that overlaps, not the polygons that only touch or meet in a sliver", () => {
    const overlaps = layerReport(prepared).overlaps ?? [];
    expect(overlaps).toHaveLength(1);
    const [o] = overlaps;
    expect(o?.lines).toEqual([2, 8]);
    expect(o?.nguids).toEqual([nguid(2), nguid(8)]);
    // 0.04 degrees of longitude by 0.03 of latitude at 42 N: about 3.3 km by 3.3 km.
    expect(o?.areaKm2).toBeGreaterThan(10);
    expect(o?.areaKm2).toBeLessThan(12);
    expect(o?.depthM).toBeGreaterThan(1500);
  });

  it("makes an unmatched polygon a primary PSAP named by it, its NGUID as id, placed inside it", () => {
    const own = prepared.dataset.psaps.find((p) => p.id === nguid(3));
    expect(own).toMatchObject({
      name: "Springfield Police Department",
      type: "primary",
      state: "IL",
      county: "Sangamon",
      location_precision: "county",
    });
    expect(own?.longitude).toBeGreaterThan(-89.72);
    expect(own?.longitude).toBeLessThan(-89.58);
    expect(own?.latitude).toBeGreaterThan(39.74);
    expect(own?.latitude).toBeLessThan(39.86);
    expect(prepared.summary.placement["service area"]).toBe(5);
    // The registry's two Springfield PSAPs stay as they were.
    expect(prepared.dataset.psaps.filter((p) => p.name === "Springfield Police Department")).toHaveLength(3);
  });

  it("answers inside each polygon with its PSAP first, match boundary, and nowhere else by the county rules", async () => {
    expect((await firstAt(store, -87.7, 41.58))[0]).toEqual(["8927", "boundary"]);
    expect((await firstAt(store, -87.7, 42.03))[0]).toEqual(["2160", "boundary"]);
    expect((await firstAt(store, -89.65, 39.8))[0]).toEqual([nguid(3), "boundary"]);
    expect((await firstAt(store, -87.95, 42.28))[0]).toEqual([nguid(4), "boundary"]);
    // Inside the overlap both answer, in the boundary group, ahead of every other group.
    const both = await firstAt(store, -87.68, 42.05);
    expect(both.slice(0, 2).map(([, m]) => m)).toEqual(["boundary", "boundary"]);
    expect(
      both
        .slice(0, 2)
        .map(([id]) => id)
        .sort(),
    ).toEqual([nguid(8), "2160"].sort());
    // Out of its boundary, in Cook County still, 8927 answers by no county rule: only as a nearest PSAP.
    const chicago = await firstAt(store, -87.65, 41.85);
    expect(chicago.find(([id]) => id === "8927")?.[1]).toBe("nearest");
    // The expired and the future polygons answer for nothing.
    const expired = await firstAt(store, -88.25, 41.75);
    expect(expired.some(([, m]) => m === "boundary")).toBe(false);
  });

  it("carries the layer's identifiers and URIs to the admin catalogue record", () => {
    const catalogue = buildCatalogue(prepared.dataset, "v1");
    const records = [...catalogue]
      .filter(([key]) => /:catalogue:\d+$/.test(key))
      .flatMap(([, text]) => JSON.parse(text) as CatalogueRecord[]);
    const byId = new Map(records.map((r) => [r.id, r]));
    expect(byId.get("8927")?.nena).toEqual({
      service_areas: [
        {
          nguid: nguid(1),
          display_name: "Southland 911",
          agency_id: "psap1.il.example",
          service_uri: "sip:sos@psap1.il.example",
          avcard_uri: "https://psap1.il.example/vcard.vcf",
          service_number: "911",
          matched_by: "id",
        },
      ],
    });
    expect(byId.get(nguid(4))?.nena?.service_areas.map((a) => [a.nguid, a.matched_by])).toEqual([
      [nguid(4), "own"],
    ]);
    expect(byId.get("401")).toBeDefined();
    expect(byId.get("401")).not.toHaveProperty("nena");
  });

  it("prints how each feature was tied and the overlap, in the CLI's report", async () => {
    const kv = new MemoryKvTarget();
    const out = await runCli([file("registry.csv", REGISTRY), writeLayer("cli.gpkg"), "--dry-run"], () => kv);
    expect(out.code).toBe(0);
    expect(out.output).toContain("cli.gpkg (nena-psap-polygons): 11 rows read, 7 kept, 4 dropped");
    expect(out.output).toContain(
      "tied to a PSAP: 1 by an id column, 1 by name and state, 5 by neither, each a PSAP of its own or of its agency (1 of them ambiguous names)",
    );
    expect(out.output).toContain('- item 2 "EVANSTON POLICE DEPARTMENT" (IL) -> 2160: its name, in IL');
    expect(out.output).toMatch(
      /overlapping polygons: 1 pair .*\n {4}- items 2 and 8 \("EVANSTON POLICE DEPARTMENT" and "Northfield Township ECC"\): 1\d\.\d+ km², \d+ m deep/,
    );
    expect(out.output).toContain("- 1 bad feature: the geometry is empty: items 11");
  });
});

describe("GeoPackage inputs refused", () => {
  it("refuses a layer in another CRS than WGS 84 longitude and latitude, naming it", async () => {
    const path = writeLayer("mercator.gpkg", {
      srs: { id: 3857, organization: "EPSG", code: 3857, name: "WGS 84 / Pseudo-Mercator" },
    });
    await expect(prepareImport([file("registry.csv", REGISTRY), path], { now: NOW })).rejects.toThrow(
      /mercator\.gpkg: layer PsapPolygon is in EPSG:3857 \(WGS 84 \/ Pseudo-Mercator\).*ogr2ogr -t_srs EPSG:4326/,
    );
  });

  it("finds the layer by its fields under another name, and refuses a database without one", async () => {
    const renamed = writeLayer("renamed.gpkg", { table: "PSAP_Boundaries" });
    const p = await prepareImport([file("registry.csv", REGISTRY), renamed], { now: NOW });
    expect(layerReport(p)).toMatchObject({
      rowsRead: 11,
      kept: 7,
      notes: ["GeoPackage layer PSAP_Boundaries"],
    });

    const plain = join(dir, "plain.sqlite");
    const db = new DatabaseSync(plain);
    db.exec("CREATE TABLE t (a TEXT)");
    db.close();
    await expect(prepareImport([plain], { now: NOW })).rejects.toThrow(
      /plain\.sqlite: an SQLite database that is not a GeoPackage/,
    );
  });

  it("reads a geometry it cannot decode as a bad feature, and never runs a view", async () => {
    const path = writeLayer("broken.gpkg");
    const db = new DatabaseSync(path);
    // Item 4's WKB cut short: its ring promises more points than the blob holds.
    const blob = (
      db.prepare("SELECT Shape FROM PsapPolygon WHERE OBJECTID = 4").get() as { Shape: Uint8Array }
    ).Shape;
    db.prepare("UPDATE PsapPolygon SET Shape = ? WHERE OBJECTID = 4").run(blob.subarray(0, blob.length - 20));
    db.close();
    const p = await prepareImport([file("registry.csv", REGISTRY), path], { now: NOW });
    expect(layerReport(p).dropped.find((d) => d.line === 4)?.reason).toMatch(/^bad feature: unreadable WKB/);
    expect(layerReport(p).kept).toBe(6);

    // A layer that is a view (its SQL would run as it is read, and could loop forever) is not read.
    const viewed = writeLayer("view.gpkg", { table: "Stored" });
    const v = new DatabaseSync(viewed);
    v.exec(`CREATE VIEW PsapPolygon AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT * FROM Stored, n;
      UPDATE gpkg_contents SET table_name = 'PsapPolygon', identifier = 'PsapPolygon';
      UPDATE gpkg_geometry_columns SET table_name = 'PsapPolygon'`);
    v.close();
    await expect(prepareImport([viewed], { now: NOW })).rejects.toThrow(
      /view\.gpkg: no PsapPolygon layer \(feature layers: none\)/,
    );
  });

  it("holds a GeoPackage to the per-file bound, and refuses one compressed", async () => {
    const path = writeLayer();
    const limits = { ...DEFAULT_READ_LIMITS, maxFileBytes: 4096 };
    await expect(prepareImport([path], { now: NOW, limits })).rejects.toThrow(
      /psaps\.gpkg: the file is \d+(\.\d)? KiB, over the per-file bound of 4 KiB \(--max-file-size\)/,
    );
    const gz = file("psaps.gpkg.gz", gzipSync(readFileSync(path)));
    const refused = prepareImport([gz], { now: NOW });
    await expect(refused).rejects.toThrow(ImportError);
    await expect(refused).rejects.toThrow(/decompress it first/);
  });
});

describe("a NENA v2 PsapPolygon layer in GeoJSON", () => {
  const square = (w: number, s: number, d = 0.05) => ({
    type: "Polygon",
    coordinates: rect(w, s, w + d, s + d)[0],
  });
  const feature = (properties: Record<string, unknown>, geometry: unknown = square(-89.45, 43.05)) => ({
    type: "Feature",
    properties,
    geometry,
  });
  const GEO = {
    type: "FeatureCollection",
    features: [
      // 1: earlier v2 (ES_NGUID), its State field; the name in capitals: 501
      feature({
        ES_NGUID: "PSAP1@dane.wi.example",
        DsplayName: "DANE COUNTY PUBLIC SAFETY COMMUNICATIONS",
        State: "WI",
        Country: "US",
        ServiceURN: "urn:emergency:service:sos.psap",
        Effective: Date.UTC(2020, 0, 1),
        Expire: null,
      }),
      // 2: v2.0a names in lower case (as a DBF may hold them): 502 by name in WI
      feature(
        {
          nguid: "PSAP2@wi.example",
          dsplayname: "Milwaukee County Sheriff",
          state: "wi",
          serviceurn: "urn:service:sos",
        },
        square(-88.0, 43.0),
      ),
      // 3: the name of a WI PSAP, but its State says IL, where no PSAP has it: a PSAP of its own in IL
      feature(
        { NGUID: "PSAP3@il.example", DsplayName: "Milwaukee County Sheriff", State: "IL" },
        square(-88.2, 41.6),
      ),
      // 4: Expire as epoch milliseconds, before the import
      feature({ NGUID: "PSAP4@wi.example", DsplayName: "Gone", State: "WI", Expire: Date.UTC(2021, 5, 30) }),
      // 5: a date no one can read
      feature({ NGUID: "PSAP5@wi.example", DsplayName: "Odd", State: "WI", Effective: "next tuesday" }),
      // 6: an explicit id that names no PSAP: not guessed from its name
      feature({ NGUID: "PSAP6@wi.example", DsplayName: "Milwaukee County Sheriff", psap_id: 9999 }),
      // 7: item 1's NGUID again
      feature({ ES_NGUID: "PSAP1@dane.wi.example", DsplayName: "Again", State: "WI" }),
      // 8: not a state
      feature({ NGUID: "PSAP8@wi.example", DsplayName: "Elsewhere", State: "ZZ" }),
      // 9: no display name
      feature({ NGUID: "PSAP9@wi.example", State: "WI" }),
      // 10: not a polygon
      feature(
        { NGUID: "PSAP10@wi.example", DsplayName: "Point", State: "WI" },
        { type: "Point", coordinates: [-89.4, 43.07] },
      ),
    ],
  };

  it("reads v2 names in any case, gzipped, ties by name within the State field's state, and reports the rest", async () => {
    const p = await prepareImport(
      [file("registry.csv", REGISTRY), file("wi-psaps.geojson.gz", gzipSync(JSON.stringify(GEO)))],
      { now: NOW },
    );
    const report = layerReport(p);
    expect(report).toMatchObject({ rowsRead: 10, kept: 3 });
    expect(report.boundaryMatches?.map((m) => [m.line, m.by, m.psapId, m.state])).toEqual([
      [1, "name", "501", "WI"],
      [2, "name", "502", "WI"],
      [3, "own", "PSAP3@il.example", "IL"],
    ]);
    expect(report.dropped.map((d) => [d.line, d.reason]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(
      [
        [4, "expired (Expire on or before the import, 2026-06-01)"],
        [5, "bad feature: Effective is not a date"],
        [6, "no PSAP with id 9999 in this import (the layer's PSAP_ID column)"],
        [7, "duplicate NGUID: the layer's first feature with it is kept"],
        [8, "bad feature: State is not a US state or territory code"],
        [9, "bad feature: no DsplayName"],
        [10, "bad feature: geometry is not a valid Polygon or MultiPolygon"],
      ],
    );
    // Items 3 and 6 name no service: read as PSAP boundaries (6 is left out later, for its id), and said so.
    expect(report.notes).toEqual([
      "2 features without a ServiceURN: read as PSAP boundaries, the layer's default (urn:emergency:service:sos.psap)",
    ]);
    const store = MemoryPsapStore.fromIndex(buildIndex(p.dataset));
    expect((await firstAt(store, -89.42, 43.07))[0]).toEqual(["501", "boundary"]);
    expect((await firstAt(store, -87.97, 43.02))[0]).toEqual(["502", "boundary"]);
  });
});

describe("a NENA PsapPolygon layer as a shapefile ZIP", () => {
  it("is read through the bounded ZIP reader and shpjs, its DBF dates included", async () => {
    const layer = {
      type: "FeatureCollection",
      features: [
        {
          type: "Feature",
          properties: { ...v3(21, "Lakeside Emergency Communications"), Effective: "20240101" },
          geometry: { type: "Polygon", coordinates: LAKESIDE[0] },
        },
        {
          type: "Feature",
          properties: { ...v3(22, "Retired Center"), Expire: "20250101" },
          geometry: { type: "Polygon", coordinates: SPRINGFIELD[0] },
        },
      ],
    };
    const zip = (await shpwrite.zip(layer as GeoJSON.FeatureCollection, {
      outputType: "nodebuffer",
      compression: "DEFLATE",
      types: { polygon: "PsapPolygon" },
    })) as Buffer;
    const p = await prepareImport([file("registry.csv", REGISTRY), file("PsapPolygon.zip", zip)], {
      now: NOW,
    });
    const report = layerReport(p);
    expect(report).toMatchObject({ rowsRead: 2, kept: 1 });
    expect(report.dropped).toEqual([
      { line: 2, reason: "expired (Expire on or before the import, 2026-06-01)" },
    ]);
    expect(report.boundaryMatches?.[0]).toMatchObject({ by: "own", psapId: nguid(21), state: "IL" });
    const store = MemoryPsapStore.fromIndex(buildIndex(p.dataset));
    expect((await firstAt(store, -87.95, 42.28))[0]).toEqual([nguid(21), "boundary"]);
  });
});

describe("NENA dates", () => {
  it.each([
    ["2026-01-31", "2026-01-31T00:00:00.000Z"],
    ["2026-01-31T08:30:00Z", "2026-01-31T08:30:00.000Z"],
    ["2026-01-31T08:30:00.250-05:00", "2026-01-31T13:30:00.250Z"],
    ["2026-01-31 08:30:00", "2026-01-31T08:30:00.000Z"],
    ["20260131", "2026-01-31T00:00:00.000Z"],
    ["2026/01/31", "2026-01-31T00:00:00.000Z"],
    [Date.UTC(2026, 0, 31), "2026-01-31T00:00:00.000Z"],
  ])("reads %s", (text, iso) => {
    expect((readNenaDate(text) as Date).toISOString()).toBe(iso);
  });

  it("reads a DBF date as its calendar day, a blank as absent, and refuses what is no date", () => {
    expect((readNenaDate(new Date(2026, 0, 31)) as Date).toISOString()).toBe("2026-01-31T00:00:00.000Z");
    expect(readNenaDate(new Date(Number.NaN))).toBeNull();
    expect(readNenaDate("  ")).toBeNull();
    expect(readNenaDate(null)).toBeNull();
    // A Julian day and epoch seconds are numbers too: refused, not read as days of 1970.
    for (const bad of [
      "2026-02-30",
      "2026-13-01",
      "31/01/2026",
      "soon",
      Number.NaN,
      true,
      2461072.5,
      1769817600,
    ]) {
      expect(readNenaDate(bad)).toBe("bad");
    }
  });
});
