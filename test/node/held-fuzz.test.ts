// No locationRequest, however malformed or large, breaks the HELD reader: one broken at random (cut short, a
// character dropped, XML's own characters thrown in, a piece repeated), or a body of up to the size limit
// built to be costly, is taken or refused as one of HELD's errors, in bounded time, whose answer is
// well-formed, valid against RFC 5985's schema and never repeats what the request held.
import { DOMParser } from "@xmldom/xmldom";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HTTP_LIMITS } from "../../lib/config.ts";
import { type HeldRefusal, readLocationRequest } from "../../src/held/request.ts";
import { heldError } from "../../src/held/response.ts";
import { breakage, broken } from "../support/breakage.ts";
import { validateHeld } from "../support/validate-held.ts";
import { xmllintMissing } from "../support/validate-lost.ts";

const HELD = "urn:ietf:params:xml:ns:geopriv:held";
const MEDIA_TYPE = "application/held+xml;charset=utf-8";

/** A locationRequest with a marker in a device identity (another namespace), so an echo of it would be seen. */
function locationRequest(types: string, exact: string, marker: string): string {
  return (
    `<?xml version="1.0"?><locationRequest xmlns="${HELD}" responseTime="emergencyRouting">` +
    `<locationType exact="${exact}">${types}</locationType>` +
    `<device xmlns="urn:ietf:params:xml:ns:geopriv:held:id"><uri>sip:${marker}@example.org</uri></device>` +
    `</locationRequest>`
  );
}

/** Refusals seen, one document per kind and message, for the schema check below. */
const answered = new Map<string, string>();

/** A refusal of HELD's vocabulary, in words of its own, answered with a well-formed error document. */
function expectSoundRefusal(refusal: HeldRefusal, marker: string): void {
  expect(["xmlError", "unsupportedMessage", "cannotProvideLiType"]).toContain(refusal.code);
  expect(refusal.message).not.toContain(marker);
  const xml = heldError(refusal.code, refusal.message);
  expect(xml).not.toContain(marker);
  const problems: string[] = [];
  new DOMParser({ onError: (level, message) => problems.push(`${level}: ${message}`) }).parseFromString(
    xml,
    "text/xml",
  );
  expect(problems).toEqual([]);
  if (answered.size < 60) answered.set(`${refusal.code}:${refusal.message}`, xml);
}

/** Reads `text` as the route does, and says how long it took (ms). */
function timedRead(text: string, contentType = MEDIA_TYPE): { refusal: HeldRefusal | null; ms: number } {
  const started = performance.now();
  const refusal = readLocationRequest(contentType, text, true);
  return { refusal, ms: performance.now() - started };
}

describe("the HELD reader on broken and costly input", () => {
  it("takes a locationRequest broken at random, or refuses it as a HELD error that repeats nothing of it", () => {
    const marker = fc.stringMatching(/^[a-z]{6}[0-9]{6}$/);
    const types = fc.constantFrom(
      "geodetic",
      "civic",
      "any",
      "geodetic civic",
      "locationURI",
      "civic geodetic locationURI",
    );
    fc.assert(
      fc.property(marker, types, fc.constantFrom("true", "false"), breakage, (mark, kinds, exact, how) => {
        const { refusal, ms } = timedRead(broken(locationRequest(kinds, exact, mark), how));
        expect(ms).toBeLessThan(250);
        if (refusal) expectSoundRefusal(refusal, mark);
      }),
      { numRuns: 3000 },
    );
  });

  it("refuses any body in another media type, in another charset, cut short or not UTF-8", () => {
    const body = locationRequest("geodetic", "false", "zzqq123456");
    for (const type of [
      "application/xml",
      "text/xml",
      "application/lost+xml",
      "",
      "application/held+xml; charset=latin1",
    ]) {
      const refusal = readLocationRequest(type, body, true);
      expect(refusal?.code, type).toBe("xmlError");
    }
    expect(readLocationRequest(MEDIA_TYPE, body, false)?.code).toBe("xmlError");
    expect(readLocationRequest(MEDIA_TYPE, null, true)?.code).toBe("xmlError");
    expect(readLocationRequest(MEDIA_TYPE, body, true)).toBeNull();
  });

  it("refuses bodies of up to the size limit built to be costly, quickly", () => {
    const limit = HTTP_LIMITS.maxBodyBytes;
    const fill = (unit: string) => unit.repeat(Math.floor((limit - 200) / unit.length));
    const costly = [
      `<locationRequest xmlns="${HELD}" ${fill('a="1" ').replace(/a="1"/g, (_m, i: number) => `a${i}="1"`)}><x/></locationRequest>`,
      `<locationRequest xmlns="${HELD}">${fill("<a>")}</locationRequest>`,
      `<locationRequest xmlns="${HELD}">${fill("<locationType>geodetic</locationType>")}</locationRequest>`,
      `<locationRequest xmlns="${HELD}"><locationType>${fill("geodetic ")}civic x</locationType></locationRequest>`,
      `<locationRequest xmlns="${HELD}">${fill("&amp;")}<held:x xmlns:held="${HELD}"/></locationRequest>`,
      `<locationRequest xmlns="${HELD}"><!--${fill("-")}--></locationRequest>`,
      `<locationRequest ${fill('xmlns:p="urn:x" ')}/>`,
      `<?xml version="1.0"?>${fill("<?pi x?>")}<findService xmlns="urn:ietf:params:xml:ns:lost1"/>`,
      fill("\u00e9"),
    ];
    for (const text of costly) {
      const { refusal, ms } = timedRead(text);
      expect(refusal, text.slice(0, 80)).not.toBeNull();
      expect(ms, text.slice(0, 80)).toBeLessThan(1_000);
      if (refusal) expectSoundRefusal(refusal, "zzqq123456");
    }
  });

  it.skipIf(xmllintMissing() !== null)(
    "answers each kind of refusal seen above in a schema-valid document",
    async () => {
      expect(answered.size).toBeGreaterThan(5);
      for (const [what, xml] of answered) expect(await validateHeld(xml), what).toEqual([]);
    },
  );
});
