// `POST /lost` as docs/contract.md, section 9 says, from outside: off unless turned on; API key or HTTP Basic (with the
// challenge Kamailio's client needs); problem+json only for credentials, rate and size, LoST XML for the
// rest; the same first PSAP as the session API; a failure of ours is internalError, never notFound; each
// query counted per platform, its location kept nowhere.
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { DOMParser, type Element } from "@xmldom/xmldom";
import { beforeAll, describe, expect, it } from "vitest";
import { HTTP_LIMITS, PSAP_LIMITS } from "../../lib/config.ts";
import { lookupPsaps } from "../../src/answer/lookup.ts";
import type { Env } from "../../src/env.ts";
import { lostSource } from "../../src/http/routes/lost.ts";
import worker from "../../src/index.ts";
import { lostUsage } from "../../src/lost/usage-object.ts";
import { resetPsapLookupCache } from "../../src/psap/lookup.ts";
import { ADMIN_HEADERS, BASE, call, newPlatform, seedPsapIndex, type TestPlatform } from "./helpers.ts";

const LOST_NS = "urn:ietf:params:xml:ns:lost1";
const GML = "http://www.opengis.net/gml";
const GS = "http://www.opengis.net/pidflo/1.0";
const LOST_TYPE = "application/lost+xml;charset=utf-8";
const CHICAGO = { latitude: 41.8819, longitude: -87.6278 };

function findService(
  shape: string,
  options: { service?: string; validate?: boolean; profile?: string; id?: string } = {},
): string {
  const validate = options.validate ? ' validateLocation="true"' : "";
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<findService xmlns="${LOST_NS}"${validate} serviceBoundary="reference" recursive="true">` +
    `<location id="${options.id ?? "loc-1"}" profile="${options.profile ?? "geodetic-2d"}">${shape}</location>` +
    `<service>${options.service ?? "urn:service:sos"}</service></findService>`
  );
}

const point = (lat: number, lon: number) =>
  `<gml:Point xmlns:gml="${GML}" srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>${lat} ${lon}</gml:pos></gml:Point>`;
const circle = (lat: number, lon: number, radius: number) =>
  `<gs:Circle xmlns:gs="${GS}" xmlns:gml="${GML}" srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>${lat} ${lon}</gml:pos>` +
  `<gs:radius uom="urn:ogc:def:uom:EPSG::9001">${radius}</gs:radius></gs:Circle>`;
const CIVIC = `<civ:civicAddress xmlns:civ="urn:ietf:params:xml:ns:pidf:geopriv10:civicAddr"><civ:country>US</civ:country></civ:civicAddress>`;

function basic(user: string, password: string): string {
  return `Basic ${btoa(`${user}:${password}`)}`;
}

/** The worker with these settings over the test's own, every waitUntil (the usage count) done before it returns. */
async function callWith(path: string, init: RequestInit, overrides: Partial<Env> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}${path}`, init), { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

function lost(
  platform: TestPlatform,
  body: BodyInit,
  headers: Record<string, string> = {},
  overrides: Partial<Env> = {},
): Promise<Response> {
  return callWith(
    "/lost",
    {
      method: "POST",
      headers: { "Content-Type": LOST_TYPE, "X-API-Key": platform.api_key, ...headers },
      body,
    },
    overrides,
  );
}

/** The answer's root element, after checking the HTTP envelope every LoST answer has. */
async function lostAnswer(res: Response): Promise<Element> {
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("application/lost+xml; charset=utf-8");
  const doc = new DOMParser().parseFromString(await res.text(), "text/xml");
  const root = doc.documentElement;
  if (!root) throw new Error("no document element");
  expect(root.namespaceURI).toBe(LOST_NS);
  return root;
}

function child(parent: Element, name: string): Element | null {
  return (parent.getElementsByTagNameNS(LOST_NS, name)[0] as Element | undefined) ?? null;
}

function texts(parent: Element, name: string): string[] {
  return Array.from(parent.getElementsByTagNameNS(LOST_NS, name)).map((e) => e.textContent ?? "");
}

/** The one error of an `errors` answer: its name and message (and the answer's source). */
async function lostError(res: Response): Promise<{ kind: string; message: string; source: string | null }> {
  const root = await lostAnswer(res);
  expect(root.localName).toBe("errors");
  const errors = Array.from(root.childNodes).filter((n) => n.nodeType === 1) as Element[];
  expect(errors).toHaveLength(1);
  const [error] = errors as [Element];
  expect(error.getAttributeNS("http://www.w3.org/XML/1998/namespace", "lang")).toBe("en");
  return {
    kind: error.localName ?? "",
    message: error.getAttribute("message") ?? "",
    source: root.getAttribute("source"),
  };
}

let platform: TestPlatform;
beforeAll(async () => {
  await seedPsapIndex();
  platform = await newPlatform("LoST platform");
});

describe("whether the route is there", () => {
  it("is an unknown route (404 problem+json) for every method where LOST_ENABLED is not true", async () => {
    for (const method of ["POST", "GET", "PATCH"]) {
      const res = await callWith("/lost", { method }, { LOST_ENABLED: "false" });
      expect(res.status, method).toBe(404);
      expect(res.headers.get("Content-Type")).toBe("application/problem+json");
      expect((await res.json<{ code: string }>()).code).toBe("not_found");
    }
  });

  it("is described in the OpenAPI document with both credentials", async () => {
    const doc = await (await call("/v1/openapi.json")).json<{
      paths: Record<string, { post?: { security: Record<string, string[]>[] } }>;
    }>();
    expect(doc.paths["/lost"]?.post?.security).toEqual([{ ApiKey: [] }, { LostBasic: [] }]);
  });
});

describe("credentials, rate and size: problem+json", () => {
  it("challenges a request without credentials for Basic, before reading or counting it", async () => {
    const res = await callWith("/lost", {
      method: "POST",
      headers: { "Content-Type": LOST_TYPE },
      body: findService(point(CHICAGO.latitude, CHICAGO.longitude)),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe('Basic realm="lost"');
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect((await res.json<{ code: string }>()).code).toBe("missing_credentials");
  });

  it("refuses a wrong key, a Basic user that is not the key's platform, and a malformed Basic header", async () => {
    const other = await newPlatform("Another platform");
    const body = findService(point(CHICAGO.latitude, CHICAGO.longitude));
    const cases: Record<string, string>[] = [
      { "X-API-Key": "sk_live_not_a_key" },
      { Authorization: basic(platform.platform_id, "sk_live_wrong") },
      { Authorization: basic(other.platform_id, platform.api_key) },
      { Authorization: "Basic ###" },
      { Authorization: `Basic ${btoa("no colon at all")}` },
    ];
    for (const headers of cases) {
      const res = await callWith("/lost", {
        method: "POST",
        headers: { "Content-Type": LOST_TYPE, ...headers },
        body,
      });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toBe('Basic realm="lost"');
      expect((await res.json<{ code: string }>()).code).toBe("invalid_api_key");
    }
  });

  it("takes HTTP Basic with the platform id and its key, as Kamailio's http_client sends it", async () => {
    const res = await callWith("/lost", {
      method: "POST",
      headers: { "Content-Type": LOST_TYPE, Authorization: basic(platform.platform_id, platform.api_key) },
      body: findService(point(CHICAGO.latitude, CHICAGO.longitude)),
    });
    expect((await lostAnswer(res)).localName).toBe("findServiceResponse");
  });

  it("refuses a body over the limit with 413 problem+json", async () => {
    const padding = `<!--${"x".repeat(HTTP_LIMITS.maxBodyBytes)}-->`;
    const res = await lost(platform, findService(point(CHICAGO.latitude, CHICAGO.longitude)) + padding);
    expect(res.status).toBe(413);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect((await res.json<{ code: string }>()).code).toBe("payload_too_large");
  });
});

describe("an emergency call's location", () => {
  it("is answered with the session API's first PSAP: name and state, number, 911, the fix's location id", async () => {
    const res = await lost(
      platform,
      findService(point(CHICAGO.latitude, CHICAGO.longitude), { id: "zz2kJ49y" }),
    );
    const root = await lostAnswer(res);
    expect(root.localName).toBe("findServiceResponse");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    const mapping = child(root, "mapping");
    if (!mapping) throw new Error("no mapping");

    resetPsapLookupCache();
    const sessionFirst = (await lookupPsaps(env.PSAP_INDEX, { ...CHICAGO, accuracy: 1 })).psaps[0];
    expect(sessionFirst?.name).toBe("Test Chicago Primary");
    expect(texts(mapping, "displayName")).toEqual([`${sessionFirst?.name} (IL)`]);
    expect(
      child(mapping, "displayName")?.getAttributeNS("http://www.w3.org/XML/1998/namespace", "lang"),
    ).toBe("en");
    expect(texts(mapping, "service")).toEqual(["urn:service:sos"]);
    expect(texts(mapping, "uri")).toEqual([`tel:${sessionFirst?.phone}`]);
    expect(texts(mapping, "serviceNumber")).toEqual(["911"]);
    expect(mapping.getAttribute("source")).toBe("sos.test");
    expect(mapping.getAttribute("sourceId")).toMatch(/^psap-T1-[0-9a-f]{8}$/);
    const expires = Date.parse(mapping.getAttribute("expires") ?? "");
    expect(expires - Date.now()).toBeGreaterThan(0);
    expect(expires - Date.now()).toBeLessThanOrEqual(PSAP_LIMITS.pointerCacheMs);
    expect(Number.isNaN(Date.parse(mapping.getAttribute("lastUpdated") ?? ""))).toBe(false);
    expect(child(root, "path")?.getElementsByTagNameNS(LOST_NS, "via")[0]?.getAttribute("source")).toBe(
      "sos.test",
    );
    expect(child(root, "locationUsed")?.getAttribute("id")).toBe("zz2kJ49y");
    expect(child(root, "locationValidation")).toBeNull();
  });

  it("answers a sub-service and a circle alike, and validates the shape's elements when asked", async () => {
    const res = await lost(
      platform,
      findService(circle(CHICAGO.latitude, CHICAGO.longitude, 850), {
        service: "urn:service:sos.police",
        validate: true,
      }),
    );
    const root = await lostAnswer(res);
    expect(texts(root, "service")).toEqual(["urn:service:sos.police"]);
    expect(texts(root, "displayName")).toEqual(["Test Chicago Primary (IL)"]);
    expect(texts(root, "valid")).toEqual(["gs:Circle gml:pos gs:radius"]);
  });

  it("also gives the number as a SIP URI where the deployment names a SIP domain (what Kamailio routes to)", async () => {
    const res = await lost(
      platform,
      findService(point(CHICAGO.latitude, CHICAGO.longitude)),
      {},
      {
        LOST_SIP_DOMAIN: "gw.example.org",
      },
    );
    expect(texts(await lostAnswer(res), "uri")).toEqual([
      "tel:+13125550101",
      "sip:+13125550101@gw.example.org;user=phone",
    ]);
  });

  it("names its source after LOST_SOURCE where set", async () => {
    const res = await lost(
      platform,
      findService(point(CHICAGO.latitude, CHICAGO.longitude)),
      {},
      {
        LOST_SOURCE: "ecrf.example.org",
      },
    );
    expect(child(await lostAnswer(res), "mapping")?.getAttribute("source")).toBe("ecrf.example.org");
  });

  it("maps counseling to the crisis line, tel:988 in the US", async () => {
    const res = await lost(
      platform,
      findService(point(CHICAGO.latitude, CHICAGO.longitude), {
        service: "urn:service:counseling.mental-health",
      }),
    );
    const root = await lostAnswer(res);
    expect(texts(root, "uri")).toEqual(["tel:988"]);
    expect(texts(root, "service")).toEqual(["urn:service:counseling.mental-health"]);
  });

  it("also gives the crisis line as a SIP URI where the deployment names a SIP domain (sip:988@...;user=phone)", async () => {
    const res = await lost(
      platform,
      findService(point(CHICAGO.latitude, CHICAGO.longitude), { service: "urn:service:counseling" }),
      {},
      { LOST_SIP_DOMAIN: "gw.example.org" },
    );
    expect(texts(await lostAnswer(res), "uri")).toEqual(["tel:988", "sip:988@gw.example.org;user=phone"]);
  });
});

describe("everything else past credentials: one LoST error, HTTP 200", () => {
  const valid = findService(point(CHICAGO.latitude, CHICAGO.longitude));
  const cases: [string, BodyInit, Record<string, string>, string][] = [
    ["a civic location", findService(CIVIC, { profile: "civic" }), {}, "locationProfileUnrecognized"],
    [
      "another service",
      findService(point(41.88, -87.63), { service: "urn:service:ambulance" }),
      {},
      "serviceNotImplemented",
    ],
    ["a place outside the US", findService(point(48.8566, 2.3522)), {}, "notFound"],
    ["another media type", valid, { "Content-Type": "application/xml" }, "badRequest"],
    ["no media type", valid, { "Content-Type": "" }, "badRequest"],
    ["another charset", valid, { "Content-Type": "application/lost+xml; charset=iso-8859-1" }, "badRequest"],
    ["bytes that are not UTF-8", new Uint8Array([0x3c, 0xff, 0xfe, 0x3e]), {}, "badRequest"],
    ["an empty body", "", {}, "badRequest"],
    ["malformed XML", "<findService xmlns=", {}, "badRequest"],
    ["another namespace", valid.replace(LOST_NS, "urn:example:not-lost"), {}, "badRequest"],
    [
      "a DTD with an entity",
      `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${valid.replace(/^<\?xml[^>]*>/, "")}`,
      {},
      "badRequest",
    ],
    ["nesting past 32", `${"<a>".repeat(40)}${"</a>".repeat(40)}`, {}, "badRequest"],
    ["a latitude out of range", findService(point(91, -87.63)), {}, "badRequest"],
    ["no service", valid.replace(/<service>.*<\/service>/, ""), {}, "badRequest"],
  ];

  it.each(cases)("answers %s with one error and a message", async (_what, body, headers, kind) => {
    const res = await lost(platform, body, headers);
    const error = await lostError(res);
    expect(error.kind).toBe(kind);
    expect(error.message.length).toBeGreaterThan(5);
    expect(error.source).toBe("sos.test");
  });

  it("answers internalError, never notFound, when the PSAP data cannot be read", async () => {
    const unreadable = {
      get: async () => {
        throw new Error("KV is down");
      },
    } as unknown as KVNamespace;
    const empty = { get: async () => null } as unknown as KVNamespace;
    for (const store of [unreadable, empty]) {
      resetPsapLookupCache();
      const res = await lost(
        platform,
        findService(point(CHICAGO.latitude, CHICAGO.longitude)),
        {},
        {
          PSAP_INDEX: store,
        },
      );
      expect((await lostError(res)).kind).toBe("internalError");
    }
    resetPsapLookupCache();
  });
});

describe("usage", () => {
  it("counts each query of a platform by UTC day, keeping nothing of its location; an operator reads the counts", async () => {
    const counted = await newPlatform("Counted platform");
    const other = await newPlatform("Other platform");
    await lost(counted, findService(point(CHICAGO.latitude, CHICAGO.longitude)));
    await lost(counted, findService(point(48.8566, 2.3522)));
    await lost(other, findService(point(CHICAGO.latitude, CHICAGO.longitude)));
    // A refused credential is not a query of the platform.
    await lost(
      { ...counted, api_key: "sk_live_wrong" },
      findService(point(CHICAGO.latitude, CHICAGO.longitude)),
    );

    const today = new Date().toISOString().slice(0, 10);
    const res = await call(`/v1/admin/platforms/${counted.platform_id}/lost-usage`, {
      headers: ADMIN_HEADERS,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      platform_id: counted.platform_id,
      days: [{ date: today, queries: 2 }],
    });
    const theOther = await call(`/v1/admin/platforms/${other.platform_id}/lost-usage`, {
      headers: ADMIN_HEADERS,
    });
    expect((await theOther.json<{ days: unknown[] }>()).days).toEqual([{ date: today, queries: 1 }]);

    // What the object keeps: a day and a count, nothing else.
    const stored = await runInDurableObject(lostUsage(env, counted.platform_id), (_o, state) =>
      state.storage.sql.exec("SELECT * FROM queries").toArray(),
    );
    expect(stored).toEqual([{ day: today, count: 2 }]);
  });

  it("is the operator's: 401 without the admin token, 404 for an unknown platform", async () => {
    expect((await call(`/v1/admin/platforms/${platform.platform_id}/lost-usage`)).status).toBe(401);
    const unknown = await call("/v1/admin/platforms/plt_nobody/lost-usage", { headers: ADMIN_HEADERS });
    expect(unknown.status).toBe(404);
  });
});

describe("the answers' source", () => {
  it("is the host the request reached, LOST_SOURCE where set, and JWT_ISSUER's host where the reached one is no LoST host name (an IP address, localhost)", () => {
    const env = { LOST_SOURCE: "", JWT_ISSUER: "https://sos.example.com" };
    expect(lostSource(env, "https://ecrf.example.org/lost")).toBe("ecrf.example.org");
    expect(lostSource(env, "http://127.0.0.1:8787/lost")).toBe("sos.example.com");
    expect(lostSource(env, "http://10.1.2.3/lost")).toBe("sos.example.com");
    expect(lostSource(env, "http://[::1]:8787/lost")).toBe("sos.example.com");
    expect(lostSource(env, "http://localhost:8787/lost")).toBe("sos.example.com");
    expect(lostSource({ ...env, LOST_SOURCE: "named.example.net" }, "https://ecrf.example.org/lost")).toBe(
      "named.example.net",
    );
  });
});
