// What a location URI answers is valid against the HELD and PIDF-LO schemas (RFC 5985, RFC 3863, RFC 4119,
// the RFC 5491 shapes), and the validator itself refuses each single departure from a valid document, so a
// green end-to-end check means something. Skipped without xmllint, except in CI (.ci/run installs it).
import { describe, expect, it } from "vitest";
import { HELD_ERROR_CODES } from "../../sdk/src/protocol.ts";
import { heldError, locationResponse, pidfDocument } from "../../src/held/response.ts";
import { validateHeld } from "../support/validate-held.ts";
import { xmllintMissing } from "../support/validate-lost.ts";

const missing = xmllintMissing();
const META = {
  uriId: "luri_AbCdEfGhIjKlMnOpQrStUv",
  host: "sos.example.org",
  expiresAt: Date.UTC(2026, 10, 28, 13),
};
const CIRCLE = { latitude: 30.2672, longitude: -97.7431, accuracy: 24.5, at: Date.UTC(2026, 10, 28, 12) };
const POINT = { ...CIRCLE, accuracy: null };
/** What Kamailio's lost_held_dereference posts (its lost_held_post_request). */
const KAMAILIO_REQUEST =
  '<?xml version="1.0"?>\n<locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held" responseTime="emergencyDispatch"><locationType exact="false">geodetic civic</locationType></locationRequest>\n';

describe.skipIf(missing !== null)(
  `HELD and PIDF-LO schemas${missing ? ` (skipped: ${missing})` : ""}`,
  () => {
    it("accepts every document a location URI answers: a Circle or a Point, by POST and by GET, and each HELD error", async () => {
      for (const xml of [
        locationResponse(CIRCLE, META),
        locationResponse(POINT, META),
        pidfDocument(CIRCLE, META),
        pidfDocument(POINT, META),
        pidfDocument({ ...CIRCLE, latitude: 1e-7, longitude: -1e-7, accuracy: 0.5 }, META),
        ...HELD_ERROR_CODES.map((code) => heldError(code, "a reason in words")),
      ]) {
        expect(await validateHeld(xml), xml).toEqual([]);
      }
    });

    it("accepts the locationRequest Kamailio's lost module sends", async () => {
      expect(await validateHeld(KAMAILIO_REQUEST)).toEqual([]);
    });

    // Each case departs from a valid document in one way; the error must be about that departure.
    const valid = locationResponse(CIRCLE, META);
    const invalid: [string, string, RegExp][] = [
      ["a radius without its unit", valid.replace(/ uom="[^"]*"/, ""), /uom/],
      ["a radius that is no number", valid.replace(">24.5<", ">wide<"), /radius|double/],
      ["a shape without srsName", valid.replace(/ srsName="[^"]*"/, ""), /srsName/],
      [
        "a PIDF-LO without usage rules",
        valid.replace(/<gp:usage-rules[\s\S]*<\/gp:usage-rules>/, ""),
        /usage-rules|method|provided-by/,
      ],
      [
        "retransmission-allowed that is no boolean",
        valid.replace(">false<", ">never<"),
        /retransmission-allowed|boolean/,
      ],
      [
        "a timestamp that is no time",
        valid.replace(/<timestamp>[^<]*</, "<timestamp>yesterday<"),
        /timestamp|dateTime/,
      ],
      ["a presence without entity", valid.replace(/ entity="[^"]*"/, ""), /entity/],
      [
        "a HELD element HELD does not define",
        valid.replace("<presence", '<locationUri xmlns="urn:ietf:params:xml:ns:geopriv:held"/><presence'),
        /locationUri/,
      ],
      ["a HELD error without its code", heldError("xmlError", "x").replace(/ code="[^"]*"/, ""), /code/],
      [
        "a locationType HELD does not know",
        KAMAILIO_REQUEST.replace("geodetic civic", "street"),
        /locationType/,
      ],
    ];
    it.each(invalid)("refuses %s", async (_name, xml, about) => {
      const errors = await validateHeld(xml);
      expect(errors.length, xml).toBeGreaterThan(0);
      expect(errors.join("\n")).toMatch(about);
    });
  },
);

if (missing !== null && process.env.CI === "true") {
  it("has xmllint in CI (.ci/run installs it)", () => {
    throw new Error(missing);
  });
}
