// The LoST part of the bench (issue 31's latency goal) without a server: what it sends is what the service
// reads, how it reads and compares the two answers, how it spreads requests under the rate limits, how
// its figures are shaped, and how the goal and the README are decided from them.
import { describe, expect, it } from "vitest";
import { checkGoals, lostGoal } from "../../bench/goals.ts";
import { type LostTally, lostDetail, lostResult, sendersFor } from "../../bench/lost.ts";
import { disagreement, findServiceXml, readLostAnswer, readSessionAnswer } from "../../bench/lost-answers.ts";
import { performanceMarkdown } from "../../bench/readme.ts";
import { type BenchResults, type LostResult, resultsShapeProblems } from "../../bench/results.ts";
import type { PsapRecord } from "../../sdk/src/protocol.ts";
import { LostError, readFindService } from "../../src/lost/request.ts";
import { errorsResponse, findServiceResponse } from "../../src/lost/response.ts";
import { SAMPLE } from "../support/bench-sample.ts";

const FIX = { latitude: 41.8819, longitude: -87.6278, accuracy: 35 };

function lostAnswerFor(displayName: string): string {
  return findServiceResponse({
    source: "sos.localhost",
    locationId: "point-0",
    mapping: {
      displayName,
      service: "urn:service:sos",
      uris: ["tel:+13125550100"],
      serviceNumber: "911",
      expires: "2026-11-27T00:00:30.000Z",
      lastUpdated: "2026-11-20T00:00:00.000Z",
      sourceId: "psap-1-0000abcd",
    },
  });
}

const psap = (name: string, state: string) => ({ name, state }) as PsapRecord;

function tally(over: Partial<LostTally> = {}): LostTally {
  return {
    planned: 4,
    lostMs: [4, 6, 5, 30],
    sessionMs: [5, 4, 4.5, 20],
    agreed: 4,
    agreedNone: 1,
    disagreements: [],
    failed: 0,
    errors: [],
    ...over,
  };
}

const withLost = (over: Partial<LostResult>): BenchResults => ({
  ...SAMPLE,
  lost: { ...(SAMPLE.lost as LostResult), ...over },
});

describe("what the LoST part sends and reads", () => {
  it("sends a findService the service reads as the fix itself: a Point, accuracy 0, urn:service:sos", () => {
    const request = readFindService(findServiceXml(FIX, "point-7"));
    expect(request.fix).toMatchObject({ latitude: FIX.latitude, longitude: FIX.longitude, accuracy: 0 });
    expect(request).toMatchObject({ locationId: "point-7", service: "urn:service:sos", kind: "sos" });
    expect(() => findServiceXml(FIX, 'x" evil="1')).toThrow(RangeError);
  });

  it("reads the PSAP a LoST answer names, or its error, and refuses what is neither", () => {
    expect(readLostAnswer(lostAnswerFor("Chicago OEMC (IL)"))).toEqual({ psap: "Chicago OEMC (IL)" });
    const notFound = errorsResponse("sos.localhost", new LostError("notFound", "no PSAP answers here"));
    expect(readLostAnswer(notFound)).toEqual({ error: "notFound" });
    expect(() => readLostAnswer("<findServiceResponse/>")).toThrow(/not a LoST answer/);
    expect(() => readLostAnswer(lostAnswerFor("x").replace("</findServiceResponse>", ""))).toThrow();
  });

  it("agrees only on the same PSAP as `name (state)`, or on LoST notFound where the session is outside coverage", () => {
    const first = readSessionAnswer({ psaps: [psap("Chicago OEMC", "IL"), psap("Cook County", "IL")] });
    expect(first).toEqual({ psap: "Chicago OEMC (IL)" });
    expect(disagreement({ psap: "Chicago OEMC (IL)" }, first)).toBeNull();
    // The second PSAP, or the right name in another state, is a disagreement.
    expect(disagreement({ psap: "Cook County (IL)" }, first)).toBe(
      'LoST "Cook County (IL)", session "Chicago OEMC (IL)"',
    );
    expect(disagreement({ psap: "Chicago OEMC (IN)" }, first)).not.toBeNull();
    const outside = readSessionAnswer({ psaps: [], reason: "outside_coverage" });
    expect(disagreement({ error: "notFound" }, outside)).toBeNull();
    // A failure of ours is never "no PSAP here": internalError does not agree with an empty answer.
    expect(disagreement({ error: "internalError" }, outside)).toBe(
      "LoST internalError, session none (outside_coverage)",
    );
    expect(disagreement({ error: "notFound" }, first)).toBe('LoST notFound, session "Chicago OEMC (IL)"');
    expect(disagreement({ psap: "Chicago OEMC (IL)" }, outside)).toContain("session none");
  });
});

describe("how the LoST part spreads its requests", () => {
  it("gives each key or session at most its limit over the whole part, points dealt round-robin", () => {
    for (const [points, perPoint, limit] of [
      [500, 2, 600],
      [2_000, 2, 600],
      [500, 2, 30],
      [2_000, 2, 30],
      [15, 2, 30],
      [16, 2, 30],
      [1, 2, 30],
    ] as const) {
      const senders = sendersFor(points, perPoint, limit);
      const busiest = Math.ceil(points / senders) * perPoint;
      expect(busiest, `${points} points`).toBeLessThanOrEqual(limit);
      // And no more senders than that needs.
      if (senders > 1) expect(Math.ceil(points / (senders - 1)) * perPoint).toBeGreaterThan(limit);
    }
    expect(sendersFor(2_000, 2, 30)).toBe(134);
    expect(() => sendersFor(10, 31, 30)).toThrow(RangeError);
  });
});

describe("the LoST part's figures", () => {
  it("are the timed samples' nearest-rank percentiles, with the counts of the checks", () => {
    const r = lostResult(tally({ lostMs: [4, 6, 5, 30.123], sessionMs: [5, 4, 4.5, 20] }));
    expect(r).toEqual({
      points: 4,
      lost_ms_p50: 5,
      lost_ms_p95: 30.12,
      lost_ms_p99: 30.12,
      session_ms_p50: 4.5,
      session_ms_p95: 20,
      session_ms_p99: 20,
      agreed: 4,
      disagreements: 0,
      failed: 0,
    });
    expect(resultsShapeProblems({ ...SAMPLE, lost: r })).toEqual([]);
    const detail = lostDetail(tally(), { keys: 2, sessions: 34 });
    expect(detail).toMatchObject({ planned_points: 4, keys: 2, sessions: 34, agreed_none: 1 });
    expect(detail.ratio_p50).toBe(1.111);
    expect(detail.ratio_p99).toBe(1.5);
  });

  it("fit latest.json's shape when present, and may be absent (runs before the part)", () => {
    expect(resultsShapeProblems(SAMPLE)).toEqual([]);
    const { lost: _lost, ...before } = SAMPLE;
    expect(resultsShapeProblems(before)).toEqual([]);
    const extra = { ...SAMPLE, lost: { ...SAMPLE.lost, ratio: 1.1 } };
    expect(resultsShapeProblems(extra)).toContain("lost.ratio: not in the issue's shape");
    const { failed: _failed, ...short } = SAMPLE.lost as LostResult;
    expect(resultsShapeProblems({ ...SAMPLE, lost: short })).toContain("lost.failed: missing");
    const empty = JSON.parse(JSON.stringify(lostResult(tally({ lostMs: [], sessionMs: [] }))));
    expect(resultsShapeProblems({ ...SAMPLE, lost: empty })).toContain("lost.lost_ms_p50: wrong type");
  });
});

describe("the LoST goal", () => {
  it("is met within 1.5× at p50 with every answer agreed, and says the figures it was decided on", () => {
    const goal = lostGoal(SAMPLE);
    expect(goal).toMatchObject({ id: "lost-p50", met: true });
    expect(goal.goal).toBe("LoST: p50 within 1.5× of the session location POST for the same fix (same run)");
    expect(goal.figure).toBe(
      "6.2 ms vs 5.6 ms (1.11×); p99 14.5 ms vs 13.2 ms (1.1×); 500 of 500 answers agreed",
    );
    expect(checkGoals(SAMPLE).map((g) => g.id)).toContain("lost-p50");
  });

  it("is not met just over its bound, printed so it cannot read as the bound", () => {
    const over = lostGoal(withLost({ lost_ms_p50: 8.46, session_ms_p50: 5.6 }));
    expect(over.met).toBe(false);
    expect(over.figure).toContain("(1.51×)");
    expect(lostGoal(withLost({ lost_ms_p50: 7.5, session_ms_p50: 5 })).met).toBe(true);
    expect(lostGoal(withLost({ lost_ms_p50: 7.51, session_ms_p50: 5 })).met).toBe(false);
  });

  it("is not met when any answer disagreed or a point failed, however fast LoST was", () => {
    const differs = lostGoal(withLost({ lost_ms_p50: 1, agreed: 499, disagreements: 1 }));
    expect(differs.met).toBe(false);
    expect(differs.figure).toContain("499 of 500 answers agreed, **1 disagreed**");
    const failed = lostGoal(withLost({ points: 498, agreed: 498, failed: 2 }));
    expect(failed.met).toBe(false);
    expect(failed.figure).toContain("**2 points failed**");
    expect(lostGoal(withLost({ points: 0, agreed: 0 })).met).toBe(false);
  });

  it("is not measured in a run without the part", () => {
    const { lost: _lost, ...before } = SAMPLE;
    expect(lostGoal(before)).toMatchObject({ met: null });
  });
});

describe("the LoST part of the README", () => {
  const section = (md: string) =>
    md.slice(md.indexOf("### LoST beside the session API"), md.indexOf("### Load"));

  it("has the figures and ratios of latest.json, and the spread of the requests from the detail", () => {
    const md = section(performanceMarkdown(SAMPLE, [], { lost: { keys: 2, sessions: 34, agreed_none: 37 } }));
    expect(md).toContain("`POST /lost`");
    const row = md.split("\n").find((l) => l.startsWith("| 500"));
    expect(row?.split("|").map((c) => c.trim())).toEqual([
      "",
      "500",
      "6.2",
      "9.8",
      "14.5",
      "5.6",
      "9.1",
      "13.2",
      "1.11×",
      "1.1×",
      "500 of 500",
      "",
    ]);
    expect(md).toContain(
      "over 2 API keys, the location posts over 34 sessions; at 37 of the points both found no PSAP",
    );
    expect(md).toContain("Every timed answer agreed.");
  });

  it("says a disagreement or failure fails the goal, and says so when the part never ran", () => {
    const bad = section(performanceMarkdown(withLost({ agreed: 497, disagreements: 3 }), []));
    expect(bad).toContain("**3 points answered differently** (see latest-detail.json): the goal is not met.");
    expect(bad).not.toContain("Every timed answer agreed");
    const { lost: _lost, ...before } = SAMPLE;
    expect(section(performanceMarkdown(before, []))).toContain("Not measured yet");
  });
});
