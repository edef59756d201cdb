// A places file keyed by name: the Census Bureau's files hold many places that share a name with another
// of their state, so a big file where none do has lost some cities, and the import says so.
import { describe, expect, it } from "vitest";
import type { Place } from "../../data/import/model.ts";
import { onePlacePerName, SAME_NAME_CHECK_MIN_PLACES } from "../../data/import/read-places.ts";

function place(i: number, state: string, name: string): Place {
  const x = -100 + (i % 100) * 0.01;
  const y = 40 + Math.floor(i / 100) * 0.01;
  return {
    geoid: String(1_000_000 + i),
    state,
    name,
    nameLsad: `${name} city`,
    kind: "city",
    incorporated: true,
    countyFips: null,
    rings: [
      [
        [x, y],
        [x + 0.005, y],
        [x + 0.005, y + 0.005],
        [x, y],
      ],
    ],
    interior: [x + 0.002, y + 0.001],
  };
}

const many = (n: number) => Array.from({ length: n }, (_, i) => place(i, "TX", `Place ${i}`));

describe("a places file with one place per state and name", () => {
  it("is noted when it is big enough that the Census would have repeated names", () => {
    const note = onePlacePerName(many(SAME_NAME_CHECK_MIN_PLACES));
    expect(note).toMatch(/share a name/);
    expect(note).toMatch(/may be missing/);
  });

  it("is not noted when two places of a state share a name (a city and a CDP)", () => {
    const places = many(SAME_NAME_CHECK_MIN_PLACES);
    places.push(place(5_000, "TX", "Place 7"));
    expect(onePlacePerName(places)).toBeNull();
  });

  it("is still noted when the shared name is in two different states (the check is per state)", () => {
    const places = many(SAME_NAME_CHECK_MIN_PLACES);
    places.push(place(5_000, "OK", "Place 7"));
    expect(onePlacePerName(places)).toMatch(/share a name/);
  });

  it("is not noted for a small file (one state's few places can all differ)", () => {
    expect(onePlacePerName(many(SAME_NAME_CHECK_MIN_PLACES - 1))).toBeNull();
  });
});
