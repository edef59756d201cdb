// Admin PSAP routes: find and check any loaded PSAP, keep its contact number, see the phone coverage.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { buildIndex } from "../../data/index/build.ts";
import type { AreaInput, IndexedPsap, Ring } from "../../data/index/dataset.ts";
import { CONTACT_LIMITS } from "../../lib/config.ts";
import { lookupPsaps } from "../../src/answer/lookup.ts";
import { resetContactCache } from "../../src/contacts/overlay.ts";
import { d1Contacts } from "../../src/contacts/store.ts";
import { CataloguePsapDetail } from "../../src/http/schemas-psaps.ts";
import { resetPsapLookupCache } from "../../src/psap/lookup.ts";
import { ADMIN_HEADERS, call } from "./helpers.ts";

function psap(
  id: string,
  state: string,
  county: string,
  lat: number,
  lon: number,
  extra: Partial<IndexedPsap> = {},
): IndexedPsap {
  return {
    id,
    name: `Test Centre ${id}`,
    type: "primary",
    state,
    county,
    city: null,
    phone: null,
    phone_kind: null,
    lines: [],
    jurisdiction: "county",
    handled_by: null,
    latitude: lat,
    longitude: lon,
    location_precision: "city",
    ...extra,
  };
}

const square = (lon: number, lat: number, d: number): Ring => [
  [lon, lat],
  [lon + d, lat],
  [lon + d, lat + d],
  [lon, lat + d],
  [lon, lat],
];

const PSAPS = [
  psap("100", "IL", "Cook", 41.88, -87.63, {
    name: "Chicago Emergency Communications",
    jurisdiction: "municipal",
  }),
  psap("101", "IL", "Cook", 41.6, -87.8, { name: "Cook County Sheriff" }),
  psap("200", "IN", "Lake", 41.59, -87.35, {
    name: "Lake County Dispatch",
    phone: "+12195550100",
    phone_kind: "administrative",
    // Read long ago: stale in the coverage report.
    lines: [
      {
        phone: "+12195550100",
        kind: "administrative",
        label: "Business line",
        source: "https://www.example.gov/lake-county-911",
        checked_on: "2024-01-02",
        origin: "directory",
      },
    ],
  }),
  ...Array.from({ length: 7 }, (_, i) =>
    psap(`3${i}`, "WI", "Milwaukee", 43 + i / 100, -87.9, { name: `Milwaukee Post ${i}` }),
  ),
];
const AREAS: AreaInput[] = [
  {
    kind: "county",
    id: "17031",
    name: "Cook",
    state: "IL",
    rings: [square(-88.3, 41.4, 0.8)],
    psapIds: ["101", "100"],
  },
  {
    kind: "city",
    id: "1714000",
    name: "Chicago",
    state: "IL",
    rings: [square(-87.9, 41.7, 0.3)],
    psapIds: ["100"],
  },
];

/** What a NENA PsapPolygon layer said of PSAP 200 (its catalogue record carries it). */
const NENA = new Map([
  [
    "200",
    [
      {
        nguid: "urn:emergency:uid:gis:psap:LKD1:lakecounty.in.us",
        display_name: "Lake County Dispatch",
        agency_id: "lakecounty.in.us",
        service_uri: "sip:sos@lakecounty.in.us",
        avcard_uri: null,
        service_number: "911",
        matched_by: "name" as const,
      },
    ],
  ],
]);

async function admin(path: string, init: RequestInit = {}): Promise<Response> {
  return call(path, { ...init, headers: { ...ADMIN_HEADERS, ...(init.headers ?? {}) } });
}

function putContact(id: string, body: unknown): Promise<Response> {
  return call(`/v1/admin/psaps/${id}/contact`, {
    method: "PUT",
    headers: { ...ADMIN_HEADERS, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("without an index", () => {
  it("answers 503 psap_index_unavailable with Retry-After, not an empty list", async () => {
    const res = await admin("/v1/admin/psaps");
    expect(res.status).toBe(503);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect(res.headers.get("Retry-After")).toMatch(/^\d+$/);
    expect((await res.json<{ code: string }>()).code).toBe("psap_index_unavailable");
  });
});

describe("with an index", () => {
  beforeAll(async () => {
    const built = buildIndex(
      { dataVersion: "admin-test", psaps: PSAPS, areas: AREAS, nena: NENA },
      { version: "adm1" },
    );
    for (const [k, v] of [...built.entries, ...built.catalogue]) await env.PSAP_INDEX.put(k, v);
    await env.PSAP_INDEX.put(built.pointerKey, built.pointerValue);
  });

  it("needs the admin token", async () => {
    expect((await call("/v1/admin/psaps")).status).toBe(401);
    expect((await call("/v1/admin/psaps/100", { headers: { Authorization: "Bearer nope" } })).status).toBe(
      401,
    );
  });

  it("lists PSAPs by state, county or name fragment, in id order, a page at a time", async () => {
    const all = await (await admin("/v1/admin/psaps")).json<{
      psaps: IndexedPsap[];
      next_cursor: string | null;
    }>();
    expect(all.psaps.map((p) => p.id)).toEqual([
      "100",
      "101",
      "200",
      "30",
      "31",
      "32",
      "33",
      "34",
      "35",
      "36",
    ]);
    expect(all.next_cursor).toBeNull();
    expect(all.psaps[0]).not.toHaveProperty("served_places");
    const il = await (await admin("/v1/admin/psaps?state=il")).json<{ psaps: IndexedPsap[] }>();
    expect(il.psaps.map((p) => p.id)).toEqual(["100", "101"]);
    const cook = await (await admin("/v1/admin/psaps?county=Cook%20County")).json<{ psaps: IndexedPsap[] }>();
    expect(cook.psaps.map((p) => p.id)).toEqual(["100", "101"]);
    const byFips = await (await admin("/v1/admin/psaps?county=17031")).json<{ psaps: IndexedPsap[] }>();
    expect(byFips.psaps.map((p) => p.id)).toEqual(["100", "101"]);
    const q = await (await admin("/v1/admin/psaps?q=SHERIFF")).json<{ psaps: IndexedPsap[] }>();
    expect(q.psaps.map((p) => p.id)).toEqual(["101"]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { psaps: IndexedPsap[]; next_cursor: string | null } = await (
        await admin(`/v1/admin/psaps?limit=3${cursor ? `&cursor=${cursor}` : ""}`)
      ).json();
      expect(page.psaps.length).toBeLessThanOrEqual(3);
      seen.push(...page.psaps.map((p) => p.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.psaps.map((p) => p.id));
  });

  it("refuses bad filters with 400 problem+json", async () => {
    const bad = ["limit=0", "limit=1001", "limit=x", "limit=1e2", "limit=0x10", "limit=%205", "limit=1.0"];
    // Any base64url text decodes to something: a cursor this API did not return is refused all the same.
    bad.push("state=Illinois", "cursor=%%%", "cursor=abc", `cursor=${btoa("100")}`, "colour=red");
    for (const query of bad) {
      const res = await admin(`/v1/admin/psaps?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    }
  });

  it("reads one PSAP with the places and counties it serves; an unknown id is 404", async () => {
    const one = await (await admin("/v1/admin/psaps/100")).json<Record<string, unknown>>();
    expect(one).toMatchObject({
      id: "100",
      jurisdiction: "municipal",
      served_places: ["1714000"],
      served_counties: ["17031"],
    });
    expect(one).not.toHaveProperty("distance_km");
    expect(one).not.toHaveProperty("match");
    expect((await admin("/v1/admin/psaps/999")).status).toBe(404);
  });

  it("shows what a NENA layer said of a PSAP on its detail, as the document describes it, and not in lists", async () => {
    const one = await (await admin("/v1/admin/psaps/200")).json<Record<string, unknown>>();
    expect(one.nena).toEqual({ service_areas: NENA.get("200") });
    expect(CataloguePsapDetail.safeParse(one).success).toBe(true);
    expect(await (await admin("/v1/admin/psaps/100")).json()).not.toHaveProperty("nena");
    const page = await (await admin("/v1/admin/psaps?state=IN")).json<{ psaps: Record<string, unknown>[] }>();
    expect(page.psaps.map((p) => p.id)).toEqual(["200"]);
    expect(page.psaps[0]).not.toHaveProperty("nena");
  });

  it("keeps a contact number with its history, shows it in lookups within 60 s, and deletes it again", async () => {
    resetContactCache();
    resetPsapLookupCache();
    const fix = { latitude: 41.88, longitude: -87.63, accuracy: 10 };
    const before = await lookupPsaps(env.PSAP_INDEX, fix, { contacts: d1Contacts(env.DB) });
    expect(before.psaps[0]).toMatchObject({ id: "100", phone: null, phone_kind: null });

    const set = await putContact("100", {
      phone: "+13125550142",
      phone_kind: "emergency",
      source: "Call to the centre's supervisor",
      note: "rings the 911 floor",
    });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({
      psap_id: "100",
      phone: "+13125550142",
      phone_kind: "emergency",
    });
    // Lookups see it once the 30 s isolate cache has turned over (simulated by forgetting it).
    resetContactCache();
    const after = await lookupPsaps(env.PSAP_INDEX, fix, { contacts: d1Contacts(env.DB) });
    expect(after.psaps[0]).toMatchObject({ id: "100", phone: "+13125550142", phone_kind: "emergency" });
    expect(await (await admin("/v1/admin/psaps/100")).json()).toMatchObject({ phone: "+13125550142" });

    await putContact("100", { phone: "+13125550199", phone_kind: "administrative", source: "Website" });
    expect((await admin("/v1/admin/psaps/100/contact", { method: "DELETE" })).status).toBe(204);
    resetContactCache();
    const gone = await lookupPsaps(env.PSAP_INDEX, fix, { contacts: d1Contacts(env.DB) });
    expect(gone.psaps[0]).toMatchObject({ id: "100", phone: null });

    const history = await (await admin("/v1/admin/psaps/100/contact/history")).json<{
      history: { action: string; old: unknown; new: unknown; source: string | null }[];
    }>();
    expect(history.history.map((h) => h.action)).toEqual(["set", "set", "deleted"]);
    expect(history.history[0]).toMatchObject({
      old: null,
      new: { phone: "+13125550142", phone_kind: "emergency" },
    });
    expect(history.history[1]).toMatchObject({
      old: { phone: "+13125550142" },
      new: { phone: "+13125550199", phone_kind: "administrative" },
      source: "Website",
    });
    expect(history.history[2]).toMatchObject({ old: { phone: "+13125550199" }, new: null });
  });

  it("shows a change to the first lookup once the cache is older than its 30 s, however quiet the server was", async () => {
    resetContactCache();
    resetPsapLookupCache();
    const fix = { latitude: 41.88, longitude: -87.63, accuracy: 10 };
    const read = () => lookupPsaps(env.PSAP_INDEX, fix, { contacts: d1Contacts(env.DB) });
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      expect((await read()).psaps[0]).toMatchObject({ id: "100", phone: null });
      await putContact("100", { phone: "+13125550123", phone_kind: "dispatch", source: "Centre's page" });
      vi.setSystemTime(Date.now() + CONTACT_LIMITS.cacheMs + 1);
      // The first lookup after the quiet spell: the new line, not the copy cached before it.
      expect((await read()).psaps[0]).toMatchObject({ phone: "+13125550123", phone_kind: "dispatch" });
      expect((await read()).psaps[0]?.lines).toEqual([
        {
          phone: "+13125550123",
          kind: "dispatch",
          label: "Answered by dispatch 24/7",
          source: "Centre's page",
          checked_on: new Date().toISOString().slice(0, 10),
          origin: "operator",
        },
      ]);
      expect((await admin("/v1/admin/psaps/100/contact", { method: "DELETE" })).status).toBe(204);
      vi.setSystemTime(Date.now() + CONTACT_LIMITS.cacheMs + 1);
      expect((await read()).psaps[0]).toMatchObject({ id: "100", phone: null, lines: [] });
    } finally {
      vi.useRealTimers();
    }
  });

  it("lists an operator's line before the directory's of the same kind, and the most urgent kind first", async () => {
    resetContactCache();
    const fix = { latitude: 41.59, longitude: -87.35, accuracy: 10 };
    await putContact("200", {
      phone: "+12195550177",
      phone_kind: "administrative",
      source: "Call to the centre",
    });
    const admin200 = await (await admin("/v1/admin/psaps/200")).json<{
      lines: { phone: string; origin: string }[];
    }>();
    expect(admin200.lines.map((l) => [l.phone, l.origin])).toEqual([
      ["+12195550177", "operator"],
      ["+12195550100", "directory"],
    ]);
    await putContact("200", { phone: "+12195550188", phone_kind: "emergency", source: "Call to the centre" });
    resetContactCache();
    const found = (await lookupPsaps(env.PSAP_INDEX, fix, { contacts: d1Contacts(env.DB) })).psaps.find(
      (p) => p.id === "200",
    );
    expect(found).toMatchObject({ phone: "+12195550188", phone_kind: "emergency" });
    expect(found?.lines.map((l) => l.kind)).toEqual(["emergency", "administrative"]);
    expect((await admin("/v1/admin/psaps/200/contact", { method: "DELETE" })).status).toBe(204);
  });

  it("takes a number as an operator writes it for the PSAP's country, and stores it as E.164", async () => {
    for (const written of [
      "(312) 555-0142",
      "312-555-0142",
      "312.555.0142",
      "1 312 555 0142",
      "+1 (312) 555-0142",
    ]) {
      const res = await putContact("101", { phone: written, phone_kind: "emergency", source: "Website" });
      expect(res.status, written).toBe(200);
      expect(await res.json(), written).toMatchObject({ psap_id: "101", phone: "+13125550142" });
    }
    expect(await (await admin("/v1/admin/psaps/101")).json()).toMatchObject({ phone: "+13125550142" });
    expect((await admin("/v1/admin/psaps/101/contact", { method: "DELETE" })).status).toBe(204);
  });

  it("refuses a number it cannot read for the PSAP's country, an emergency line that is not 10 digits, and unknown PSAPs", async () => {
    const cases: [string, unknown, number][] = [
      ["100", { phone: "555-0142", phone_kind: "administrative", source: "x" }, 400],
      ["100", { phone: "312-555-0142 ext. 7", phone_kind: "administrative", source: "x" }, 400],
      ["100", { phone: "call 312-555-0142", phone_kind: "administrative", source: "x" }, 400],
      ["100", { phone: "020 7946 0000", phone_kind: "administrative", source: "x" }, 400],
      ["100", { phone: "+1312555", phone_kind: "administrative", source: "x" }, 400],
      ["100", { phone: "+442079460000", phone_kind: "emergency", source: "x" }, 400],
      ["100", { phone: "+13125550142", phone_kind: "fax", source: "x" }, 400],
      ["100", { phone: "+13125550142", phone_kind: "emergency", source: "" }, 400],
      ["100", { phone: "+13125550142", phone_kind: "emergency", source: "x", extra: 1 }, 400],
      ["nope", { phone: "+13125550142", phone_kind: "emergency", source: "x" }, 404],
    ];
    for (const [id, body, status] of cases) {
      const res = await putContact(id, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    }
    const wrongType = await call("/v1/admin/psaps/100/contact", {
      method: "PUT",
      headers: { ...ADMIN_HEADERS, "Content-Type": "text/plain" },
      body: "{}",
    });
    expect(wrongType.status).toBe(415);
    expect((await admin("/v1/admin/psaps/nope/contact", { method: "DELETE" })).status).toBe(404);
    expect((await admin("/v1/admin/psaps/nope/contact/history")).status).toBe(404);
  });

  it("removes no number for a body it cannot take (413, 415, 400), after its own 404", async () => {
    expect(
      (await putContact("101", { phone: "+13125550177", phone_kind: "emergency", source: "x" })).status,
    ).toBe(200);
    const remove = (id: string, body: string, type: string) =>
      admin(`/v1/admin/psaps/${id}/contact`, { method: "DELETE", headers: { "Content-Type": type }, body });
    const refused: [string, string, number][] = [
      ["x".repeat(17_000), "application/json", 413],
      ["hello", "text/plain", 415],
      ['{"why":"moved"}', "application/json", 400],
    ];
    for (const [body, type, status] of refused) {
      const res = await remove("101", body, type);
      expect(res.status, body.slice(0, 20)).toBe(status);
      expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    }
    expect(await (await admin("/v1/admin/psaps/101")).json()).toMatchObject({ phone: "+13125550177" });
    expect((await remove("nope", "hello", "text/plain")).status).toBe(404);
    expect((await remove("101", "{}", "application/json")).status).toBe(204);
    expect(await (await admin("/v1/admin/psaps/101")).json()).toMatchObject({ phone: null });
  });

  it("reports line coverage by state: any line, a 24/7 line, stale lines, with the operator's lines", async () => {
    type Counts = { psaps: number; with_phone: number; with_24x7: number; stale: number };
    const base = await (await admin("/v1/admin/psaps/coverage")).json<
      Counts & { by_state: Record<string, Counts> }
    >();
    expect(base).toMatchObject({
      data_version: "admin-test",
      psaps: 10,
      with_phone: 1,
      with_24x7: 0,
      stale: 1,
    });
    expect(base.by_state.IN).toEqual({ psaps: 1, with_phone: 1, with_24x7: 0, stale: 1 });
    await putContact("31", { phone: "+14145550101", phone_kind: "administrative", source: "County website" });
    await putContact("200", { phone: "+12195550111", phone_kind: "dispatch", source: "PSAP manager" });
    const after = await (await admin("/v1/admin/psaps/coverage")).json<typeof base>();
    expect(after).toMatchObject({ with_phone: 2, with_24x7: 1, stale: 1 });
    expect(after.by_state.WI).toEqual({ psaps: 7, with_phone: 1, with_24x7: 0, stale: 0 });
    // A 24/7 line over an imported business line: the PSAP had a line already, now it has a 24/7 one too.
    expect(after.by_state.IN).toEqual({ psaps: 1, with_phone: 1, with_24x7: 1, stale: 1 });
  });

  it("documents every admin PSAP route in the OpenAPI document", async () => {
    const doc = await (await call("/v1/openapi.json")).json<{
      paths: Record<string, Record<string, unknown>>;
    }>();
    expect(Object.keys(doc.paths["/v1/admin/psaps/{psapId}/contact"] ?? {}).sort()).toEqual([
      "delete",
      "put",
    ]);
    expect(doc.paths["/v1/admin/psaps/coverage"]).toHaveProperty("get");
    expect(doc.paths["/v1/admin/psaps/{psapId}/contact/history"]).toHaveProperty("get");
  });
});

describe("an operator's PSAP ids in any script", () => {
  beforeAll(async () => {
    const ids = ["Ω-1", "Ω-2", "école-3"];
    const psaps = ids.map((id, k) => psap(id, "IL", "Cook", 41.8 + k / 100, -87.7));
    const built = buildIndex({ dataVersion: "admin-test-2", psaps, areas: [] }, { version: "adm2" });
    for (const [k, v] of [...built.entries, ...built.catalogue]) await env.PSAP_INDEX.put(k, v);
    await env.PSAP_INDEX.put(built.pointerKey, built.pointerValue);
    resetPsapLookupCache();
  });

  it("pages through them one at a time: a cursor holds any id, not only Latin-1", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await admin(`/v1/admin/psaps?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      const page: { psaps: IndexedPsap[]; next_cursor: string | null } = await res.json();
      seen.push(...page.psaps.map((p) => p.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen.sort()).toEqual(["école-3", "Ω-1", "Ω-2"].sort());
  });
});
