// The PSAP directory as the import reads it: lines (their kinds, numbers as printed, sources and dates),
// land area links (refused for statistical areas), the order of a centre's lines, and the directory check.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseCsv } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { checkDirectory } from "../../data/directory/check.ts";
import { attachLines } from "../../data/import/attach-lines.ts";
import { landBoundaries } from "../../data/import/land-areas.ts";
import { readAreaLinks } from "../../data/import/read-area-links.ts";
import { asDialled, readDirectoryLines } from "../../data/import/read-directory-lines.ts";
import type { LandArea } from "../../data/import/read-land-areas.ts";
import { readLandAreas } from "../../data/import/read-land-areas.ts";
import { isStale, orderLines } from "../../lib/lines.ts";
import type { PsapLine } from "../../sdk/src/protocol.ts";
import { psap } from "../support/psap-fixtures.ts";

const HEADER = "psap_id,state,psap_name,number,e164,kind,label,source,checked_on,note";
const TODAY = new Date("2026-11-28T12:00:00Z");
const read = (rows: string[]) =>
  readDirectoryLines("lines/XX.csv", [HEADER, ...rows].join("\n"), { origin: "directory", today: TODAY });

const line = (over: Partial<PsapLine>): PsapLine => ({
  phone: "+13125550100",
  kind: "administrative",
  label: "Business line",
  source: "https://www.example.gov/911",
  checked_on: "2026-11-28",
  origin: "directory",
  ...over,
});

describe("a directory lines file", () => {
  it("keeps a row whose printed number and E.164 agree, with its kind, label, source and day", () => {
    const { rows, report } = read([
      '8927,IL,Southland,(708) 555-1234,+17085551234,dispatch,"Non-emergency, dispatch 24/7",https://www.example.gov,2026-11-28,"quote"',
    ]);
    expect(report.dropped).toEqual([]);
    expect(rows[0]).toMatchObject({
      psapId: "8927",
      state: "IL",
      value: {
        phone: "+17085551234",
        kind: "dispatch",
        label: "Non-emergency, dispatch 24/7",
        source: "https://www.example.gov",
        checked_on: "2026-11-28",
        origin: "directory",
      },
    });
  });

  it("reads numbers as pages print them: brackets, slashes, typographic dashes and keypad letters", () => {
    expect(asDialled("[719] 444.7000")).toBe(" 719  444.7000");
    expect(asDialled("815/748-8400")).toBe("815 748-8400");
    expect(asDialled("435–627–4300")).toBe("435-627-4300");
    expect(asDialled("505-242-COPS")).toBe("505-242-2677");
    expect(asDialled("612 624-COPS (2677)").replace(/\s+/g, " ").trim()).toBe("612 624-2677");
    const { rows } = read([
      "1,CO,A,[719] 444.7000,+17194447000,dispatch,Dispatch,https://x.gov,2026-11-28,",
      "2,NM,B,505-242-COPS,+15052422677,administrative,Business,https://x.gov,2026-11-28,",
    ]);
    expect(rows.map((r) => r.value.phone)).toEqual(["+17194447000", "+15052422677"]);
  });

  it("refuses a row it cannot check: numbers that disagree, an unknown kind, no source, a day in the future", () => {
    const { rows, report } = read([
      "1,IL,A,(708) 555-1234,+17085551235,dispatch,Dispatch,https://x.gov,2026-11-28,",
      "2,IL,A,(708) 555-1234,+17085551234,urgent,Dispatch,https://x.gov,2026-11-28,",
      "3,IL,A,(708) 555-1234,+17085551234,dispatch,Dispatch,,2026-11-28,",
      "4,IL,A,(708) 555-1234,+17085551234,dispatch,Dispatch,https://x.gov,2026-12-28,",
      "5,IL,A,555-1234,+17085551234,dispatch,Dispatch,https://x.gov,2026-11-28,",
      `6,IL,A,(708) 555-1234,+17085551234,dispatch,${"x".repeat(81)},https://x.gov,2026-11-28,`,
      "7,IL,A,(708) 555-1234,+17085551234,emergency,Alt 911,https://x.gov,2026-02-30,",
    ]);
    expect(rows).toEqual([]);
    expect(report.dropped.map((d) => d.line)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(report.dropped[0]?.reason).toMatch(/is not the printed number/);
    expect(report.dropped[1]?.reason).toMatch(/kind must be one of emergency, dispatch, administrative/);
    expect(report.dropped[2]?.reason).toMatch(/source is required/);
    expect(report.dropped[3]?.reason).toMatch(/not in the future/);
  });

  it("gives an operator's file the operator's origin", () => {
    const { rows } = readDirectoryLines(
      "mine.csv",
      `${HEADER}\n1,PR,A,(787) 555-0100,+17875550100,dispatch,Dispatch,Call to the centre,2026-11-01,`,
      { origin: "operator", today: TODAY },
    );
    expect(rows[0]?.value.origin).toBe("operator");
  });
});

describe("a centre's lines", () => {
  it("are listed most urgent first, the operator's before the directory's of a kind, one per number, at most 4", () => {
    const ordered = orderLines([
      line({ phone: "+1", kind: "administrative" }),
      line({ phone: "+2", kind: "dispatch" }),
      line({ phone: "+3", kind: "dispatch", origin: "operator" }),
      line({ phone: "+4", kind: "emergency" }),
      line({ phone: "+2", kind: "administrative" }),
      line({ phone: "+5", kind: "administrative" }),
    ]);
    expect(ordered.map((l) => `${l.phone} ${l.kind} ${l.origin}`)).toEqual([
      "+4 emergency directory",
      "+3 dispatch operator",
      "+2 dispatch directory",
      "+1 administrative directory",
    ]);
  });

  it("are given to their PSAP by the import; a row for a PSAP not in the import is dropped and reported", () => {
    const psaps = [
      { ...psap("A", 41, -87), state: "IL" },
      { ...psap("B", 41, -88), state: "IL" },
    ];
    const { rows, report } = read([
      "A,IL,A,(708) 555-1234,+17085551234,administrative,Business,https://x.gov,2026-11-28,",
      "A,IL,A,(708) 555-1299,+17085551299,dispatch,Dispatch,https://x.gov,2026-11-28,",
      "Z,IL,Z,(708) 555-1200,+17085551200,dispatch,Dispatch,https://x.gov,2026-11-28,",
    ]);
    const summary = attachLines(psaps, [{ rows, report }]);
    expect(psaps[0]).toMatchObject({ phone: "+17085551299", phone_kind: "dispatch" });
    expect(psaps[0]?.lines.map((l) => l.kind)).toEqual(["dispatch", "administrative"]);
    expect(psaps[1]?.lines).toEqual([]);
    expect(summary).toEqual({ rows: 2, psapsWithLines: 1, psapsWith24x7: 1 });
    expect(report.dropped).toEqual([{ line: 4, reason: "no PSAP with id Z in this import" }]);
  });

  it("are stale a year after they were read", () => {
    expect(isStale({ checked_on: "2025-11-28" }, TODAY)).toBe(false);
    expect(isStale({ checked_on: "2025-11-27" }, TODAY)).toBe(true);
  });
});

describe("land areas", () => {
  const square = (lon: number, lat: number) => [
    [
      [lon, lat],
      [lon + 1, lat],
      [lon + 1, lat + 1],
      [lon, lat + 1],
      [lon, lat],
    ],
  ];
  const tribal = {
    type: "FeatureCollection",
    features: [
      {
        type: "Feature",
        properties: {
          AIANNHCE: "1310",
          GEOID: "1310R",
          NAMELSAD: "Gila River Indian Reservation",
          MTFCC: "G2101",
        },
        geometry: { type: "Polygon", coordinates: square(-112, 33) },
      },
      {
        type: "Feature",
        properties: { AIANNHCE: "5550", GEOID: "5550R", NAMELSAD: "Cherokee OTSA", MTFCC: "G2140" },
        geometry: { type: "Polygon", coordinates: square(-95, 35.5) },
      },
    ],
  };
  const links = readAreaLinks(
    "areas.csv",
    [
      "psap_id,state,area_kind,area_id,area_name,source,checked_on,note",
      "435,AZ,tribal,1310R,Gila River Indian Reservation,https://x.org,2026-11-28,",
      "436,AZ,tribal,1310R,Gila River Indian Reservation,https://x.org,2026-11-28,",
      "900,OK,tribal,5550R,Cherokee OTSA,https://x.org,2026-11-28,",
      "441,AZ,park,GRCA,Grand Canyon National Park,https://x.org,2026-11-28,",
      "441,AZ,park,grand,Grand Canyon National Park,https://x.org,2026-11-28,",
    ].join("\n"),
    TODAY,
  );

  it("refuse a malformed area id at reading, and a link to a statistical area or to an area not read at import", () => {
    expect(links.report.dropped.map((d) => d.line)).toEqual([6]);
    const { areas } = readLandAreas("tribal.geojson", tribal);
    const psaps = ["435", "436", "900", "441"].map((id) => ({
      ...psap(id, 33.5, -111.5),
      state: id === "900" ? "OK" : "AZ",
    }));
    const built = landBoundaries(areas as LandArea[], [links], psaps);
    // One area for the reservation, with both linked centres: the nearer of them answers first.
    expect(built.areas).toHaveLength(1);
    expect(built.areas[0]).toMatchObject({
      kind: "boundary",
      id: "tribal:1310R",
      state: "AZ",
      psapIds: ["435", "436"],
    });
    const reasons = links.report.dropped.map((d) => d.reason);
    expect(reasons).toContain(
      "Cherokee OTSA is a statistical area (G2140): it says nothing of who answers 911",
    );
    expect(reasons).toContain("no National Park GRCA among the land areas of this import");
    expect(built.summary).toEqual({ read: 2, linked: 1, links: 2 });
  });
});

describe("the directory check of member rows", () => {
  it("takes a centre of another state only from a row that names that state in psap_state, and a field per column in every file", () => {
    const dir = mkdtempSync(join(tmpdir(), "directory-"));
    try {
      mkdirSync(join(dir, "lines"));
      writeFileSync(
        join(dir, "lines", "ND.csv"),
        `${HEADER}\n8028,ND,Red River,(701) 451-5555,+17014515555,administrative,Business,https://example.org/b,2026-11-28\n`,
      );
      mkdirSync(join(dir, "members"));
      writeFileSync(
        join(dir, "areas.csv"),
        "psap_id,state,area_kind,area_id,area_name,source,checked_on,note\n",
      );
      // 8028: Red River Regional Dispatch Center, Fargo ND, a current primary of the registry.
      writeFileSync(
        join(dir, "members", "MN.csv"),
        [
          "psap_id,state,county,municipality,geoid,source,checked_on,note,psap_state",
          "8028,MN,Clay,Moorhead,2743864,https://example.org/a,2026-11-28,across the state line,ND",
          "8028,MN,Clay,Dilworth,2715976,https://example.org/a,2026-11-28,no psap_state,",
          "8028,MN,Clay,Glyndon,2724182,https://example.org/a,2026-11-28,one field short",
          "",
        ].join("\n"),
      );
      const result = checkDirectory(dir, TODAY);
      expect(result.errors).toEqual([
        "lines/ND.csv:2: 9 fields, the header has 10",
        "members/MN.csv:4: 8 fields, the header has 9",
        "members/MN.csv:3: PSAP 8028 is in ND, not MN",
        "members/MN.csv:4: PSAP 8028 is in ND, not MN",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the shipped directory", () => {
  it("passes its own check: every row valid, sourced, dated, on a current primary PSAP of its state (a member row's psap_state when it has one)", () => {
    const result = checkDirectory();
    expect(result.errors).toEqual([]);
    expect(result.report[0]).toMatch(/^PSAP directory: \d+ lines, \d+ member rows, \d+ land areas linked$/);
  });
});

describe("the second-source reviews (data/directory/review)", () => {
  const dir = join(import.meta.dirname, "../../data/directory");
  const table = (...path: string[]) =>
    parseCsv(readFileSync(join(dir, ...path), "utf8"), { columns: true }) as Record<string, string>[];
  const lines = readdirSync(join(dir, "lines")).flatMap((n) => table("lines", n));
  const current = (psapId: string, e164: string) =>
    lines.find((l) => l.psap_id === psapId && l.e164 === e164);
  const members = readdirSync(join(dir, "members")).flatMap((n) => table("members", n));
  /** Runs `check` on every row of the review files whose name matches; there is at least one, none empty. */
  const eachReviewRow = (pattern: RegExp, check: (r: Record<string, string>, name: string) => void) => {
    const names = readdirSync(join(dir, "review")).filter((n) => pattern.test(n));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const rows = table("review", name);
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) check(r, name);
    }
  };

  it("exist, and every sampled row has an outcome, its second source, and a decision", () => {
    eachReviewRow(/^second-source-.*\.csv$/, (r) => {
      expect(["confirmed", "kind_weaker", "disagrees", "not_found"]).toContain(r.outcome);
      expect(["kept", "dropped", "lowered", "relabelled"]).toContain(r.decision);
      if (r.outcome !== "not_found") expect(r.second_source).toMatch(/^https?:\/\//);
      expect(r.checked_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    });
  });

  it("have been carried out: a dropped line is gone, a lowered one is a business line", () => {
    eachReviewRow(/^second-source-.*\.csv$/, (r) => {
      const now = current(r.psap_id as string, r.e164 as string);
      if (r.decision === "dropped") expect(now, `${r.psap_id} ${r.e164}`).toBeUndefined();
      else expect(now, `${r.psap_id} ${r.e164}`).toBeDefined();
      if (r.decision === "lowered") expect(now?.kind).toBe("administrative");
      // A review never raises a kind: what it kept is at most what it read.
      if (r.decision === "kept" && r.kind === "administrative") expect(now?.kind).toBe("administrative");
    });
  });

  it("record the member-row reviews: an outcome and a decision per sampled row, carried out in the member files", () => {
    eachReviewRow(/^members-second-source-.*\.csv$/, (r, name) => {
      expect(["confirmed", "weak", "disagrees", "not_found"]).toContain(r.outcome);
      expect(["kept", "dropped"]).toContain(r.decision);
      if (r.outcome !== "not_found")
        expect(r.second_source, `${r.psap_id} ${r.municipality}`).toMatch(/^https?:\/\//);
      expect(r.checked_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const still = members.some(
        (m) => m.psap_id === r.psap_id && m.geoid === r.geoid && m.state === r.state,
      );
      expect(still, `${name}: ${r.psap_id} ${r.municipality} (${r.decision})`).toBe(r.decision === "kept");
    });
  });

  it("record the re-checks of old member rows: a newer page applied is the row's source now, a row kept is still there", () => {
    eachReviewRow(/^members-recheck-.*\.csv$/, (r, name) => {
      const what = `${name}: ${r.psap_id} ${r.municipality}`;
      expect(["resourced", "contradicted", "nothing"]).toContain(r.outcome);
      expect(["applied", "not_used", "kept", "dropped"]).toContain(r.decision);
      // Only a newer page can be applied or set aside; a row found nothing newer for stays as it was.
      if (r.decision === "applied" || r.decision === "not_used") expect(r.outcome, what).toBe("resourced");
      if (r.outcome !== "nothing") {
        expect(r.new_source, what).toMatch(/^https?:\/\//);
        expect(r.new_date, what).toMatch(/^\d{4}(-\d{2}){0,2}$/);
        expect(Number(r.new_date?.slice(0, 4)), what).toBeGreaterThanOrEqual(2018);
      }
      const row = members.find((m) => m.psap_id === r.psap_id && m.geoid === r.geoid && m.state === r.state);
      if (r.decision === "dropped") expect(row, what).toBeUndefined();
      else expect(row, what).toBeDefined();
      if (r.decision === "applied") expect(row?.source, what).toBe(r.new_source);
      if (r.decision === "not_used") expect(row?.source, what).not.toBe(r.new_source);
    });
  });

  it("record independent samples: each centre's outcome follows from what was found and what the directory had", () => {
    eachReviewRow(/^independent-sample-.*\.csv$/, (r, name) => {
      const found = r.found === "yes";
      const ours = (r.ours_before ?? "").split(" ").filter(Boolean);
      const expected = found
        ? ours.length === 0
          ? "theirs_only"
          : ours.some((o) => o.startsWith(`${r.e164}:`))
            ? "match"
            : "no_match"
        : ours.length === 0
          ? "neither"
          : "ours_only";
      expect(r.outcome, `${name} ${r.psap_id}`).toBe(expected);
      if (found) expect(r.source).toMatch(/^https?:\/\//);
    });
  });
});
