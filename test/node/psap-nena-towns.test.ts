// The shared town boundaries (8,218 towns, townships, cities and boroughs of ten states) used as if they
// were a NENA v3 PsapPolygon layer, each town given an NGUID, its name as DsplayName and the PSAP service
// URN, imported with the real FCC registry: the report accounts for every feature, each tie follows the
// matching rule, every overlap reported is one the sources really have (two states drawing one border
// river), and a fix inside a town is answered by the town's polygon first.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { geojsonRings } from "../../data/import/geojson-rings.ts";
import type { BoundaryMatch, FileReport } from "../../data/import/model.ts";
import { normalizeName } from "../../data/import/names.ts";
import { type PreparedImport, prepareImport } from "../../data/import/pipeline.ts";
import { interiorPoint } from "../../data/import/read-towns.ts";
import { STATE_BY_FIPS } from "../../data/import/states.ts";
import { buildIndex } from "../../data/index/build.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import { lookupPsaps } from "../../src/answer/lookup.ts";
import { resetPsapLookupCache } from "../../src/psap/lookup.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DATA_DIR = resolve(ROOT, process.env.PSAP_DATA_DIR ?? "../shared/psap-data");
const CSV = resolve(DATA_DIR, "fcc_master_psap_registry_v2.295.csv");
const JSON_EXPORT = resolve(DATA_DIR, "psap_registry.json");
const TOWNS = resolve(DATA_DIR, "town-boundaries.geojson.gz");
const HAVE_DATA = existsSync(CSV) && existsSync(JSON_EXPORT) && existsSync(TOWNS);

if (!HAVE_DATA && process.env.CI === "true") {
  it("has the FCC registry and the town boundaries (PSAP_DATA_DIR) in CI", () => {
    throw new Error(`registry or town boundaries not found in ${DATA_DIR}: set PSAP_DATA_DIR`);
  });
}

interface Town {
  properties: { STATEFP: string; NAME: string };
  geometry: { type: string; coordinates: unknown };
}

const nguidOf = (item: number) => `urn:emergency:uid:gis:PSAP:town-${item}:towns.test`;

describe.skipIf(!HAVE_DATA)(
  "the shared town boundaries as a NENA PsapPolygon layer, with the FCC registry",
  () => {
    let dir: string;
    let towns: Town[];
    let prepared: PreparedImport;
    let report: FileReport;
    let store: MemoryPsapStore;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "psap-nena-towns-"));
      towns = (JSON.parse(gunzipSync(readFileSync(TOWNS)).toString("utf8")) as { features: Town[] }).features;
      // v3 fields only: no State, so each town's state comes from the counties its polygon lies in.
      const layer = {
        type: "FeatureCollection",
        features: towns.map((t, k) => ({
          type: "Feature",
          properties: {
            NGUID: nguidOf(k + 1),
            DsplayName: t.properties.NAME,
            ServiceURN: "urn:service:sos",
            DateUpdate: "2026-01-01",
          },
          geometry: t.geometry,
        })),
      };
      const path = join(dir, "town-psaps.geojson.gz");
      writeFileSync(path, gzipSync(JSON.stringify(layer)));
      prepared = await prepareImport([CSV, JSON_EXPORT, path]);
      const found = prepared.files.find((f) => f.kind === "nena-psap-polygons");
      if (!found) throw new Error("the layer was not read as a NENA PsapPolygon layer");
      report = found;
      store = MemoryPsapStore.fromIndex(buildIndex(prepared.dataset));
      resetPsapLookupCache();
    }, 240_000);

    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      resetPsapLookupCache();
    });

    it("accounts for every feature: each tied to a PSAP and made a boundary, or left out with why", () => {
      expect(report.rowsRead).toBe(towns.length);
      const matches = report.boundaryMatches ?? [];
      expect(matches.length).toBe(report.kept);
      expect(report.kept + report.dropped.length).toBe(report.rowsRead);
      const lines = [...matches.map((m) => m.line), ...report.dropped.map((d) => d.line)].sort(
        (a, b) => a - b,
      );
      expect(lines).toEqual(towns.map((_, k) => k + 1));
      // What is left out is only what no county places: islands and shores the 1:10M counties miss.
      for (const d of report.dropped) expect(d.reason).toMatch(/^no state: /);
      expect(report.dropped.length).toBeLessThan(towns.length / 1000);
      expect(prepared.summary.boundaries).toBe(report.kept);
      expect(matches.filter((m) => m.by === "id")).toEqual([]);
    });

    it("ties a town by name only to the one current registry PSAP of that name in its own state", () => {
      const registry = prepared.dataset.psaps.filter((p) => /^\d+$/.test(p.id));
      const idsByName = new Map<string, string[]>();
      for (const p of registry) {
        const key = `${p.state}:${normalizeName(p.name)}`;
        idsByName.set(key, [...(idsByName.get(key) ?? []), p.id]);
      }
      const matches = report.boundaryMatches ?? [];
      for (const m of matches) {
        const town = towns[m.line - 1] as Town;
        // The state a town is tied in is the one its source gives it.
        expect(m.state).toBe(STATE_BY_FIPS[town.properties.STATEFP]);
        const ids = idsByName.get(`${m.state}:${normalizeName(m.name)}`) ?? [];
        if (m.by === "name") expect(ids).toEqual([m.psapId]);
        else {
          expect(m.by).toBe("own");
          expect(ids).not.toHaveLength(1);
          expect(m.why.startsWith(ids.length === 0 ? "no registry PSAP of its name" : "ambiguous")).toBe(
            true,
          );
          expect(m.psapId).toBe(nguidOf(m.line));
        }
      }
      expect(matches.filter((m) => m.by === "name").length).toBeGreaterThan(0);
      const own = prepared.dataset.psaps.filter((p) => p.id.startsWith("urn:emergency:uid:gis:PSAP:town-"));
      expect(own.length).toBe(matches.filter((m) => m.by === "own").length);
      for (const p of own) expect(p).toMatchObject({ type: "primary", location_precision: "county" });
    });

    it("reports as overlaps only pairs of towns of two states, where two sources draw one border", () => {
      const stateOf = new Map((report.boundaryMatches ?? []).map((m) => [m.line, m.state]));
      const overlaps = report.overlaps ?? [];
      expect(overlaps.length).toBeGreaterThan(0);
      for (const o of overlaps) {
        expect(stateOf.get(o.lines[0])).not.toBe(stateOf.get(o.lines[1]));
        expect(o.depthM).toBeGreaterThanOrEqual(50);
        expect(o.areaKm2).toBeGreaterThan(0);
      }
    });

    it("answers a fix inside a town with the town's PSAP first, match boundary (after a statewide centre)", async () => {
      const inOverlap = new Set((report.overlaps ?? []).flatMap((o) => o.lines));
      const matches = report.boundaryMatches ?? [];
      const byId = new Map(prepared.dataset.psaps.map((p) => [p.id, p]));
      // Every town tied to a registry PSAP by name, and one town in 40 of the others.
      const sample: BoundaryMatch[] = matches.filter(
        (m, k) => !inOverlap.has(m.line) && (m.by === "name" || k % 40 === 0),
      );
      expect(sample.length).toBeGreaterThan(200);
      for (const m of sample) {
        const town = towns[m.line - 1] as Town;
        const [lon, lat] = interiorPoint(geojsonRings(town.geometry, true) ?? []);
        const r = await lookupPsaps(store, { latitude: lat, longitude: lon });
        const at = r.psaps.findIndex((p) => p.id === m.psapId);
        expect(r.psaps[at]?.match, `${m.name} (${m.state}), item ${m.line}`).toBe("boundary");
        // Before it only a centre that answers every 911 call of its state (New Hampshire, Rhode Island),
        // and, for a secondary the registry hands to a primary, that primary (docs/contract.md, section 4, rule 3).
        const lead = byId.get(m.psapId)?.handled_by ?? null;
        for (const p of r.psaps.slice(0, at)) {
          const allowed = p.jurisdiction === "state" || (p.id === lead && p.match === "boundary");
          expect(allowed, `${m.name}: ${p.id} ${p.name} before it`).toBe(true);
        }
      }
    });
  },
);
