// The contact directory's reading of a phone number: what an operator types, for the PSAP's country.
import { describe, expect, it } from "vitest";
import { checkContactPhone, phoneRegionOf } from "../../lib/phone.ts";

describe("checkContactPhone", () => {
  it("reads a US national number in any usual writing and gives E.164", () => {
    for (const written of ["(617) 343-4200", "617-343-4200", "617.343.4200", "6173434200", "1 617 343 4200"])
      expect(checkContactPhone(written, "administrative"), written).toEqual({
        ok: true,
        e164: "+16173434200",
      });
    expect(checkContactPhone("+16173434200", "emergency")).toEqual({ ok: true, e164: "+16173434200" });
    expect(checkContactPhone("  +1 (617) 343-4200 ", "emergency")).toEqual({
      ok: true,
      e164: "+16173434200",
    });
  });

  it("reads a territory's national number in its own plan", () => {
    expect(phoneRegionOf("PR")).toBe("PR");
    expect(phoneRegionOf("GU")).toBe("GU");
    expect(phoneRegionOf("MA")).toBe("US");
    expect(checkContactPhone("(787) 343-2020", "emergency", "PR")).toEqual({
      ok: true,
      e164: "+17873432020",
    });
    expect(checkContactPhone("(671) 475-2222", "administrative", "GU")).toEqual({
      ok: true,
      e164: "+16714752222",
    });
  });

  it("takes a number of another country only in E.164, and never as an emergency line", () => {
    expect(checkContactPhone("+44 20 7946 0000", "administrative")).toEqual({
      ok: true,
      e164: "+442079460000",
    });
    expect(checkContactPhone("+442079460000", "emergency")).toMatchObject({ ok: false });
    // Read as a US number, a UK national number is not valid.
    expect(checkContactPhone("020 7946 0000", "administrative")).toMatchObject({ ok: false });
  });

  it("refuses what is not a dialable number, saying what it takes", () => {
    for (const bad of [
      "",
      "555-0142",
      "call me",
      "617-343-4200 ext. 7",
      "1-800-FLOWERS",
      "+1312555",
      "(617) 343-42",
    ]) {
      const check = checkContactPhone(bad, "administrative");
      expect(check.ok, bad).toBe(false);
    }
    expect(checkContactPhone("call me", "administrative")).toMatchObject({
      message: expect.stringContaining("(617) 343-4200"),
    });
  });
});
