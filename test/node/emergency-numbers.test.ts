// The emergency number table: every ISO 3166-1 country and territory has numbers, in the order to dial them.
import { borders } from "@rapideditor/country-coder";
import countries from "i18n-iso-countries";
import { describe, expect, it } from "vitest";
import { EMERGENCY_NUMBERS, emergencyNumbersFor, FALLBACK_NUMBERS } from "../../src/emergency/index.ts";

/** The ISO 3166-1 alpha-2 codes from two independent lists: i18n-iso-countries and the country library's own. */
const isoCodes = Object.keys(countries.getAlpha2Codes());
const libraryCodes = borders.features
  .filter((f) => f.properties.isoStatus === "official" || f.properties.isoStatus === "usrAssn")
  .map((f) => f.properties.iso1A2)
  .filter((code): code is string => code !== undefined);

const numbersOf = (country: string | null, state: string | null = null) =>
  emergencyNumbersFor(country, state).numbers.map((n) => n.number);
const withoutCrisis = (country: string) =>
  emergencyNumbersFor(country)
    .numbers.filter((n) => n.service !== "crisis")
    .map((n) => n.number);

describe("the table covers every country and territory", () => {
  it("has a row for every ISO 3166-1 alpha-2 code and for every code the country library can return", () => {
    expect(isoCodes.length).toBeGreaterThanOrEqual(249);
    expect(libraryCodes.length).toBeGreaterThanOrEqual(250);
    const missing = [...new Set([...isoCodes, ...libraryCodes])].filter((c) => !(c in EMERGENCY_NUMBERS));
    expect(missing).toEqual([]);
  });

  it("has no row for a code that is not a country or territory", () => {
    const known = new Set([...isoCodes, ...libraryCodes]);
    expect(Object.keys(EMERGENCY_NUMBERS).filter((c) => !known.has(c))).toEqual([]);
  });

  it("gives every country at least one number to dial that is not a crisis line", () => {
    for (const [country, numbers] of Object.entries(EMERGENCY_NUMBERS)) {
      expect(numbers.filter((n) => n.service !== "crisis").length, country).toBeGreaterThan(0);
    }
  });

  it("writes every number as dialled: digits, single spaces between groups", () => {
    for (const [country, numbers] of Object.entries(EMERGENCY_NUMBERS)) {
      for (const n of numbers) expect(n.number, country).toMatch(/^[0-9]+( [0-9]+)*$/);
    }
  });

  it("puts the general number first, or the police where a country has none (the documented rule)", () => {
    const exceptions = Object.entries(EMERGENCY_NUMBERS)
      .filter(([, numbers]) => !["all", "police"].includes(numbers[0]?.service ?? ""))
      .map(([country]) => country);
    expect(exceptions).toEqual([]);
  });

  it("lists a crisis line at most once, and last", () => {
    for (const [country, numbers] of Object.entries(EMERGENCY_NUMBERS)) {
      const crisis = numbers.findIndex((n) => n.service === "crisis");
      if (crisis >= 0) expect(crisis, country).toBe(numbers.length - 1);
    }
  });

  it("never lists the same number twice for a country", () => {
    for (const [country, numbers] of Object.entries(EMERGENCY_NUMBERS)) {
      const digits = numbers.map((n) => n.number);
      expect(new Set(digits).size, country).toBe(digits.length);
    }
  });
});

describe("the contract's examples", () => {
  it("US: 911 for everything, then 988", () => {
    expect(emergencyNumbersFor("US")).toEqual({
      country: "US",
      numbers: [
        { number: "911", service: "all" },
        { number: "988", service: "crisis" },
      ],
    });
  });

  it("GB: 999 then 112; FR: 112, 15, 17, 18; AU: 000 first; JP: 110 and 119", () => {
    expect(withoutCrisis("GB")).toEqual(["999", "112"]);
    expect(withoutCrisis("FR")).toEqual(["112", "15", "17", "18"]);
    expect(numbersOf("AU")[0]).toBe("000");
    expect(withoutCrisis("JP")).toEqual(["110", "119"]);
  });

  it("Puerto Rico, as the US with state PR: 911 first", () => {
    expect(emergencyNumbersFor("US", "PR")).toEqual({
      country: "US",
      numbers: [
        { number: "911", service: "all" },
        { number: "988", service: "crisis" },
      ],
    });
    expect(numbersOf("PR")[0]).toBe("911");
  });

  it("names the services the way the brief's examples do", () => {
    expect(
      emergencyNumbersFor("FR")
        .numbers.slice(0, 4)
        .map((n) => n.service),
    ).toEqual(["all", "ambulance", "police", "fire"]);
    expect(emergencyNumbersFor("JP").numbers.map((n) => n.service)).toEqual(["police", "ambulance"]);
    expect(
      emergencyNumbersFor("CN")
        .numbers.slice(0, 3)
        .map((n) => n.number),
    ).toEqual(["110", "120", "119"]);
    expect(
      emergencyNumbersFor("BR")
        .numbers.slice(0, 3)
        .map((n) => n.number),
    ).toEqual(["190", "192", "193"]);
  });
});

describe("lookups the PSAP lookup makes", () => {
  it("gives 112 then 911 when the country is unknown (at sea)", () => {
    expect(emergencyNumbersFor(null)).toEqual({
      country: null,
      numbers: [
        { number: "112", service: "all" },
        { number: "911", service: "all" },
      ],
    });
    expect(FALLBACK_NUMBERS.map((n) => n.number)).toEqual(["112", "911"]);
  });

  it("ignores a US state code that is also a country code (California is not Canada, Indiana not India)", () => {
    expect(numbersOf("US", "CA")).toEqual(["911", "988"]);
    expect(numbersOf("US", "IN")).toEqual(["911", "988"]);
    expect(numbersOf("US", "GA")).toEqual(["911", "988"]);
  });

  it("uses each US territory's own row", () => {
    for (const territory of ["PR", "GU", "VI", "AS", "MP", "UM"]) {
      expect(emergencyNumbersFor("US", territory).numbers, territory).toEqual(
        EMERGENCY_NUMBERS[territory]?.map((n) => ({ ...n })),
      );
    }
  });

  it("hands out copies: a caller changing its answer cannot change the table", () => {
    const answer = emergencyNumbersFor("DE");
    const first = answer.numbers[0];
    if (first) first.number = "000";
    answer.numbers.pop();
    expect(numbersOf("DE")).toEqual(["112", "110", "0800 111 0 111"]);
  });

  it("falls back to 112 and 911 for a code the table does not know, keeping the code", () => {
    expect(emergencyNumbersFor("ZZ")).toEqual({
      country: "ZZ",
      numbers: FALLBACK_NUMBERS.map((n) => ({ ...n })),
    });
    expect(numbersOf("constructor")).toEqual(["112", "911"]);
  });
});
