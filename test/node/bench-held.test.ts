// The location URI part of the bench (issue 37's latency goal) without a server: how it tells that a
// dereference gave the fix back, how its figures are shaped, and how the goal and the README are decided
// from them.
import { describe, expect, it } from "vitest";
import { checkGoals, heldGoal } from "../../bench/goals.ts";
import { type HeldTally, heldDetail, heldResult, holdsFix } from "../../bench/held.ts";
import { performanceMarkdown } from "../../bench/readme.ts";
import { type BenchResults, type HeldResult, resultsShapeProblems } from "../../bench/results.ts";
import { locationResponse, pidfDocument } from "../../src/held/response.ts";
import { SAMPLE } from "../support/bench-sample.ts";

const FIX = { latitude: 41.881932, longitude: -87.627801 };
const META = {
  uriId: "luri_AAAAAAAAAAAAAAAAAAAAAA",
  host: "127.0.0.1",
  expiresAt: Date.UTC(2026, 10, 28, 13),
};

function tally(over: Partial<HeldTally> = {}): HeldTally {
  return {
    planned: 4,
    derefMs: [5, 6, 5.5, 30],
    readMs: [4, 5, 4.5, 20],
    lostMs: [6, 7, 6.5, 25],
    located: 4,
    failed: 0,
    errors: [],
    ...over,
  };
}

const withHeld = (over: Partial<HeldResult>): BenchResults => ({
  ...SAMPLE,
  held: { ...(SAMPLE.held as HeldResult), ...over },
});

describe("what the location URI part reads", () => {
  it("counts a dereference as giving the fix back only when its locationResponse holds exactly that fix", () => {
    const at = Date.UTC(2026, 10, 28, 12);
    expect(holdsFix(locationResponse({ ...FIX, accuracy: null, at }, META), FIX)).toBe(true);
    expect(holdsFix(locationResponse({ ...FIX, latitude: 41.881933, accuracy: null, at }, META), FIX)).toBe(
      false,
    );
    // The PIDF-LO alone is what a GET answers: the part posts, and reads a locationResponse.
    expect(holdsFix(pidfDocument({ ...FIX, accuracy: null, at }, META), FIX)).toBe(false);
  });
});

describe("the part's figures", () => {
  it("are percentiles of the timed requests, with the fixes given back and the failures", () => {
    const r = heldResult(tally());
    expect(r).toMatchObject({
      points: 4,
      located: 4,
      failed: 0,
      deref_ms_p50: 5.5,
      read_ms_p50: 4.5,
      lost_ms_p50: 6.5,
    });
    expect(resultsShapeProblems({ ...SAMPLE, held: r })).toEqual([]);
    expect(heldDetail(tally(), 3)).toMatchObject({ keys: 3, ratio_read_p50: 1.222, ratio_lost_p50: 0.846 });
    const { located: _located, ...short } = SAMPLE.held as HeldResult;
    expect(resultsShapeProblems({ ...SAMPLE, held: short })).toContain("held.located: missing");
  });
});

describe("the goal", () => {
  it("is met with the dereference's p50 within 1.5× of a session read's and every fix given back", () => {
    const goal = heldGoal(SAMPLE);
    expect(goal).toMatchObject({ id: "held-p50", met: true });
    expect(goal.figure).toBe(
      "7.4 ms vs 6.8 ms (1.09×); LoST for the same fix 8.1 ms (0.91×); 300 of 300 gave the fix back",
    );
    expect(checkGoals(SAMPLE).map((g) => g.id)).toContain("held-p50");
  });

  it("is not met past 1.5×, nor when a fix did not come back or a point failed, however fast", () => {
    expect(heldGoal(withHeld({ deref_ms_p50: 10.3 })).met).toBe(false);
    expect(heldGoal(withHeld({ located: 299 })).met).toBe(false);
    const failed = heldGoal(withHeld({ failed: 1 }));
    expect(failed.met).toBe(false);
    expect(failed.figure).toContain("**1 points failed**");
    const { held: _held, ...none } = SAMPLE;
    expect(heldGoal(none).met).toBeNull();
  });

  it("puts the part in the README with its three kinds side by side", () => {
    const md = performanceMarkdown(SAMPLE, []);
    const section = md.slice(md.indexOf("### Location URIs"));
    expect(section).toContain("| 300    | 7.4");
    expect(section).toContain("Every point was answered.");
    const { held: _held, ...none } = SAMPLE;
    expect(performanceMarkdown(none, [])).toContain("Not measured yet: `npm run bench -- --only held`.");
  });
});
