// The demo pages' plain-words formatting (public/demo/format.js): what a counselor reads and copies.
import { describe, expect, it } from "vitest";
import type { PsapArea, PsapRecord, ReportedLocation } from "../../sdk/src/protocol.ts";

interface Format {
  nationalPhone(e164: string | null): string;
  telHref(number: string): string;
  firstNumber(emergency: unknown): string;
  countyLabel(county: string | null, state: string | null): string;
  whyChosen(psap: PsapRecord, area: PsapArea): string;
  placeLine(area: PsapArea): string;
  coordinatesLine(location: ReportedLocation): string;
  dispatcherText(
    result: { area: PsapArea; location: ReportedLocation; psaps: PsapRecord[] } | null,
    address: string | null,
    now?: Date,
  ): string;
}

// A plain .js module served as it is: loaded by path so the type checker does not look for typings.
const path = "../../public/demo/format.js";
const f = (await import(path)) as Format;

const PSAP: PsapRecord = {
  id: "8927",
  name: "Southland Dispatch Center",
  type: "primary",
  state: "IL",
  county: "Cook",
  city: "Hazel Crest",
  phone: "+17085551234",
  phone_kind: "emergency",
  jurisdiction: "regional",
  handled_by: null,
  latitude: 41.57,
  longitude: -87.69,
  location_precision: "city",
  distance_km: 0.5,
  match: "city",
};
const AREA: PsapArea = {
  country: "US",
  state: "IL",
  county: "Cook",
  place: "Hazel Crest",
  place_kind: "city",
};

describe("demo page formatting", () => {
  it("shows North American numbers in national format and dials E.164", () => {
    expect(f.nationalPhone("+17085551234")).toBe("(708) 555-1234");
    expect(f.nationalPhone("+442079460000")).toBe("+442079460000");
    expect(f.telHref("+17085551234")).toBe("tel:+17085551234");
    expect(f.telHref("116 123")).toBe("tel:116123");
  });

  it("dials 911 until the service says otherwise", () => {
    expect(f.firstNumber(undefined)).toBe("911");
    expect(f.firstNumber({ country: "GB", numbers: [{ number: "999", service: "all" }] })).toBe("999");
  });

  it("names counties, parishes and county-equivalents as a dispatcher would", () => {
    expect(f.countyLabel("Cook", "IL")).toBe("Cook County");
    expect(f.countyLabel("Orleans", "LA")).toBe("Orleans Parish");
    expect(f.countyLabel("Baltimore city", "MD")).toBe("Baltimore city");
    expect(f.countyLabel(null, "IL")).toBe("");
  });

  it("says why a centre was chosen, for every kind of match", () => {
    expect(f.whyChosen(PSAP, AREA)).toBe(
      "It answers 911 calls inside the city limits of Hazel Crest, where the patient is.",
    );
    expect(
      f.whyChosen({ ...PSAP, match: "county" }, { ...AREA, place: "Lisle", place_kind: "community" }),
    ).toBe("It answers 911 calls for Cook County, where the patient is (Lisle is unincorporated).");
    expect(f.whyChosen({ ...PSAP, match: "boundary" }, AREA)).toMatch(/service area contains/);
    expect(f.whyChosen({ ...PSAP, match: "nearest", distance_km: 12.34 }, AREA)).toMatch(
      /nearest one \(12\.3 km\)/,
    );
  });

  it("describes the place and the fix in words", () => {
    expect(f.placeLine(AREA)).toBe("Hazel Crest (city), Cook County, IL, US");
    expect(f.placeLine({ ...AREA, place: "Lisle", place_kind: "community" })).toBe(
      "Lisle (unincorporated community), Cook County, IL, US",
    );
    expect(f.placeLine({ country: "GB", state: null, county: null, place: null, place_kind: null })).toBe(
      "United Kingdom (GB)",
    );
    expect(f.coordinatesLine({ latitude: 41.5725, longitude: -87.6945, accuracy: 24.6 })).toBe(
      "41.57250, -87.69450 (±25 m)",
    );
  });

  it("copies a dispatcher-ready text: where, GPS, address on file, the answering centre", () => {
    const text = f.dispatcherText(
      { area: AREA, location: { latitude: 41.5725, longitude: -87.6945, accuracy: 25 }, psaps: [PSAP] },
      "17000 S Kedzie Ave, Hazel Crest, IL 60429",
      new Date("2026-11-25T04:30:00Z"),
    );
    expect(text.split("\n")).toEqual([
      "Patient location (telehealth SOS, 2026-11-25 04:30 UTC)",
      "Where: Hazel Crest (city), Cook County, IL, US",
      "GPS: 41.57250, -87.69450 (latitude, longitude, accuracy ±25 m)",
      "Address on file: 17000 S Kedzie Ave, Hazel Crest, IL 60429",
      "Answering 911 centre: Southland Dispatch Center (Hazel Crest, IL, (708) 555-1234)",
    ]);
    expect(f.dispatcherText(null, null)).toMatch(/Address on file: none$/);
  });
});
