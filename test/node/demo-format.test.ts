// The demo pages' plain-words formatting (public/demo/format.js): what a counselor reads and copies.
import { describe, expect, it } from "vitest";
import type { PsapArea, PsapLine, PsapRecord, ReportedLocation } from "../../sdk/src/protocol.ts";

interface Format {
  nationalPhone(e164: string | null): string;
  telHref(number: string): string;
  firstNumber(emergency: unknown): string;
  whyChosen(psap: PsapRecord, area: PsapArea): string;
  distanceText(psap: PsapRecord, area: PsapArea): string;
  centreLine(psap: PsapRecord): string;
  callScript(
    result: { area: PsapArea; location?: ReportedLocation; psaps: PsapRecord[]; emergency?: unknown } | null,
    address: string | null,
    now?: Date,
  ): { heading: string; steps: string[]; copyText: string };
  placeLine(area: PsapArea): string;
  coordinatesLine(location: ReportedLocation): string;
  dispatcherText(
    result: { area: PsapArea; location: ReportedLocation; psaps: PsapRecord[]; checked_at?: string } | null,
    address: string | null,
    now?: Date,
  ): string;
  clockTime(iso: string): string;
  ageText(iso: string, now?: Date): string;
  checkLine(check: Record<string, unknown>, now?: Date): string;
  checkNote(check: { checked_at: string }, now?: Date): string;
  aroundTheClockLine(psap: PsapRecord): PsapLine | null;
  businessLine(psap: PsapRecord): PsapLine | null;
  lineKindText(kind: string): string;
  lineWithKind(line: PsapLine): string;
  jurisdictionLabel(jurisdiction: string, state: string, name?: string): string;
  awayScript(address: string | null, now?: Date): { heading: string; steps: string[]; copyText: string };
}

interface CountyNames {
  countyName(county: string | null, state: string | null, fips?: string): string;
  countyInSentence(county: string | null, state: string | null, fips?: string): string;
}

// Plain .js modules served as they are: loaded by path so the type checker does not look for typings.
const path = "../../public/demo/format.js";
const f = (await import(path)) as Format;
const namesPath = "../../public/demo/county-names.js";
const n = (await import(namesPath)) as CountyNames;
/** Where the patient is, for the other cases. */
const at = (over: Partial<PsapArea>): PsapArea => ({ ...AREA, ...over });

const PSAP: PsapRecord = {
  id: "8927",
  name: "Southland Dispatch Center",
  type: "primary",
  state: "IL",
  county: "Cook",
  city: "Hazel Crest",
  phone: "+17085551234",
  phone_kind: "emergency",
  lines: [
    {
      phone: "+17085551234",
      kind: "emergency",
      label: "Emergency line: rings the 911 floor",
      source: "https://www.example.gov/911",
      checked_on: "2026-11-28",
      origin: "directory",
    },
  ],
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

  it("names counties and county equivalents by their own words", () => {
    expect(n.countyName("Cook", "IL")).toBe("Cook County");
    expect(n.countyName("Orleans", "LA")).toBe("Orleans Parish");
    expect(n.countyName("Anchorage", "AK")).toBe("Municipality of Anchorage");
    expect(n.countyName("Kodiak Island", "AK")).toBe("Kodiak Island Borough");
    expect(n.countyName("Nome", "AK")).toBe("Nome Census Area");
    expect(n.countyName("Juneau", "AK")).toBe("City and Borough of Juneau");
    expect(n.countyName("San Juan", "PR")).toBe("municipio of San Juan");
    // Independent cities, by the service's name or by the map's FIPS code; Virginia's counties stay counties.
    expect(n.countyName("Richmond city", "VA")).toBe("City of Richmond");
    expect(n.countyName("Baltimore city", "MD")).toBe("City of Baltimore");
    expect(n.countyName("St. Louis city", "MO")).toBe("City of St. Louis");
    expect(n.countyName("Richmond", "VA", "51760")).toBe("City of Richmond");
    expect(n.countyName("Richmond", "VA", "51159")).toBe("Richmond County");
    expect(n.countyName("Charles City", "VA", "51036")).toBe("Charles City County");
    expect(n.countyName("Carson City", "NV", "32510")).toBe("Carson City");
    // The FCC registry's own spellings of a PSAP's county.
    expect(n.countyName("Richmond City", "VA")).toBe("City of Richmond");
    expect(n.countyName("James City", "VA")).toBe("James City County");
    expect(n.countyName("Anchorage Borough", "AK")).toBe("Municipality of Anchorage");
    expect(n.countyName("Nome Census Area", "AK")).toBe("Nome Census Area");
    expect(n.countyName("Orleans Parish", "LA")).toBe("Orleans Parish");
    expect(n.countyName("District of Columbia", "DC", "11001")).toBe("District of Columbia");
    expect(n.countyName("St. Thomas", "VI")).toBe("St. Thomas (island)");
    expect(n.countyName(null, "IL")).toBe("");
    // Inside a sentence.
    expect(n.countyInSentence("Richmond city", "VA")).toBe("the City of Richmond");
    expect(n.countyInSentence("San Juan", "PR")).toBe("the municipio of San Juan");
    expect(n.countyInSentence("Cook", "IL")).toBe("Cook County");
  });

  it("never writes Anchorage County, San Juan County or an unincorporated San Juan", () => {
    const lines = [
      f.placeLine(at({ state: "AK", county: "Anchorage", place: "Anchorage", place_kind: "city" })),
      f.placeLine(at({ state: "PR", county: "San Juan", place: "San Juan", place_kind: "community" })),
      f.whyChosen(
        { ...PSAP, state: "PR", match: "county" },
        at({ state: "PR", county: "San Juan", place: "San Juan", place_kind: "community" }),
      ),
    ];
    expect(lines[0]).toBe("Anchorage (city), Municipality of Anchorage, AK, US");
    expect(lines[1]).toBe("San Juan, PR (municipio), US");
    expect(lines[2]).toBe("It answers 911 calls for the municipio of San Juan, where the patient is.");
    expect(lines.join("\n")).not.toMatch(/Anchorage County|San Juan County|unincorporated/);
  });

  it("says why a centre was chosen, for every kind of match", () => {
    expect(f.whyChosen(PSAP, AREA)).toBe(
      "It answers 911 calls inside the city limits of Hazel Crest, where the patient is.",
    );
    expect(
      f.whyChosen({ ...PSAP, match: "county" }, { ...AREA, place: "Lisle", place_kind: "community" }),
    ).toBe("It answers 911 calls for Cook County, where the patient is (Lisle is unincorporated).");
    expect(f.whyChosen({ ...PSAP, match: "boundary" }, AREA)).toMatch(/service area contains/);
    expect(f.whyChosen({ ...PSAP, match: "nearest", distance_km: 12.34 }, at({ place: "Elsewhere" }))).toBe(
      "No centre on file answers for this exact spot: it is the nearest one, ≈ 12 km (city centre).",
    );
    expect(
      f.whyChosen({ ...PSAP, match: "nearest", distance_km: 12.34, location_precision: "building" }, AREA),
    ).toMatch(/nearest one, 12\.3 km away\.$/);
  });

  it("names towns and townships as their states do", () => {
    const town = { place_kind: "town" } as unknown as Partial<PsapArea>;
    expect(f.placeLine(at({ ...town, state: "NJ", county: "Camden", place: "Cherry Hill" }))).toBe(
      "Cherry Hill (township), Camden County, NJ, US",
    );
    expect(f.placeLine(at({ ...town, state: "MA", county: "Middlesex", place: "Lexington" }))).toBe(
      "Lexington (town), Middlesex County, MA, US",
    );
    expect(
      f.placeLine(at({ state: "PR", county: "Fajardo", place: "Puerto Real", place_kind: "community" })),
    ).toBe("Puerto Real, Fajardo, PR (municipio), US");
    expect(f.placeLine(at({ state: "VA", county: "Richmond city", place: "Richmond" }))).toBe(
      "Richmond (city), City of Richmond, VA, US",
    );
  });

  it("gives distances as precise as the centre's position, never an exact-looking guess", () => {
    const anchorage = { ...PSAP, city: "Anchorage", state: "AK", county: "Anchorage", distance_km: 33.4 };
    const downtown = at({ state: "AK", county: "Anchorage", place: "Anchorage" });
    expect(f.distanceText(anchorage, downtown)).toBe("registered in Anchorage, where the patient is");
    expect(f.distanceText(anchorage, at({ state: "AK", county: "Anchorage", place: "Eagle River" }))).toBe(
      "≈ 33 km (city centre)",
    );
    expect(f.distanceText({ ...anchorage, location_precision: "county" }, downtown)).toBe(
      "registered in the Municipality of Anchorage, where the patient is",
    );
    expect(
      f.distanceText({ ...anchorage, location_precision: "county", county: "Kenai Peninsula" }, downtown),
    ).toBe("≈ 33 km (county centre)");
    expect(f.distanceText({ ...anchorage, location_precision: "building" }, downtown)).toBe("33.4 km away");
    expect(f.distanceText({ ...anchorage, distance_km: 0.4 }, at({ place: "Elsewhere" }))).toBe(
      "≈ < 1 km (city centre)",
    );
    for (const text of [
      f.distanceText(anchorage, at({ place: "Eagle River" })),
      f.whyChosen({ ...anchorage, match: "nearest" }, downtown),
    ])
      expect(text).not.toMatch(/\d+\.\d km/);
  });

  it("writes a call script to follow at once when no number is on file, and copies it with every detail", () => {
    const noNumber = { ...PSAP, phone: null, phone_kind: null, lines: [] };
    const location = { latitude: 41.5725, longitude: -87.6945, accuracy: 25 };
    const script = f.callScript(
      {
        area: AREA,
        location,
        psaps: [noNumber],
        emergency: { country: "US", numbers: [{ number: "911", service: "all" }] },
      },
      "17000 S Kedzie Ave, Hazel Crest, IL 60429",
      new Date("2026-11-25T04:30:00Z"),
    );
    expect(script.heading).toBe("No number on file. Do this now:");
    expect(script.steps).toEqual([
      "Ask the patient, or someone with them, to dial 911 now if they can: their page has the button.",
      "If they cannot: call 911 where you are, say the patient is in Hazel Crest, Cook County, IL, and ask to be transferred to Southland Dispatch Center, Cook County, IL.",
    ]);
    expect(script.copyText.split("\n")).toEqual([
      "Call script (telehealth SOS, 2026-11-25 04:30 UTC)",
      `1. ${script.steps[0]}`,
      `2. ${script.steps[1]}`,
      '   Say: "I am a telehealth counselor. My patient is in danger in Hazel Crest, Cook County, IL. Please transfer me to Southland Dispatch Center, Cook County, IL, which has no number on file here."',
      "Where: Hazel Crest (city), Cook County, IL, US",
      "GPS: 41.57250, -87.69450 (latitude, longitude, accuracy ±25 m)",
      "Address on file: 17000 S Kedzie Ave, Hazel Crest, IL 60429",
    ]);
    expect(f.centreLine({ ...PSAP, state: "LA", county: "Orleans" })).toBe(
      "Southland Dispatch Center, Orleans Parish, LA",
    );
  });

  it("keeps the transfer path first when only a business line is on file, and offers that line second", () => {
    const business = {
      phone: "+17085550199",
      kind: "administrative" as const,
      label: "Communications centre business office",
      source: "https://www.example.gov/southland",
      checked_on: "2026-11-28",
      origin: "directory" as const,
    };
    const onlyBusiness = { ...PSAP, phone: business.phone, phone_kind: business.kind, lines: [business] };
    const script = f.callScript(
      {
        area: AREA,
        psaps: [onlyBusiness],
        emergency: { country: "US", numbers: [{ number: "911", service: "all" }] },
      },
      null,
      new Date("2026-11-25T04:30:00Z"),
    );
    expect(script.heading).toBe("No 24/7 line on file. Do this now:");
    expect(script.steps[1]).toMatch(/^If they cannot: call 911 where you are/);
    expect(script.steps[2]).toBe(
      "If the transfer fails: business line (708) 555-0199, may not answer at night.",
    );
    expect(script.copyText).toMatch(/\n3\. If the transfer fails: business line \(708\) 555-0199/);
    expect(f.aroundTheClockLine(onlyBusiness)).toBeNull();
    expect(f.lineKindText("administrative")).toBe("Business line: may not answer at night");
    expect(f.lineKindText("dispatch")).toBe("Dispatch, 24/7");
    expect(f.lineWithKind(business)).toBe("(708) 555-0199 (Business line: may not answer at night)");
  });

  it("dials the best 24/7 line, never a business line listed first by mistake", () => {
    const dispatch = { ...(PSAP.lines[0] as PsapLine), phone: "+17085550111", kind: "dispatch" as const };
    const admin = { ...(PSAP.lines[0] as PsapLine), phone: "+17085550199", kind: "administrative" as const };
    expect(f.aroundTheClockLine({ ...PSAP, lines: [admin, dispatch] })?.phone).toBe("+17085550111");
    expect(f.businessLine({ ...PSAP, lines: [dispatch, admin] })?.phone).toBe("+17085550199");
  });

  it("names a special centre by what its name says it is", () => {
    expect(f.jurisdictionLabel("special", "AK", "Joint Base Elmendorf-Richardson Fire Department")).toBe(
      "a military base's own centre",
    );
    expect(f.jurisdictionLabel("special", "CA", "UC Berkeley Police Department")).toBe(
      "a special centre (campus, airport, state police or similar)",
    );
    expect(f.jurisdictionLabel("special", "CA", "University of California Police")).toBe(
      "a campus's own centre",
    );
  });

  it("says the town, not the city limits, for a town or township", () => {
    expect(
      f.whyChosen({ ...PSAP, match: "city" }, at({ state: "MA", place: "Lexington", place_kind: "town" })),
    ).toBe("It answers 911 calls in the town of Lexington, where the patient is.");
    expect(
      f.whyChosen({ ...PSAP, match: "city" }, at({ state: "NJ", place: "Cherry Hill", place_kind: "town" })),
    ).toBe("It answers 911 calls in the township of Cherry Hill, where the patient is.");
  });

  it("tells the counselor whose patient's page is away to call 911 where they are with the address on file", () => {
    const script = f.awayScript("12 Main St, Lexington, MA", new Date("2026-11-25T04:30:00Z"));
    expect(script.heading).toBe("The patient's page is not connected. Do this now:");
    expect(script.steps[1]).toMatch(/give the address on file \(12 Main St, Lexington, MA\)/);
    expect(script.copyText).toMatch(/Address on file: 12 Main St, Lexington, MA$/);
  });

  it("tells a counselor whose patient is abroad whom the patient dials, and what to do if they cannot", () => {
    const script = f.callScript(
      {
        area: { country: "GB", state: null, county: null, place: null, place_kind: null },
        psaps: [],
        emergency: { country: "GB", numbers: [{ number: "999", service: "all" }] },
      },
      null,
    );
    expect(script.steps[0]).toBe(
      "Ask the patient, or someone with them, to dial 999 now if they can (United Kingdom): their page has the button.",
    );
    expect(script.steps[1]).toMatch(
      /call your own emergency number, give the patient's country \(United Kingdom\) and location/,
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
      "Answering 911 centre: Southland Dispatch Center (Hazel Crest, IL, (708) 555-1234 (Emergency line, rings the 911 floor))",
    ]);
    expect(f.dispatcherText(null, null)).toMatch(/Address on file: none$/);
  });
});

describe("the location check in words", () => {
  /** 10:02 local time on the day of the check, whatever the machine's time zone. */
  const CHECKED = new Date(2026, 10, 22, 10, 2, 30).toISOString();
  const later = (minutes: number) => new Date(Date.parse(CHECKED) + minutes * 60_000);
  const CAMDEN: PsapRecord = {
    ...PSAP,
    id: "1234",
    name: "Camden County Communications",
    state: "NJ",
    county: "Camden",
    city: "Lindenwold",
    phone: "+18565550100",
    phone_kind: "dispatch",
    lines: [
      {
        phone: "+18565550100",
        kind: "dispatch",
        label: "Non-emergency, answered by dispatch 24/7",
        source: "https://www.example.gov/camden-911",
        checked_on: "2026-11-28",
        origin: "directory",
      },
    ],
    match: "county",
  };
  const CHECK = {
    checked_at: CHECKED,
    outcome: "located",
    psaps: [CAMDEN],
    area: { country: "US", state: "NJ", county: "Camden", place: "Cherry Hill", place_kind: "town" },
    emergency: { country: "US", numbers: [{ number: "911", service: "all" }] },
    location: { latitude: 39.93, longitude: -75.03, accuracy: 20 },
  };

  it("tells the time of day and the age of a check", () => {
    expect(f.clockTime(CHECKED)).toBe("10:02");
    expect(f.ageText(CHECKED, later(0.5))).toBe("just now");
    expect(f.ageText(CHECKED, later(1))).toBe("1 min ago");
    expect(f.ageText(CHECKED, later(59))).toBe("59 min ago");
    expect(f.ageText(CHECKED, later(65))).toBe("1 h 5 min ago");
    expect(f.ageText(CHECKED, later(180))).toBe("3 h ago");
  });

  it("says where the check found the patient and whom to call first, in one line with its age", () => {
    expect(f.checkLine(CHECK, later(4))).toBe(
      "Checked at 10:02 (4 min ago): Cherry Hill (township), Camden County, NJ; call first: Camden County Communications, (856) 555-0100 (Dispatch, 24/7)",
    );
    const noNumber = { ...CHECK, psaps: [{ ...CAMDEN, phone: null, phone_kind: null, lines: [] }] };
    expect(f.checkLine(noNumber, later(4))).toMatch(
      /call first: Camden County Communications, no number on file$/,
    );
    const abroad = {
      ...CHECK,
      psaps: [],
      area: { country: "GB", state: null, county: null, place: null, place_kind: null },
      emergency: { country: "GB", numbers: [{ number: "999", service: "all" }] },
    };
    expect(f.checkLine(abroad, later(4))).toBe(
      "Checked at 10:02 (4 min ago): United Kingdom (GB); call first: no US 911 centre; the patient dials 999",
    );
    expect(f.checkLine({ checked_at: CHECKED, outcome: "permission_denied" }, later(4))).toBe(
      "Checked at 10:02 (4 min ago): the patient's browser refused to share the location.",
    );
  });

  it("marks a result shown from the check, on screen and in the copied texts", () => {
    expect(f.checkNote(CHECK, later(12))).toBe(
      "From the location check at 10:02 (12 min ago), not a fresh fix: the patient may have moved since.",
    );
    const minute = `${CHECKED.slice(0, 16).replace("T", " ")} UTC`;
    const copied = f.dispatcherText(CHECK as never, null, later(12));
    expect(copied).toContain(
      `Where: Cherry Hill (township), Camden County, NJ, US (location check at ${minute}, not a fresh fix)`,
    );
    const script = f.callScript(CHECK as never, null, later(12)).copyText;
    expect(script).toContain(`(location check at ${minute}, not a fresh fix)`);
    expect(f.dispatcherText({ ...CHECK, checked_at: undefined } as never, null)).not.toContain(
      "location check",
    );
  });
});
