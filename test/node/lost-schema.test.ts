// validateLost: RFC 5222's RELAX NG schema through xmllint accepts the answers docs/contract.md, section 9 describes
// and refuses each single departure from them; skipped without xmllint, except in CI (.ci/run installs it).
import { describe, expect, it } from "vitest";
import { validateLost, xmllintMissing, xpathString } from "../support/validate-lost.ts";

const missing = xmllintMissing();
const runIt = missing === null;

/** A findServiceResponse of docs/contract.md, section 9's shape; `replace` makes the one change a case is about. */
function findServiceResponse(replace: (xml: string) => string = (xml) => xml): string {
  return replace(`<?xml version="1.0" encoding="UTF-8"?>
<findServiceResponse xmlns="urn:ietf:params:xml:ns:lost1">
  <mapping expires="2026-11-21T12:00:00Z" lastUpdated="2026-11-01T00:00:00Z"
      source="sos.example.org" sourceId="psap-1234-v2026-11-01">
    <displayName xml:lang="en">Travis County 911 (TX)</displayName>
    <service>urn:service:sos</service>
    <uri>tel:+15125550100</uri>
    <serviceNumber>911</serviceNumber>
  </mapping>
  <path>
    <via source="sos.example.org"/>
  </path>
  <locationUsed id="loc1"/>
</findServiceResponse>`);
}

function errorsResponse(replace: (xml: string) => string = (xml) => xml): string {
  return replace(`<?xml version="1.0" encoding="UTF-8"?>
<errors xmlns="urn:ietf:params:xml:ns:lost1" source="sos.example.org">
  <notFound message="No PSAP serves this location" xml:lang="en"/>
</errors>`);
}

describe.skipIf(!runIt)(`validateLost (RFC 5222 RELAX NG)${missing ? ` (${missing})` : ""}`, () => {
  it("accepts a findServiceResponse with a mapping, its path and locationUsed", async () => {
    expect(await validateLost(findServiceResponse())).toEqual([]);
  });

  it("accepts a mapping with no uri (no number on file) and a validation element", async () => {
    const xml = findServiceResponse((x) =>
      x
        .replace("<uri>tel:+15125550100</uri>", "")
        .replace(
          "<path>",
          '<locationValidation><valid xmlns:gml="http://www.opengis.net/gml">gml:pos</valid></locationValidation><path>',
        ),
    );
    expect(await validateLost(xml)).toEqual([]);
  });

  it("accepts an errors response, and each error SPEC names", async () => {
    expect(await validateLost(errorsResponse())).toEqual([]);
    for (const name of ["badRequest", "serviceNotImplemented", "internalError"]) {
      expect(await validateLost(errorsResponse((x) => x.replace("notFound", name))), name).toEqual([]);
    }
    const profile = errorsResponse((x) =>
      x.replace("<notFound", '<locationProfileUnrecognized unsupportedProfiles="civic"'),
    );
    expect(await validateLost(profile)).toEqual([]);
  });

  it("accepts the findService Kamailio's lost module sends (point and circle)", async () => {
    const point = `<?xml version="1.0"?>
<findService xmlns="urn:ietf:params:xml:ns:lost1" serviceBoundary="reference" recursive="true"><location id="cQJJODuZtWqIeiBI" profile="geodetic-2d"><gml:Point xmlns:gml="http://www.opengis.net/gml" srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>30.2672 -97.7431</gml:pos></gml:Point></location><service>urn:service:sos</service></findService>`;
    const circle = `<?xml version="1.0"?>
<findService xmlns="urn:ietf:params:xml:ns:lost1" serviceBoundary="reference" recursive="true"><location id="x68jjDvcfOa4Ho7T" profile="geodetic-2d"><gs:Circle xmlns:gs="http://www.opengis.net/pidflo/1.0" xmlns:gml="http://www.opengis.net/gml" srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>30.2672 -97.7431</gml:pos><gs:radius uom="urn:ogc:def:uom:EPSG::9001">850</gs:radius></gs:Circle></location><service>urn:service:sos</service></findService>`;
    expect(await validateLost(point)).toEqual([]);
    expect(await validateLost(circle)).toEqual([]);
  });

  // Each case departs from a valid document in one way; the error must be about that departure.
  const invalid: [string, string, RegExp][] = [
    ["a mapping without displayName's place (uri first)", swap(findServiceResponse()), /displayName|uri/],
    [
      "a response without its path",
      findServiceResponse((x) => x.replace(/<path>[\s\S]*<\/path>/, "")),
      /path/,
    ],
    [
      "a response without a mapping",
      findServiceResponse((x) => x.replace(/<mapping[\s\S]*<\/mapping>/, "")),
      /mapping/,
    ],
    [
      "a serviceNumber that is not digits, * or #",
      findServiceResponse((x) => x.replace(">911<", ">9-1-1<")),
      /serviceNumber|mapping/,
    ],
    [
      "an expires that is no dateTime",
      findServiceResponse((x) => x.replace("2026-11-21T12:00:00Z", "tomorrow")),
      /expires|mapping/,
    ],
    [
      "a source with a port (no appUniqueString)",
      findServiceResponse((x) =>
        x.replace('source="sos.example.org" sourceId', 'source="127.0.0.1:8787" sourceId'),
      ),
      /source|mapping/,
    ],
    [
      "a source without a dot (localhost)",
      errorsResponse((x) => x.replace("sos.example.org", "localhost")),
      /source|errors/,
    ],
    [
      "a displayName without xml:lang",
      findServiceResponse((x) => x.replace(' xml:lang="en">Travis', ">Travis")),
      /lang|displayName/,
    ],
    [
      "an errors response without source",
      errorsResponse((x) => x.replace(' source="sos.example.org"', "")),
      /source|errors/,
    ],
    [
      "an error message without xml:lang",
      errorsResponse((x) => x.replace(' xml:lang="en"', "")),
      /notFound|lang/,
    ],
    [
      "an error LoST does not define",
      errorsResponse((x) => x.replace("notFound", "tooFar")),
      /tooFar|errors/,
    ],
    [
      "the right elements in another namespace",
      findServiceResponse((x) => x.replace("urn:ietf:params:xml:ns:lost1", "urn:example:lost")),
      /findServiceResponse/,
    ],
    [
      "a document that is not well-formed",
      findServiceResponse((x) => x.replace("</mapping>", "")),
      /parser error|mapping/,
    ],
  ];
  it.each(invalid)("refuses %s", async (_name, xml, about) => {
    const errors = await validateLost(xml);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join("\n")).toMatch(about);
  });

  it("reads a document with XPath (what the Kamailio test checks requests with)", async () => {
    const xml = findServiceResponse();
    expect(await xpathString(xml, '/*[local-name()="findServiceResponse"]/*/*[local-name()="uri"]')).toBe(
      "tel:+15125550100",
    );
    expect(await xpathString(xml, "namespace-uri(/*)")).toBe("urn:ietf:params:xml:ns:lost1");
    expect(await xpathString(xml, '//*[local-name()="nothing"]')).toBe("");
    await expect(xpathString("<a>", "/a")).rejects.toThrow(/xmllint/);
  });
});

/** The same response with its uri moved before displayName (the schema fixes their order). */
function swap(xml: string): string {
  const name = /<displayName[^>]*>[^<]*<\/displayName>/.exec(xml)?.[0] ?? "";
  const uri = /<uri>[^<]*<\/uri>/.exec(xml)?.[0] ?? "";
  return xml.replace(name, "\u0000").replace(uri, name).replace("\u0000", uri);
}

if (missing !== null && process.env.CI === "true") {
  it("has xmllint in CI (.ci/run installs libxml2-utils)", () => {
    throw new Error(missing);
  });
}
