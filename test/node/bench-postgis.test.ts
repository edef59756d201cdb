// PostGIS beside us, on a tiny data set: a private server started and deleted, the same PSAPs and
// areas loaded, KNN and our ranking in SQL giving our answers, and a clear skip without binaries.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type IndexedPsap,
  type PsapDataset,
  plainNearestKm,
  referenceLookup,
} from "../../bench/lookup-contenders.ts";
import { benchPostgis, compareRanked } from "../../bench/postgis/bench.ts";
import { type PgServer, postgisMissing, startPostgres } from "../../bench/postgis/server.ts";
import { resultsShapeProblems } from "../../bench/results.ts";
import { queryPoints, syntheticDataset } from "../../bench/synthetic.ts";
import { SAMPLE } from "../support/bench-sample.ts";

const missing = postgisMissing();
// CI installs PostgreSQL and PostGIS (.ci/run): there, a missing binary is a failure, not a skip.
const runIt = missing === null || process.env.CI !== undefined;

type Ring = [number, number][];
const square = (lon: number, lat: number, r: number): Ring => [
  [lon - r, lat - r],
  [lon + r, lat - r],
  [lon + r, lat + r],
  [lon - r, lat + r],
];

/** A small synthetic set with service areas where the fixes are: counties, boundaries, a holed one. */
function tinyDatasetWithAreas(): { dataset: PsapDataset; points: ReturnType<typeof queryPoints> } {
  const generated = syntheticDataset({ n: 400, seed: 21 });
  // Every jurisdiction, and secondaries that follow a primary, so that every step of the ranking is exercised.
  const jurisdictions = ["county", "regional", "state", "municipal", "special"] as const;
  const primaries = generated.psaps.filter((p: IndexedPsap) => p.type === "primary");
  const base = {
    ...generated,
    psaps: generated.psaps.map((p: IndexedPsap, i: number) => ({
      ...p,
      jurisdiction: jurisdictions[i % jurisdictions.length] as IndexedPsap["jurisdiction"],
      handled_by:
        p.type === "secondary" && i % 3 !== 0 ? (primaries[(i * 7) % primaries.length]?.id ?? null) : null,
    })),
  };
  const points = queryPoints(120, 21);
  const areas = points.slice(0, 40).map((q, i) => {
    // Of varied size; a third of the fixes just outside the west border (about 0.35 km: inside
    // only through the tolerance, at least 0.5 km), a third 4 km outside, a third inside.
    const r = 0.02 + (i % 7) * 0.04;
    const offset = i % 3 === 0 ? r + 0.004 : i % 3 === 1 ? r + 0.05 : 0.01;
    const lon = q.longitude + offset;
    const lat = q.latitude;
    const near = base.psaps
      .map((p: IndexedPsap) => ({ id: p.id, d: (p.latitude - lat) ** 2 + (p.longitude - lon) ** 2 }))
      .sort((a, b) => a.d - b.d)
      .slice(i % 2 === 0 ? 0 : 5, (i % 2 === 0 ? 0 : 5) + 1 + (i % 4))
      .map((p) => p.id);
    const rings = i % 5 === 4 ? [square(lon, lat, r), square(lon, lat, r / 3)] : [square(lon, lat, r)];
    return {
      id: `A${i}`,
      kind: i % 6 === 5 ? ("boundary" as const) : i % 3 === 1 ? ("city" as const) : ("county" as const),
      name: `Area ${i}`,
      state: "ZZ",
      rings,
      psapIds: near,
    };
  });
  return { dataset: { ...base, areas }, points };
}

describe("PostGIS beside us", () => {
  let server: PgServer | undefined;
  beforeAll(async () => {
    if (!runIt) return;
    const s = await startPostgres();
    if ("skipped" in s) throw new Error(`PostgreSQL with PostGIS is needed here: ${s.skipped}`);
    server = s.server;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  it.skipIf(!runIt)(
    "gives our answers: KNN equal to a plain scan, the SQL ranking equal to ours",
    async () => {
      if (!server) throw new Error("no server");
      const { dataset, points } = tinyDatasetWithAreas();
      const reference = referenceLookup(dataset);
      const matches = new Set(points.flatMap((q) => reference(q).map((r) => r.match)));
      // The set does exercise the area part of the ranking.
      expect(matches).toContain("county");
      expect(matches).toContain("boundary");
      expect(matches).toContain("nearest");
      const { row, detail } = await benchPostgis(server, dataset, points, {
        dataset: "fcc",
        checkQueries: points.length,
        connections: 2,
        seed: 21,
      });
      expect(detail.mismatches).toEqual([]);
      expect(detail.checked).toBe(points.length);
      expect(detail.knn_uses_gist).toBe(true);
      expect(detail.areas).toBe(40);
      expect(row.n).toBe(400);
      for (const k of ["knn_us_p50", "ranked_us_p50", "client_us_p50", "table_bytes"] as const)
        expect(row[k]).toBeGreaterThan(0);
      const { postgis: _rows, ...rest } = SAMPLE as typeof SAMPLE & { postgis: unknown };
      expect(resultsShapeProblems({ ...rest, postgis: [row] })).toEqual([]);
    },
  );

  it("would notice a ranking that differs from ours", () => {
    const { dataset, points } = tinyDatasetWithAreas();
    const q = points[50] ?? { latitude: 40, longitude: -100, accuracy: 10 };
    const expected = referenceLookup(dataset)(q);
    const idxOf = (id: string) => dataset.psaps.findIndex((p) => p.id === id);
    const km = plainNearestKm(dataset, q, expected.length);
    const same = expected.map((r, j) => ({ idx: idxOf(r.id), km: km[j] ?? Number.NaN, match: r.match }));
    expect(expected.length).toBeGreaterThan(1);
    expect(compareRanked(dataset, q, expected, same)).toBe("equal");
    const swapped = [same[1], same[0], ...same.slice(2)].filter((x) => x !== undefined);
    expect(compareRanked(dataset, q, expected, swapped)).toMatch(/record 1/);
    expect(compareRanked(dataset, q, expected, same.slice(1))).toMatch(/records instead of/);
  });

  it("is skipped with the reason and how to install it when the binaries are missing", async () => {
    const before = process.env.PG_BIN;
    process.env.PG_BIN = "/nonexistent/postgresql/bin";
    try {
      const s = await startPostgres();
      expect("skipped" in s && s.skipped).toMatch(/not found.*apt-get install -y postgresql postgis/);
    } finally {
      if (before === undefined) delete process.env.PG_BIN;
      else process.env.PG_BIN = before;
    }
  });

  it.skipIf(!runIt)(
    "deletes its folder when stopped",
    async () => {
      const s = await startPostgres();
      if ("skipped" in s) throw new Error(s.skipped);
      expect(existsSync(s.server.dir)).toBe(true);
      await s.server.stop();
      expect(existsSync(s.server.dir)).toBe(false);
    },
    60_000,
  );
});
