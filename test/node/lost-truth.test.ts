// LoST answers what the session API answers: at every place of the project's truth sets (bench/truth/),
// on the data `npm run dev` serves (the bundle and the shipped operator files), a findService for the
// place's fix, read and answered as `POST /lost` does, names the session API's first PSAP for the same
// fix, with its number; and every answer is valid against RFC 5222's schema.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { readTruth, type TruthPlace } from "../../bench/accuracy.ts";
import { TRUTH_FILES } from "../../bench/accuracy-run.ts";
import { bundlePaths } from "../../data/bundle/build.ts";
import { prepareImport } from "../../data/import/pipeline.ts";
import { SHIPPED_OPERATOR_FILES } from "../../data/import/shipped.ts";
import { buildIndex } from "../../data/index/build.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import { answerFindService } from "../../src/lost/answer.ts";
import { LostError, readFindService } from "../../src/lost/request.ts";
import { errorsResponse, findServiceResponse } from "../../src/lost/response.ts";
import { resetPsapLookupCache } from "../../src/psap/lookup.ts";
import { lookupForSession } from "../../src/session/session-lookup.ts";
import { validateLost, xmllintMissing } from "../support/validate-lost.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PLACES: TruthPlace[] = TRUTH_FILES.flatMap((file) => readTruth(join(ROOT, file)));
/** A phone's outdoor fix, as the accuracy bench takes it. */
const ACCURACY_M = 20;
const missing = xmllintMissing();

/** What Kamailio sends for a caller's fix: a circle of the fix's accuracy (RFC 5491). */
function circleQuery(place: TruthPlace): string {
  return (
    `<?xml version="1.0"?><findService xmlns="urn:ietf:params:xml:ns:lost1" serviceBoundary="reference" recursive="true">` +
    `<location id="${place.id.slice(0, 16)}" profile="geodetic-2d"><gs:Circle xmlns:gs="http://www.opengis.net/pidflo/1.0" ` +
    `xmlns:gml="http://www.opengis.net/gml" srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>${place.latitude} ${place.longitude}</gml:pos>` +
    `<gs:radius uom="urn:ogc:def:uom:EPSG::9001">${ACCURACY_M}</gs:radius></gs:Circle></location>` +
    `<service>urn:service:sos</service></findService>`
  );
}

describe.skipIf(missing !== null)(
  `LoST against the session API at the truth sets' places${missing ? ` (skipped: ${missing})` : ""}`,
  () => {
    let store: MemoryPsapStore;
    beforeAll(async () => {
      const prepared = await prepareImport([...bundlePaths(), ...SHIPPED_OPERATOR_FILES]);
      store = MemoryPsapStore.fromIndex(buildIndex(prepared.dataset));
      resetPsapLookupCache(store);
    }, 180_000);

    it(`names the session API's first PSAP at each of the ${PLACES.length} places, in schema-valid answers`, async () => {
      expect(PLACES.length).toBeGreaterThanOrEqual(300);
      const differences: string[] = [];
      const invalid: string[] = [];
      for (const place of PLACES) {
        const session = await lookupForSession(store, {
          latitude: place.latitude,
          longitude: place.longitude,
          accuracy: ACCURACY_M,
        });
        if (!session.ok)
          throw new Error(`the session lookup failed at ${place.id}: ${session.problem.detail}`);
        const first = session.found.psaps[0];
        const request = readFindService(circleQuery(place));
        let xml: string;
        try {
          const mapping = await answerFindService(store, request, {
            now: Date.now(),
            sipDomain: "gw.example.org",
          });
          xml = findServiceResponse({ source: "sos.example.org", mapping, locationId: request.locationId });
          const expected = first ? `${first.name} (${first.state})` : "(notFound)";
          // LoST routes only to a line answered around the clock, never to a business line.
          const line = first?.lines.find((l) => l.kind === "emergency" || l.kind === "dispatch");
          const expectedUris = line
            ? [`tel:${line.phone}`, `sip:${line.phone}@gw.example.org;user=phone`]
            : [];
          if (
            mapping.displayName !== expected ||
            JSON.stringify(mapping.uris) !== JSON.stringify(expectedUris)
          ) {
            differences.push(`${place.id}: LoST ${mapping.displayName} ${mapping.uris}, session ${expected}`);
          }
          if (!mapping.sourceId.startsWith(`psap-${first?.id}-`))
            differences.push(`${place.id}: sourceId ${mapping.sourceId}`);
        } catch (error) {
          if (!(error instanceof LostError)) throw error;
          xml = errorsResponse("sos.example.org", error);
          differences.push(`${place.id}: LoST ${error.kind}, session ${first?.name ?? "no PSAP"}`);
        }
        const errors = await validateLost(xml);
        if (errors.length > 0) invalid.push(`${place.id}: ${errors.join("; ")}`);
      }
      expect(differences).toEqual([]);
      expect(invalid).toEqual([]);
    }, 300_000);
  },
);

if (missing !== null && process.env.CI === "true") {
  it("has xmllint in CI (.ci/run installs libxml2-utils)", () => {
    throw new Error(missing);
  });
}
