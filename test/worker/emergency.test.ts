// The country library and the emergency table inside workerd: the bundled borders load and answer there.
import { describe, expect, it } from "vitest";
import { emergencyNumbersFor, locateCountry, withinReachOfUs } from "../../src/emergency/index.ts";

describe("country and emergency numbers inside the Workers runtime", () => {
  it("codes San Juan as the US with state PR, and gives 911 first", () => {
    const location = locateCountry(18.4655, -66.1057);
    expect(location).toEqual({ country: "US", state: "PR" });
    expect(emergencyNumbersFor(location.country, location.state).numbers[0]).toEqual({
      number: "911",
      service: "all",
    });
  });

  it("gives a patient in London 999 then 112, and one at sea 112 then 911", () => {
    const london = locateCountry(51.5072, -0.1276);
    expect(london).toEqual({ country: "GB", state: null });
    expect(
      emergencyNumbersFor(london.country)
        .numbers.slice(0, 2)
        .map((n) => n.number),
    ).toEqual(["999", "112"]);
    const sea = locateCountry(30, -40);
    expect(emergencyNumbersFor(sea.country, sea.state)).toEqual({
      country: null,
      numbers: [
        { number: "112", service: "all" },
        { number: "911", service: "all" },
      ],
    });
  });

  it("keeps a Toronto fix away from US PSAPs, and lets a wide fix in Windsor reach Detroit's", () => {
    expect(withinReachOfUs(43.6532, -79.3832, 100)).toBe(false);
    expect(withinReachOfUs(42.3149, -83.0364, 2_500)).toBe(true);
  });
});
