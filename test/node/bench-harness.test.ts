// The benchmark harness checks itself: seeded data, percentiles, the three lookups agreeing, the results shape.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { checkGoals } from "../../bench/goals.ts";
import { benchLookup, plainNearestKm, sameDistances } from "../../bench/lookup.ts";
import { gaussian, seededRandom, weightedPicker } from "../../bench/random.ts";
import { type BenchResults, formatResults, resultsShapeProblems } from "../../bench/results.ts";
import { findDescendant, rssMb } from "../../bench/server.ts";
import { percentile, percentiles, round } from "../../bench/stats.ts";
import { queryPoints, syntheticDataset, US_BOX, usPlaces } from "../../bench/synthetic.ts";
import { haversineKm } from "../../src/psap/index.ts";
import { freePort } from "../support/processes.ts";

const SAMPLE: BenchResults = {
  lookup: [
    {
      dataset: "fcc",
      n: 6542,
      ours_us_p50: 3,
      ours_us_p99: 9,
      geokdbush_us_p50: 9,
      brute_us_p50: 900,
      kv_reads_p50: 2,
      kv_reads_p99: 2,
      index_build_s: 4,
      index_bytes: 29_000_000,
    },
  ],
  e2e: {
    sessions: 100,
    sos_loop_ms_p50: 12,
    sos_loop_ms_p95: 30,
    sos_loop_ms_p99: 45,
    trivial_rtt_ms_p50: 4,
    lost_messages: 0,
  },
  load: { sessions: 1000, sockets: 2000, sos_delivered: 2000, lost_messages: 0, workerd_rss_mb: 300 },
  sdk: { patient_min_gz_bytes: 3600, counselor_min_gz_bytes: 3000 },
  machine: { cpus: 2, node: "v22.23.3", date: "2026-11-22T00:00:00.000Z" },
};

describe("seeded randomness", () => {
  it("gives the same sequence for the same seed and another for another seed", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(xs);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
  });

  it("picks in proportion to the weights and gives normal deviates", () => {
    const random = seededRandom(7);
    const pick = weightedPicker([1, 0, 3], random);
    const counts = [0, 0, 0];
    for (let i = 0; i < 20_000; i++) {
      const k = pick();
      counts[k] = (counts[k] ?? 0) + 1;
    }
    expect(counts[1]).toBe(0);
    expect((counts[2] ?? 0) / (counts[0] ?? 1)).toBeGreaterThan(2.7);
    expect((counts[2] ?? 0) / (counts[0] ?? 1)).toBeLessThan(3.3);
    const g = Array.from({ length: 20_000 }, () => gaussian(random));
    const mean = g.reduce((s, v) => s + v, 0) / g.length;
    const sd = Math.sqrt(g.reduce((s, v) => s + (v - mean) ** 2, 0) / g.length);
    expect(Math.abs(mean)).toBeLessThan(0.05);
    expect(Math.abs(sd - 1)).toBeLessThan(0.05);
  });
});

describe("synthetic PSAP data sets", () => {
  it("are identical for the same seed, with unique ids and valid coordinates", () => {
    const a = syntheticDataset({ n: 3_000, seed: 5 });
    const b = syntheticDataset({ n: 3_000, seed: 5 });
    const c = syntheticDataset({ n: 3_000, seed: 6 });
    expect(b).toEqual(a);
    expect(c.psaps.map((p) => p.latitude)).not.toEqual(a.psaps.map((p) => p.latitude));
    expect(new Set(a.psaps.map((p) => p.id)).size).toBe(3_000);
    for (const p of a.psaps) {
      expect(Math.abs(p.latitude)).toBeLessThanOrEqual(90);
      expect(Math.abs(p.longitude)).toBeLessThanOrEqual(180);
    }
    const secondaries = a.psaps.filter((p) => p.type === "secondary").length / a.psaps.length;
    expect(secondaries).toBeGreaterThan(0.1);
    expect(secondaries).toBeLessThan(0.2);
  });

  it("are clustered like population: far denser around big cities than a uniform spread", () => {
    const set = syntheticDataset({ n: 20_000, seed: 9 });
    const cities = [...usPlaces()].sort((x, y) => y.population - x.population).slice(0, 10);
    const near = set.psaps.filter((p) =>
      cities.some((c) => haversineKm(p.latitude, p.longitude, c.latitude, c.longitude) <= 50),
    ).length;
    // Ten 50 km discs are about 1 % of the contiguous US: a uniform set would put ~1 % there.
    expect(near / set.psaps.length).toBeGreaterThan(0.03);
    // ...but a sub-linear density keeps any one metro from holding a large share.
    expect(near / set.psaps.length).toBeLessThan(0.25);
  });

  it("gives seeded query points, the uniform share inside the contiguous US box", () => {
    expect(queryPoints(100, 3)).toEqual(queryPoints(100, 3));
    const all = queryPoints(1_000, 3, 1);
    for (const q of all) {
      expect(q.latitude).toBeGreaterThanOrEqual(US_BOX.minLat);
      expect(q.latitude).toBeLessThanOrEqual(US_BOX.maxLat);
      expect(q.longitude).toBeGreaterThanOrEqual(US_BOX.minLon);
      expect(q.longitude).toBeLessThanOrEqual(US_BOX.maxLon);
      expect(q.accuracy).toBeGreaterThan(0);
    }
  });
});

describe("percentiles", () => {
  it("use the nearest-rank method", () => {
    const v = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(v, 50)).toBe(50);
    expect(percentile(v, 99)).toBe(99);
    expect(percentile(v, 100)).toBe(100);
    expect(percentile(v, 0)).toBe(1);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
    expect(percentiles([3, 1, 2, 4], [50, 95])).toEqual({ 50: 2, 95: 4 });
    expect(() => percentile(v, 101)).toThrow(RangeError);
    expect(round(1.2345, 2)).toBe(1.23);
  });
});

describe("lookup benchmark", () => {
  it("finds ours, geokdbush and brute force in agreement on a small set, with at most 2 KV reads", async () => {
    const set = syntheticDataset({ n: 1_500, seed: 11 });
    const { row, detail } = await benchLookup(set, {
      dataset: "synthetic-100k",
      queries: 300,
      bruteQueries: 300,
      seed: 11,
    });
    expect(detail.mismatches).toEqual([]);
    expect(detail.brute_queries).toBe(300);
    expect(row.n).toBe(1_500);
    expect(row.kv_reads_p99).toBeLessThanOrEqual(2);
    expect(row.kv_reads_p50).toBe(2);
    expect(row.index_bytes).toBeGreaterThan(0);
    for (const k of ["ours_us_p50", "geokdbush_us_p50", "brute_us_p50"] as const) {
      expect(row[k]).toBeGreaterThan(0);
    }
  });

  it("would notice a wrong nearest list", () => {
    const set = syntheticDataset({ n: 500, seed: 12 });
    const q = queryPoints(1, 12)[0] ?? { latitude: 40, longitude: -100, accuracy: 10 };
    const sorted = set.psaps
      .map((p) => haversineKm(q.latitude, q.longitude, p.latitude, p.longitude))
      .sort((a, b) => a - b);
    expect(plainNearestKm(set, q)).toEqual(sorted.slice(0, 5));
    expect(sameDistances(sorted.slice(0, 5), sorted.slice(1, 6))).toBe(false);
    expect(sameDistances([2, 1], [1, 2 + 1e-9])).toBe(true);
  });
});

describe("results", () => {
  it("accept exactly the issue's shape", () => {
    expect(resultsShapeProblems(SAMPLE)).toEqual([]);
    expect(resultsShapeProblems(JSON.parse(JSON.stringify(SAMPLE)))).toEqual([]);
    const extra = { ...SAMPLE, e2e: { ...SAMPLE.e2e, burst: 1 } };
    expect(resultsShapeProblems(extra)).toContain("e2e.burst: not in the issue's shape");
    const { sdk: _sdk, ...missing } = SAMPLE;
    expect(resultsShapeProblems(missing)).toContain("results.sdk: missing");
    const nan = JSON.parse(
      JSON.stringify({ ...SAMPLE, load: { ...SAMPLE.load, workerd_rss_mb: Number.NaN } }),
    );
    expect(resultsShapeProblems(nan)).toContain("load.workerd_rss_mb: wrong type");
    const badSet = { ...SAMPLE, lookup: [{ ...SAMPLE.lookup[0], dataset: "osm" }] };
    expect(resultsShapeProblems(badSet)).toContain("lookup[0].dataset: unknown osm");
  });

  it("print as tables and are checked against the goals", () => {
    const text = formatResults(SAMPLE);
    expect(text).toContain("| fcc ");
    expect(text).toContain("300×");
    const goals = checkGoals(SAMPLE);
    expect(goals.every((g) => g.met)).toBe(true);
    const slow = checkGoals({ ...SAMPLE, e2e: { ...SAMPLE.e2e, sos_loop_ms_p99: 80 } });
    expect(slow.find((g) => g.goal.startsWith("SOS loop p99"))?.met).toBe(false);
  });
});

describe("server helpers", () => {
  it("find a free loopback port, a child process by name, and its resident memory", async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    expect(port).toBeLessThan(65_536);
    expect(await rssMb(process.pid)).toBeGreaterThan(1);
    expect(await rssMb(0x7ffffff)).toBeNaN();
    const child = spawn("sleep", ["20"], { stdio: "ignore" });
    try {
      await new Promise((r) => setTimeout(r, 200));
      expect(await findDescendant(process.pid, "sleep")).toBe(child.pid);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
