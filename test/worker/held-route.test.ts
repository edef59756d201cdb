// Location URIs (docs/contract.md, section 10) inside workerd: who may make one and when, what the counselors hear,
// and what a URI answers to a HELD locationRequest (POST) and to a plain GET, as the patient moves.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { HELD_LIMITS } from "../../lib/config.ts";
import type { AuditEventsPage, LocationUriResponse } from "../../sdk/src/protocol.ts";
import worker from "../../src/index.ts";
import {
  BASIC_POLICY_NS,
  find,
  fixOf,
  GEOPRIV_NS,
  HELD_NS,
  heldErrorCode,
  heldGet,
  heldPath,
  heldPost,
  mintAsCounselor,
  mintAsPlatform,
  newLocationUri,
  PIDF_NS,
  parse,
} from "./held-helpers.ts";
import {
  asCounselor,
  asPatient,
  asPlatform,
  BASE,
  call,
  newPlatform,
  newSession,
  openSocket,
  postJson,
  seedPsapIndex,
  sessionPath,
} from "./helpers.ts";

const FIX = { latitude: 41.88123, longitude: -87.63457, accuracy: 23 };

beforeAll(async () => {
  await seedPsapIndex();
});

async function sosSession() {
  const platform = await newPlatform();
  const session = await newSession(platform);
  expect((await asCounselor(session, "/sos")).status).toBe(202);
  return { platform, session };
}

async function located(fix: Record<string, number> = FIX) {
  const { platform, session } = await sosSession();
  expect((await asPatient(session, "/sos/location", fix)).status).toBe(200);
  return { platform, session };
}

async function eventsOf(platform: { api_key: string }, path: string): Promise<AuditEventsPage["events"]> {
  const res = await asPlatform(platform as never, `${path}/events?limit=1000`);
  return (await res.json<AuditEventsPage>()).events;
}

describe("whether the routes are there", () => {
  it("answers every location URI route 404, as an unknown route, where HELD_ENABLED is not true", async () => {
    const { session } = await sosSession();
    const uri = await newLocationUri(session);
    const off = { ...env, HELD_ENABLED: "false" };
    for (const [path, method] of [
      [sessionPath(session, "/location-uri"), "POST"],
      [heldPath(uri.uri), "GET"],
      [heldPath(uri.uri), "POST"],
    ] as const) {
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        new Request(`${BASE}${path}`, {
          method,
          headers: { Authorization: `Bearer ${session.counselor_token}` },
        }),
        off,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect((await res.json<{ code: string }>()).code).toBe("not_found");
    }
  });

  it("is described in the OpenAPI document, the URI route with both credentials and the dereference with none", async () => {
    const doc = await (await call("/v1/openapi.json")).json<{
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    }>();
    expect(doc.paths["/v1/platforms/{platformId}/sessions/{sessionId}/location-uri"]?.post?.security).toEqual(
      [{ ApiKey: [] }, { CounselorToken: [] }],
    );
    expect(doc.paths["/held/{token}"]?.get?.security).toEqual([]);
    expect(doc.paths["/held/{token}"]?.post?.security).toEqual([]);
  });
});

describe("making a location URI", () => {
  it("makes one for the counselor during an SOS, on the service's own origin, for 60 minutes, and tells the counselors", async () => {
    const { session } = await sosSession();
    const counselor = await openSocket(session.counselor_token);
    const patient = await openSocket(session.patient_token);
    const before = Date.now();
    const res = await mintAsCounselor(session);
    expect(res.status).toBe(201);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    const made = await res.json<LocationUriResponse>();
    expect(Object.keys(made).sort()).toEqual(["expires_at", "uri"]);
    expect(made.uri).toMatch(new RegExp(`^${BASE}/held/[A-Za-z0-9_-]{80}$`));
    const expires = Date.parse(made.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + HELD_LIMITS.uriLifetimeMs);
    expect(expires).toBeLessThanOrEqual(Date.now() + HELD_LIMITS.uriLifetimeMs);
    expect(await counselor.waitFor("location_uri")).toEqual({
      type: "location_uri",
      session_id: session.session_id,
      uri: made.uri,
      expires_at: made.expires_at,
    });
    // The patient hears of nothing: a state change after it reaches the patient in order.
    await asCounselor(session, "/sos/cancel");
    await patient.waitFor("session_state", 2);
    expect(patient.all("location_uri")).toEqual([]);
    counselor.close();
    patient.close();
  });

  it("makes one for the platform's API key too, and each URI is its own", async () => {
    const { platform, session } = await sosSession();
    const first = await mintAsPlatform(session, platform.api_key);
    expect(first.status).toBe(201);
    expect(first.headers.get("Access-Control-Allow-Origin")).toBe("*");
    const second = await newLocationUri(session);
    expect(second.uri).not.toBe((await first.json<LocationUriResponse>()).uri);
  });

  it("refuses another platform's key (403), a session of another platform (404), a patient token (403) and no credentials (401)", async () => {
    const { session } = await sosSession();
    const other = await newPlatform("Other");
    expect((await mintAsPlatform(session, other.api_key)).status).toBe(403);
    const elsewhere = await newSession(other);
    const path = `/v1/platforms/${other.platform_id}/sessions/${session.session_id}/location-uri`;
    const foreign = await call(path, { method: "POST", headers: { "X-API-Key": other.api_key } });
    expect(foreign.status).toBe(404);
    expect(
      (
        await call(path.replace(session.session_id, "not-a-uuid"), {
          method: "POST",
          headers: { "X-API-Key": other.api_key },
        })
      ).status,
    ).toBe(404);
    const asPatientToken = await postJson(
      sessionPath(session, "/location-uri"),
      {},
      {
        Authorization: `Bearer ${session.patient_token}`,
      },
    );
    expect(asPatientToken.status).toBe(403);
    expect((await call(sessionPath(elsewhere, "/location-uri"), { method: "POST" })).status).toBe(401);
  });

  it("is 409 not_in_sos outside an SOS, 410 once the session is over, 400 with a body", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    const idle = await mintAsCounselor(session);
    expect(idle.status).toBe(409);
    expect((await idle.json<{ code: string }>()).code).toBe("not_in_sos");
    await asCounselor(session, "/sos");
    const withBody = await postJson(
      sessionPath(session, "/location-uri"),
      { ttl: 5 },
      {
        Authorization: `Bearer ${session.counselor_token}`,
      },
    );
    expect(withBody.status).toBe(400);
    await call(sessionPath(session, "/end"), { method: "POST", headers: { "X-API-Key": platform.api_key } });
    const over = await mintAsPlatform(session, platform.api_key);
    expect(over.status).toBe(410);
    expect((await over.json<{ code: string }>()).code).toBe("session_ended");
  });

  it("keeps at most 3 live URIs per session (409 location_uri_limit), and a new SOS starts afresh", async () => {
    const { session } = await sosSession();
    for (let i = 0; i < HELD_LIMITS.maxLiveUrisPerSession; i++) await newLocationUri(session);
    const fourth = await mintAsCounselor(session);
    expect(fourth.status).toBe(409);
    expect((await fourth.json<{ code: string }>()).code).toBe("location_uri_limit");
    await asCounselor(session, "/sos/cancel");
    await asCounselor(session, "/sos");
    expect((await mintAsCounselor(session)).status).toBe(201);
  });

  it("answers the browser's preflight from any origin", async () => {
    const { session } = await sosSession();
    const res = await call(sessionPath(session, "/location-uri"), {
      method: "OPTIONS",
      headers: { Origin: "https://platform.example", "Access-Control-Request-Method": "POST" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
  });
});

describe("what a location URI answers", () => {
  it("answers locationUnknown (HTTP 200, HELD's own error) while the SOS waits for the patient's fix", async () => {
    const { session } = await sosSession();
    const { uri } = await newLocationUri(session);
    for (const res of [await heldPost(uri), await heldGet(uri)]) {
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("application/held+xml; charset=utf-8");
      expect(heldErrorCode(await res.text())).toBe("locationUnknown");
    }
  });

  it("answers a locationRequest with the latest fix: a Circle of its accuracy, its time, and the usage rules", async () => {
    const { session } = await sosSession();
    const { uri, expires_at } = await newLocationUri(session);
    const takenAt = Date.now() - 4_000;
    expect((await asPatient(session, "/sos/location", { ...FIX, timestamp: takenAt })).status).toBe(200);
    const res = await heldPost(uri);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/held+xml; charset=utf-8");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const xml = await res.text();
    const root = parse(xml);
    expect([root.namespaceURI, root.localName]).toEqual([HELD_NS, "locationResponse"]);
    expect(fixOf(xml)).toEqual({ shape: "Circle", pos: "41.88123 -87.63457", radius: "23" });
    expect(find(root, PIDF_NS, "timestamp")?.textContent).toBe(new Date(takenAt).toISOString());
    const rules = find(root, GEOPRIV_NS, "usage-rules");
    expect(rules && find(rules, BASIC_POLICY_NS, "retransmission-allowed")?.textContent).toBe("false");
    expect(rules && find(rules, BASIC_POLICY_NS, "retention-expiry")?.textContent).toBe(expires_at);
    const entity = find(root, PIDF_NS, "presence")?.getAttribute("entity") ?? "";
    expect(entity).toMatch(/^pres:luri_[A-Za-z0-9_-]{22}@sos\.test$/);
    expect(entity).not.toContain(session.session_id);
    expect(entity).not.toContain(session.platform_id);
  });

  it("gives the same PIDF-LO to a GET, as application/pidf+xml", async () => {
    const { session } = await located({ latitude: 41.88123, longitude: -87.63457 });
    const { uri } = await newLocationUri(session);
    const res = await heldGet(uri);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/pidf+xml; charset=utf-8");
    const xml = await res.text();
    expect([parse(xml).namespaceURI, parse(xml).localName]).toEqual([PIDF_NS, "presence"]);
    expect(fixOf(xml)).toEqual({ shape: "Point", pos: "41.88123 -87.63457", radius: null });
    const posted = await (await heldPost(uri)).text();
    expect(find(parse(posted), PIDF_NS, "presence")?.toString()).toBe(parse(xml).toString());
  });

  it("follows the patient: after a new fix, the next dereference gives the new place", async () => {
    const { session } = await located();
    const { uri } = await newLocationUri(session);
    expect(fixOf(await (await heldPost(uri)).text())?.pos).toBe("41.88123 -87.63457");
    const moved = { latitude: 41.89001, longitude: -87.62402, accuracy: 9 };
    expect((await asPatient(session, "/sos/location", moved)).status).toBe(200);
    expect(fixOf(await (await heldPost(uri)).text())).toEqual({
      shape: "Circle",
      pos: "41.89001 -87.62402",
      radius: "9",
    });
  });

  it.each([
    [
      "an exact civic-only request",
      '<locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held"><locationType exact="true">civic</locationType></locationRequest>',
      "application/held+xml",
      "cannotProvideLiType",
    ],
    [
      "an exact request for a location URI",
      '<locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held"><locationType exact="true">locationURI</locationType></locationRequest>',
      "application/held+xml",
      "cannotProvideLiType",
    ],
    [
      "XML that is not well-formed",
      '<locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held">',
      "application/held+xml",
      "xmlError",
    ],
    [
      "a DTD",
      '<!DOCTYPE x [<!ENTITY e "x">]><locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held"/>',
      "application/held+xml",
      "xmlError",
    ],
    [
      "another media type",
      '<locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held"/>',
      "application/xml",
      "xmlError",
    ],
    [
      "a bad responseTime",
      '<locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held" responseTime="soon"/>',
      "application/held+xml",
      "xmlError",
    ],
    [
      "a LoST findService",
      '<findService xmlns="urn:ietf:params:xml:ns:lost1"/>',
      "application/held+xml",
      "unsupportedMessage",
    ],
    [
      "HELD's own error message",
      '<error xmlns="urn:ietf:params:xml:ns:geopriv:held" code="x"/>',
      "application/held+xml",
      "unsupportedMessage",
    ],
  ])("answers %s with the HELD error it earns", async (_name, body, type, code) => {
    const { session } = await located();
    const { uri } = await newLocationUri(session);
    const res = await heldPost(uri, body, type);
    expect(res.status).toBe(200);
    const xml = await res.text();
    expect(heldErrorCode(xml)).toBe(code);
    expect(xml).not.toMatch(/41\.88|87\.63/);
  });

  it("takes a request that asks for anything, or geodetic exactly, and one without a locationType", async () => {
    const { session } = await located();
    const { uri } = await newLocationUri(session);
    for (const body of [
      '<locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held"><locationType exact="true">any</locationType></locationRequest>',
      '<locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held" responseTime="2000"><locationType exact="true">civic geodetic</locationType></locationRequest>',
      '<held:locationRequest xmlns:held="urn:ietf:params:xml:ns:geopriv:held"/>',
    ]) {
      expect(fixOf(await (await heldPost(uri, body)).text()), body).not.toBeNull();
    }
  });

  it("answers a token it did not seal exactly as a dead URI: one 404", async () => {
    const { session } = await located();
    const { uri } = await newLocationUri(session);
    const token = heldPath(uri).slice("/held/".length);
    const flipped = `${token.slice(0, 40)}${token[40] === "A" ? "B" : "A"}${token.slice(41)}`;
    const bodies = new Set<string>();
    for (const path of [
      `/held/${flipped}`,
      `/held/${token.slice(0, -1)}`,
      "/held/x",
      `/held/${"A".repeat(80)}`,
    ]) {
      for (const res of [await call(path), await heldPost(`${BASE}${path}`)]) {
        expect(res.status, path).toBe(404);
        bodies.add(await res.text());
      }
    }
    await asCounselor(session, "/sos/cancel");
    const dead = await heldPost(uri);
    expect(dead.status).toBe(404);
    bodies.add(await dead.text());
    expect(bodies.size).toBe(1);
  });

  it(`answers ${HELD_LIMITS.dereferencesPerWindow} dereferences a minute per URI, then 429 with Retry-After`, async () => {
    const { session } = await located();
    const { uri } = await newLocationUri(session);
    const other = await newLocationUri(session);
    for (let i = 0; i < HELD_LIMITS.dereferencesPerWindow; i++) expect((await heldGet(uri)).status).toBe(200);
    const refused = await heldGet(uri);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await heldPost(other.uri)).status).toBe(200);
  });

  it("refuses a body over 16 KiB with 413, whatever the token", async () => {
    const big = `<locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held"><!--${"x".repeat(17_000)}--></locationRequest>`;
    const res = await heldPost(`${BASE}/held/x`, big);
    expect(res.status).toBe(413);
  });

  it("records each URI made and each dereference in the audit trail, by id and answer only", async () => {
    const { platform, session } = await sosSession();
    const { uri } = await newLocationUri(session);
    await heldPost(uri);
    await asPatient(session, "/sos/location", FIX);
    await heldGet(uri);
    const events = await eventsOf(platform, sessionPath(session));
    const created = events.find((e) => e.type === "location_uri_created");
    expect(created).toMatchObject({ actor: "counselor", data: { uri_id: expect.stringMatching(/^luri_/) } });
    const reads = events.filter((e) => e.type === "location_dereferenced");
    expect(reads.map((e) => [e.actor, e.data?.response, e.data?.method])).toEqual([
      ["uri_holder", "locationUnknown", "POST"],
      ["uri_holder", "location", "GET"],
    ]);
    expect(reads.every((e) => e.data?.uri_id === created?.data?.uri_id)).toBe(true);
  });
});

describe("a location URI fuzzed through the route", () => {
  it("answers any body with 200 and a HELD document, or 413: never a 5xx, never an echo of the request", async () => {
    const { session } = await located();
    const uris = [
      (await newLocationUri(session)).uri,
      (await newLocationUri(session)).uri,
      (await newLocationUri(session)).uri,
    ];
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: fc.constantFrom(..."<>&\"'/=;!?[]-: \u0000é"), maxLength: 200 }),
          fc
            .constantFrom("locationRequest", "locationType", "exact", "geodetic", "civic", "any")
            .chain((word) =>
              fc
                .string({ unit: fc.constantFrom(...'<>/= "'), maxLength: 40 })
                .map(
                  (noise) =>
                    `<locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held">${noise}<${word}>qzmarker${noise}</locationRequest>`,
                ),
            ),
        ),
        fc.constantFrom("application/held+xml", "application/held+xml; charset=utf-8", "text/plain", ""),
        async (body, type) => {
          // Three URIs, each read at most 60 times a minute: spread so that none is refused for rate.
          const uri = uris[sent++ % uris.length] as string;
          const res = await heldPost(uri, body, type);
          expect(res.status).toBe(200);
          const xml = await res.text();
          expect(xml).not.toContain("qzmarker");
          expect(heldErrorCode(xml) ?? fixOf(xml)?.pos).toBeTruthy();
        },
      ),
      { numRuns: 150, seed: 20_261_128 },
    );
  });
});
