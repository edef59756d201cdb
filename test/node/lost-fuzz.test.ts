// No XML input, however malformed or large, breaks the LoST reader: a findService broken at random (cut
// short, a character dropped, XML's own characters thrown in, a piece repeated), or a body of up to the
// size limit built to be costly, is read or refused as one of LoST's errors, whose answer is well-formed,
// valid against RFC 5222's schema and never repeats the fix's coordinates.
import { DOMParser } from "@xmldom/xmldom";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HTTP_LIMITS } from "../../lib/config.ts";
import { LostError, readFindService } from "../../src/lost/request.ts";
import { errorsResponse } from "../../src/lost/response.ts";
import { breakage, broken } from "../support/breakage.ts";
import { validateLost, xmllintMissing } from "../support/validate-lost.ts";

const LOST = "urn:ietf:params:xml:ns:lost1";

function findService(lat: string, lon: string, radius: string): string {
  return (
    `<?xml version="1.0"?><findService xmlns="${LOST}" serviceBoundary="reference" recursive="true">` +
    `<location id="a1" profile="geodetic-2d"><gs:Circle xmlns:gs="http://www.opengis.net/pidflo/1.0" ` +
    `xmlns:gml="http://www.opengis.net/gml" srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>${lat} ${lon}</gml:pos>` +
    `<gs:radius uom="urn:ogc:def:uom:EPSG::9001">${radius}</gs:radius></gs:Circle></location>` +
    `<service>urn:service:sos</service></findService>`
  );
}

/** Coordinates with five decimals, so a message repeating one would be seen. */
const coordinate = (max: number) =>
  fc.integer({ min: -max * 100_000, max: max * 100_000 }).map((n) => (n / 100_000).toFixed(5));

/** What the route would answer with for `text`: null when it is read, else the error. */
function refusal(text: string): LostError | null {
  try {
    readFindService(text);
    return null;
  } catch (error) {
    if (error instanceof LostError) return error;
    throw error;
  }
}

const answered = new Map<string, string>();

function expectSoundRefusal(error: LostError, lat: string, lon: string): void {
  expect(["badRequest", "locationProfileUnrecognized", "serviceNotImplemented"]).toContain(error.kind);
  expect(error.message).not.toContain(lat);
  expect(error.message).not.toContain(lon);
  const xml = errorsResponse("sos.example.org", error);
  const problems: string[] = [];
  new DOMParser({ onError: (level, message) => problems.push(`${level}: ${message}`) }).parseFromString(
    xml,
    "text/xml",
  );
  expect(problems).toEqual([]);
  if (answered.size < 60) answered.set(`${error.kind}:${error.message}`, xml);
}

describe("the LoST reader on broken and costly input", () => {
  it("reads a findService broken at random, or refuses it as a LoST error that keeps the coordinates to itself", () => {
    fc.assert(
      fc.property(
        coordinate(90),
        coordinate(180),
        fc.nat({ max: 5000 }),
        breakage,
        (lat, lon, radius, how) => {
          const error = refusal(broken(findService(lat, lon, String(radius)), how));
          if (error) expectSoundRefusal(error, lat, lon);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("refuses bodies of up to the size limit built to be costly", () => {
    const limit = HTTP_LIMITS.maxBodyBytes;
    const fill = (unit: string) => unit.repeat(Math.floor((limit - 200) / unit.length));
    const costly = [
      `<findService xmlns="${LOST}" ${fill('a="1" ').replace(/a="1"/g, (_m, i: number) => `a${i}="1"`)}/>`,
      `<findService xmlns="${LOST}">${fill("<a>")}</findService>`,
      `<findService xmlns="${LOST}">${fill("<a/>")}</findService>`,
      `<findService xmlns="${LOST}">${fill("&amp;")}</findService>`,
      `<findService xmlns="${LOST}">${fill("&#x10FFFF;")}</findService>`,
      `<findService xmlns="${LOST}"><!--${fill("-")}--></findService>`,
      `<findService ${fill('xmlns:p="urn:x" ')}/>`,
      `<?xml version="1.0"?>${fill("<?pi x?>")}<findService xmlns="${LOST}"/>`,
      fill("\u00e9"),
    ];
    for (const text of costly) {
      const error = refusal(text);
      expect(error, text.slice(0, 80)).not.toBeNull();
      if (error) expectSoundRefusal(error, "12.34567", "-98.76543");
    }
  });

  it.skipIf(xmllintMissing() !== null)(
    "answers each kind of refusal seen above in a schema-valid document",
    async () => {
      expect(answered.size).toBeGreaterThan(5);
      for (const [what, xml] of answered) expect(await validateLost(xml), what).toEqual([]);
    },
  );
});
