// A lookup while `npm run dev` still imports the PSAP data says so: 503 psap_index_unavailable with
// Retry-After and a detail that the data is loading. "The operator must import it" is only for a store
// with no data and no import under way (no marker, or one whose importer stopped renewing it).
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { IMPORT_MARKER_KEY, IMPORT_MARKER_TTL_MS, importMarker } from "../../src/psap-import-marker.ts";
import { asPatient, seedPsapIndex, sosAwaitingFix } from "./helpers.ts";

const CHICAGO = { latitude: 41.8819, longitude: -87.6278, accuracy: 25 };

afterEach(async () => {
  await env.PSAP_INDEX.delete(IMPORT_MARKER_KEY);
});

/** The patient's fix during an SOS, with no index loaded: the 503's Retry-After and detail. */
async function lookupWithoutIndex(): Promise<{ retryAfter: number; code: string; detail: string }> {
  const built = await seedPsapIndex("loading");
  await env.PSAP_INDEX.delete(built.pointerKey);
  const { session } = await sosAwaitingFix("1200 W Harrison St, Chicago, IL");
  const res = await asPatient(session, "/sos/location", CHICAGO);
  expect(res.status).toBe(503);
  const body = await res.json<{ code: string; detail: string }>();
  return { retryAfter: Number(res.headers.get("Retry-After")), ...body };
}

describe("a lookup before any PSAP data is loaded", () => {
  it("says the data is still loading while an import is under way", async () => {
    await env.PSAP_INDEX.put(IMPORT_MARKER_KEY, JSON.stringify(importMarker(Date.now(), Date.now())));
    const answer = await lookupWithoutIndex();
    expect(answer.code).toBe("psap_index_unavailable");
    expect(answer.retryAfter).toBeGreaterThanOrEqual(1);
    expect(answer.detail).toMatch(/still loading/);
    expect(answer.detail).toContain(`retry in ${answer.retryAfter} s`);
    expect(answer.detail).not.toMatch(/operator/);
  });

  it("tells the operator to import it when no import is under way", async () => {
    const answer = await lookupWithoutIndex();
    expect(answer.code).toBe("psap_index_unavailable");
    expect(answer.retryAfter).toBeGreaterThanOrEqual(1);
    expect(answer.detail).toBe("No PSAP data is loaded; the operator must import it.");
  });

  it("tells the operator too once the importer stopped renewing its marker", async () => {
    const lapsed = Date.now() - IMPORT_MARKER_TTL_MS - 1000;
    await env.PSAP_INDEX.put(IMPORT_MARKER_KEY, JSON.stringify(importMarker(lapsed, lapsed)));
    const answer = await lookupWithoutIndex();
    expect(answer.detail).toBe("No PSAP data is loaded; the operator must import it.");
  });

  it("answers from the index as usual when one is loaded, marker or not", async () => {
    await seedPsapIndex("loaded");
    await env.PSAP_INDEX.put(IMPORT_MARKER_KEY, JSON.stringify(importMarker(Date.now(), Date.now())));
    const { session } = await sosAwaitingFix("1200 W Harrison St, Chicago, IL");
    const res = await asPatient(session, "/sos/location", CHICAGO);
    expect(res.status).toBe(200);
  });
});
