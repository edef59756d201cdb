// The console map's markers: at one spot (a city's registry point holds several centres: Boston,
// Anchorage) they are spread so each stays readable, and none hides the patient's dot.
import { describe, expect, it } from "vitest";

interface Marker {
  rank: number;
  x: number;
  y: number;
  atX: number;
  atY: number;
}
const path = "../../public/demo/map.js";
const { spreadMarkers } = (await import(path)) as {
  spreadMarkers(
    points: { rank: number; x: number; y: number }[],
    patient: { x: number; y: number },
  ): Marker[];
};

/** Marker radius in map.js: two marker centres closer than twice it overlap. */
const R = 9;
const FAR = { x: 300, y: 200 };

describe("spreadMarkers", () => {
  it("spreads markers at one spot around it, the first at the top, none over another", () => {
    const spot = { x: 100, y: 100 };
    const out = spreadMarkers(
      [0, 1, 2, 3].map((rank) => ({ rank, ...spot })),
      FAR,
    );
    expect(out.map((m) => m.rank)).toEqual([0, 1, 2, 3]);
    for (const m of out) expect([m.atX, m.atY]).toEqual([100, 100]);
    for (const a of out)
      for (const b of out)
        if (a !== b) expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeGreaterThanOrEqual(2 * R);
    const first = out[0] as Marker;
    expect(first.x).toBeCloseTo(100);
    expect(first.y).toBeLessThan(100);
  });

  it("leaves a lone marker where it is, and moves one off the patient's dot", () => {
    expect(spreadMarkers([{ rank: 0, x: 50, y: 50 }], FAR)).toEqual([
      { rank: 0, x: 50, y: 50, atX: 50, atY: 50 },
    ]);
    const [moved] = spreadMarkers([{ rank: 0, x: 50, y: 50 }], { x: 52, y: 51 });
    expect(Math.hypot((moved?.x ?? 0) - 52, (moved?.y ?? 0) - 51)).toBeGreaterThanOrEqual(R + 6);
    expect([moved?.atX, moved?.atY]).toEqual([50, 50]);
  });

  it("pushes apart neighbouring groups that would touch", () => {
    const points = [
      ...[0, 1, 2].map((rank) => ({ rank, x: 100, y: 100 })),
      ...[3, 4].map((rank) => ({ rank, x: 125, y: 100 })),
    ];
    const out = spreadMarkers(points, FAR);
    for (const a of out)
      for (const b of out)
        if (a !== b)
          expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeGreaterThanOrEqual(
            (a.rank === 0 || b.rank === 0 ? 2 : 0) + 2 * R,
          );
  });

  it("keeps the patient's dot clear of a group around it", () => {
    const out = spreadMarkers(
      [0, 1].map((rank) => ({ rank, x: 10, y: 10 })),
      { x: 10, y: 10 },
    );
    for (const m of out) expect(Math.hypot(m.x - 10, m.y - 10)).toBeGreaterThanOrEqual(2 * R);
  });
});
