// The README's Performance section is generated from the results JSON: the goals table and every
// figure come from it (with the spread over kept runs), and only that section is replaced.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HISTORY_KEEP, loadHistory, saveHistory } from "../../bench/history.ts";
import { performanceMarkdown, replacePerformanceSection, SECTION_MARKER } from "../../bench/readme.ts";
import type { BenchResults } from "../../bench/results.ts";
import { SAMPLE } from "../support/bench-sample.ts";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "bench-readme-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The rows of the Markdown table that follows `heading`. */
function tableAfter(markdown: string, heading: string): string[][] {
  const lines = markdown.split("\n");
  const start = lines.indexOf(heading);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("#")) break;
    if (!line.startsWith("|")) continue;
    rows.push(
      line
        .slice(1, -1)
        .split(" | ")
        .map((c) => c.trim()),
    );
  }
  return rows.slice(2); // header and rule
}

const run = (over: Partial<BenchResults>, date: string): BenchResults =>
  ({ ...SAMPLE, ...over, machine: { ...SAMPLE.machine, date } }) as BenchResults;

describe("README Performance section", () => {
  it("has a goals table computed from the JSON: verdict and figure for each goal", () => {
    const slow = run({ e2e: { ...SAMPLE.e2e, sos_loop_ms_p50: 21.5 } }, "2026-11-23T00:00:00.000Z");
    const md = performanceMarkdown(slow, [], { mode: "quick" });
    expect(md.startsWith(SECTION_MARKER)).toBe(true);
    const goals = tableAfter(md, "### Goals");
    const loop = goals.find((r) => r[0]?.startsWith("SOS loop p50"));
    expect(loop?.[1]).toBe("**not met**");
    expect(loop?.[2]).toContain("21.5 ms vs floor 13 ms");
    const brute = goals.find((r) => r[0]?.startsWith("FCC: ≥ 20×"));
    expect(brute?.[1]).toBe("**met**");
    expect(brute?.[2]).toContain("300×");
    // The 100k set is not in this JSON: it has no row; PostGIS is.
    const lookup = tableAfter(md, "### PSAP lookup");
    expect(lookup.map((r) => r[0])).toEqual(["fcc", "synthetic-1m"]);
    expect(lookup[0]?.[2]).toBe("3");
    expect(tableAfter(md, "### PostGIS beside us")[0]?.slice(0, 4)).toEqual(["fcc", "6,542", "58", "325"]);
    expect(tableAfter(md, "### SOS loop near its floor")[0]).toEqual([
      "100",
      "21.5",
      "30",
      "45",
      "13",
      "25",
      "7",
      "0",
    ]);
  });

  it("says why PostGIS is missing and marks its goal not measured", () => {
    const { postgis: _rows, ...rest } = SAMPLE as BenchResults & { postgis: unknown };
    const md = performanceMarkdown({ ...rest, postgis_skipped: "PostgreSQL binaries not found" }, []);
    expect(md).toContain("Not measured in this run: PostgreSQL binaries not found.");
    const goal = tableAfter(md, "### Goals").find((r) => r[0]?.includes("PostGIS"));
    expect(goal?.[1]).toBe("not measured");
  });

  it("says so when answers differed, never that they agreed", () => {
    const bad = performanceMarkdown(SAMPLE, [], {
      lookupMismatches: { fcc: 2, "synthetic-1m": 0 },
      postgis: [{ dataset: "fcc", checked: 300, ties: 1, mismatches: 3, connect_ms_p50: 20 }],
    });
    expect(bad).toContain("Checks in this run: **answers differ** (2 in fcc");
    expect(bad).toContain("300 points (fcc): **answers differ** (3 in fcc");
    const good = performanceMarkdown(SAMPLE, [], { lookupMismatches: { fcc: 0 } });
    expect(good).toContain("Checks in this run: every answer agreed.");
  });

  it("tells the SOS loops that read their fix's entry from KV from those that found it cached", () => {
    const markdown = performanceMarkdown(SAMPLE, [], {
      fixes: { first_loops: 70, first_ms_p50: 23.4, later_loops: 130, later_ms_p50: 19.1 },
      solo: { sos_ms_p50: 16, sos_again_ms_p50: 12.5, floor_ms_p50: 10.1, trivial_ms_p50: 6.6 },
    });
    expect(markdown).toContain(
      "70 were the first with their fix (all in the first round): p50 23.4 ms; the other 130: p50 19.1 ms",
    );
    expect(markdown).toContain(
      "SOS loop p50 16 ms, each the first with its fix (the same sessions again right after, the entry cached: 12.5 ms)",
    );
    // The full plan runs every session alone first: no concurrent loop is the first with its fix.
    const allUsed = performanceMarkdown(SAMPLE, [], {
      fixes: { first_loops: 0, first_ms_p50: Number.NaN, later_loops: 500, later_ms_p50: 19.1 },
    });
    expect(allUsed).toContain("every concurrent SOS loop's fix had been used before (by the loops alone)");
    expect(allUsed).not.toContain("n/a");
    // A detail file from before the split says nothing about it.
    const older = performanceMarkdown(SAMPLE, [], {
      solo: { sos_ms_p50: 16, floor_ms_p50: 10.1, trivial_ms_p50: 6.6 },
    });
    expect(older).not.toContain("were the first with their fix");
    expect(older).not.toContain("the same sessions again");
  });

  it("prints the durable floor beside the floor when the detail has it, and nothing without it", () => {
    const md = performanceMarkdown(SAMPLE, [], { durableFloor: { loops: 200, ms_p50: 14.1, ms_p99: 40.2 } });
    const line = md
      .split("\n")
      .find((l) => l.startsWith("The floor again with one storage write per request"));
    expect(line).toContain("on 200 loops of its own: p50 14.1 ms, p99 40.2 ms in the latest run");
    expect(line).toContain(`against the floor's ${SAMPLE.e2e?.floor_ms_p50} ms`);
    expect(md.indexOf(line ?? "?")).toBeGreaterThan(md.indexOf("### SOS loop near its floor"));
    expect(md.indexOf(line ?? "?")).toBeLessThan(md.indexOf("### Load"));
    expect(performanceMarkdown(SAMPLE, [], {})).not.toContain("one storage write per request");
    expect(
      performanceMarkdown(SAMPLE, [], { durableFloor: { loops: 0, ms_p50: Number.NaN, ms_p99: Number.NaN } }),
    ).not.toContain("one storage write per request");
  });

  it("says where the servers kept their state, and prints the loops on disk only beside a run in memory", () => {
    const onDisk = {
      sos_ms_p50: 14.5,
      sos_ms_p99: 53.5,
      floor_ms_p50: 10.3,
      floor_ms_p99: 26.8,
      durable_floor_ms_p50: 12.2,
      trivial_ms_p50: 3.24,
      lost_messages: 0,
    };
    const md = performanceMarkdown(SAMPLE, [], {
      state: { medium: "memory", dir: "/dev/shm" },
      e2eOnDisk: onDisk,
    });
    const lines = md.split("\n");
    const where = lines.find((l) => l.startsWith("The servers kept their local state"));
    expect(where).toContain("in memory (tmpfs, `/dev/shm`)");
    const disk = lines.find((l) => l.startsWith("The same loops on a second server whose state is on disk"));
    expect(disk).toContain(
      "SOS loop p50 14.5 ms (p99 53.5 ms), floor p50 10.3 ms (p99 26.8 ms), durable floor p50 12.2 ms",
    );
    expect(disk).toContain("trivial GET p50 3.24 ms: the loop 4.48× the GET there; 0 messages lost");
    for (const line of [where, disk]) {
      expect(md.indexOf(line ?? "?")).toBeGreaterThan(md.indexOf("### SOS loop near its floor"));
      expect(md.indexOf(line ?? "?")).toBeLessThan(md.indexOf("### Load"));
    }
    // A run whose state was on disk has no second run to show; a detail without the medium, no line.
    const diskRun = performanceMarkdown(SAMPLE, [], {
      state: { medium: "disk", dir: "/tmp" },
      e2eOnDisk: onDisk,
    });
    expect(diskRun).toContain("kept their local state (KV, D1, Durable Object storage) on disk (`/tmp`)");
    expect(diskRun).not.toContain("on a second server whose state is on disk");
    expect(performanceMarkdown(SAMPLE, [], {})).not.toContain("kept their local state");
  });

  it("prints the lookups timed right after their loading pass beside the hot table, when the detail has them", () => {
    const md = performanceMarkdown(SAMPLE, [], {
      afterLoad: { fcc: { ours_us_p50: 15.24, geokdbush_us_p50: 5.92 } },
    });
    const line = md.split("\n").find((l) => l.startsWith("Timed right after the loading pass"));
    expect(line).toBe(
      "Timed right after the loading pass instead (latest run, p50): fcc 15.2 µs against geokdbush's 5.92 µs (2.6×).",
    );
    expect(md.indexOf(line ?? "?")).toBeGreaterThan(md.indexOf("### PSAP lookup"));
    expect(md.indexOf(line ?? "?")).toBeLessThan(md.indexOf("### PostGIS beside us"));
    expect(performanceMarkdown(SAMPLE, [], {})).not.toContain("Timed right after the loading pass");
  });

  it("shows each figure's spread and each goal's record over the kept runs", () => {
    const dir = tempDir();
    const a = run({ e2e: { ...SAMPLE.e2e, sos_loop_ms_p50: 18 } }, "2026-11-22T01:00:00.000Z");
    const b = run({ e2e: { ...SAMPLE.e2e, sos_loop_ms_p50: 24 } }, "2026-11-22T02:00:00.000Z");
    const c = run({ e2e: { ...SAMPLE.e2e, sos_loop_ms_p50: 19 } }, "2026-11-22T03:00:00.000Z");
    saveHistory(dir, a, "quick");
    saveHistory(dir, b, "full");
    saveHistory(dir, c, "quick");
    const history = loadHistory(dir);
    expect(history.map((h) => h.mode)).toEqual(["quick", "full", "quick"]);
    const md = performanceMarkdown(c, history, { mode: "quick" });
    expect(tableAfter(md, "### SOS loop near its floor")[0]?.[1]).toBe("19 (18–24)");
    expect(md).toContain("3 kept runs (2 quick, 1 full");
    // A latest run not (yet) in the history is counted with its own mode.
    const d = run({}, "2026-11-22T04:00:00.000Z");
    expect(performanceMarkdown(d, history, { mode: "full" })).toContain("4 kept runs (2 quick, 2 full");
    const loop = tableAfter(md, "### Goals").find((r) => r[0]?.startsWith("SOS loop p50"));
    // 18 and 19 are within 1.5 × 13 ms; 24 is not.
    expect(loop?.[3]).toBe("2 of 3");
  });

  it("counts together only the kept runs whose servers kept their state where the latest run's did", () => {
    const dir = tempDir();
    const inMemory = run({ e2e: { ...SAMPLE.e2e, sos_loop_ms_p50: 10 } }, "2026-11-22T01:00:00.000Z");
    const onDisk = run({ e2e: { ...SAMPLE.e2e, sos_loop_ms_p50: 30 } }, "2026-11-22T02:00:00.000Z");
    const unknown = run({ e2e: { ...SAMPLE.e2e, sos_loop_ms_p50: 40 } }, "2026-11-22T03:00:00.000Z");
    const latest = run({ e2e: { ...SAMPLE.e2e, sos_loop_ms_p50: 12 } }, "2026-11-22T04:00:00.000Z");
    expect(saveHistory(dir, inMemory, "quick", "memory")).toBe("2026-11-22T01-00-00-000Z.quick.memory.json");
    saveHistory(dir, onDisk, "quick", "disk");
    saveHistory(dir, unknown, "quick");
    saveHistory(dir, latest, "quick", "memory");
    const history = loadHistory(dir);
    expect(history.map((h) => h.medium)).toEqual(["memory", "disk", undefined, "memory"]);
    const md = performanceMarkdown(latest, history, {
      mode: "quick",
      state: { medium: "memory", dir: "/dev/shm" },
    });
    expect(tableAfter(md, "### SOS loop near its floor")[0]?.[1]).toBe("12 (10–12)");
    expect(md).toContain("2 kept runs (2 quick, 0 full");
    expect(md).toContain("those whose servers kept their state in memory, as this one's");
    // Without a medium for the latest run (an older detail file), every kept run counts.
    expect(tableAfter(performanceMarkdown(latest, history, {}), "### SOS loop near its floor")[0]?.[1]).toBe(
      "12 (10–40)",
    );
  });

  it("keeps only the newest runs, and leaves out files of another shape", () => {
    const dir = tempDir();
    for (let i = 0; i < HISTORY_KEEP + 3; i++)
      saveHistory(dir, run({}, `2026-11-22T00:00:${String(i).padStart(2, "0")}.000Z`), "quick");
    expect(readdirSync(dir)).toHaveLength(HISTORY_KEEP);
    expect(loadHistory(dir)[0]?.results.machine.date).toBe("2026-11-22T00:00:03.000Z");
    writeFileSync(join(dir, "2026-11-23T00-00-00-000Z.full.json"), JSON.stringify({ lookup: [] }));
    expect(loadHistory(dir)).toHaveLength(HISTORY_KEEP);
  });

  it("replaces only its own section, up to the next section marker", () => {
    const readme = [
      "# Project",
      "<!-- section: deploy (owner: service) -->",
      "deploy text",
      SECTION_MARKER,
      "## Performance",
      "old figures",
      "<!-- section: other (owner: x) -->",
      "other text",
      "",
    ].join("\n");
    const out = replacePerformanceSection(readme, `${SECTION_MARKER}\n## Performance\nnew figures\n`);
    expect(out).toContain("deploy text");
    expect(out).toContain("new figures");
    expect(out).not.toContain("old figures");
    expect(out).toContain("<!-- section: other (owner: x) -->\nother text");
    const atEnd = replacePerformanceSection(`# P\n${SECTION_MARKER}\nold\n`, `${SECTION_MARKER}\nnew\n`);
    expect(atEnd).toBe(`# P\n${SECTION_MARKER}\nnew\n`);
    expect(() => replacePerformanceSection("# no marker", "x")).toThrow(/marker/);
  });
});
