// Fuzzes every route of the OpenAPI document with generated paths, bodies, headers and credentials:
// never a 5xx (the PSAP index is loaded, so not even the documented 503), every error a problem+json,
// and nothing stored for a refused request.
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import fc from "fast-check";
import { importJWK, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import type { SessionCreateResponse } from "../../sdk/src/protocol.ts";
import {
  ADMIN_HEADERS,
  asPlatform,
  BASE,
  call,
  newPlatform,
  newSession,
  postJson,
  SESSION_BODY,
  seedPsapIndex,
  sessionPath,
  sessionStubOf,
  type TestPlatform,
  UPGRADE_HEADERS,
} from "./helpers.ts";

const SEED = 20_261_124;
const RUNS = 600;
/** New fixtures this often, so no session lives long enough for a deadline (30 s) to fire mid-run. */
const FIXTURE_RUNS = 25;

interface JsonSchema {
  $ref?: string;
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

interface Operation {
  method: string;
  path: string;
  /** The credential the route asks for (the OpenAPI security scheme), if any. */
  security: string | null;
  body: JsonSchema | null;
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        security?: Record<string, unknown>[];
        requestBody?: { content?: Record<string, { schema: JsonSchema }> };
      }
    >
  >;
  components: { schemas: Record<string, JsonSchema> };
}

interface Fixtures {
  own: TestPlatform;
  other: TestPlatform;
  /** A key of the other platform that no request authenticates with, so revoking it harms nothing. */
  spareKeyId: string;
  live: SessionCreateResponse;
  ended: SessionCreateResponse;
  foreign: SessionCreateResponse;
  expired: string;
  forged: string;
}

let operations: Operation[] = [];
let schemas: Record<string, JsonSchema> = {};

beforeAll(async () => {
  await seedPsapIndex();
  const doc = await (await call("/v1/openapi.json")).json<OpenApiDocument>();
  schemas = doc.components.schemas;
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      operations.push({
        method: method.toUpperCase(),
        path,
        security: Object.keys(operation.security?.[0] ?? {})[0] ?? null,
        body: operation.requestBody?.content?.["application/json"]?.schema ?? null,
      });
    }
  }
  operations = operations.sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`));
});

async function fixtures(): Promise<Fixtures> {
  const own = await newPlatform("fuzz own");
  const other = await newPlatform("fuzz other");
  const spare = await postJson(`/v1/admin/platforms/${other.platform_id}/api-keys`, {}, ADMIN_HEADERS);
  const live = await newSession(own, { ...SESSION_BODY, patient_address: "1 Fuzz Street" });
  const ended = await newSession(own);
  await asPlatform(own, sessionPath(ended, "/end"), "POST");
  const foreign = await newSession(other);
  const jwk = JSON.parse(env.JWT_SIGNING_KEY) as { kid: string };
  const key = await importJWK(jwk, "EdDSA");
  const claims = JSON.parse(
    atob((live.counselor_token.split(".")[1] ?? "").replaceAll("-", "+").replaceAll("_", "/")),
  );
  const now = Math.floor(Date.now() / 1000);
  const expired = await new SignJWT({ ...claims, iat: now - 7200, exp: now - 60 })
    .setProtectedHeader({ alg: "EdDSA", kid: jwk.kid, typ: "JWT" })
    .sign(key);
  const [h, p] = live.patient_token.split(".");
  return {
    own,
    other,
    spareKeyId: (await spare.json<{ api_key_id: string }>()).api_key_id,
    live,
    ended,
    foreign,
    expired,
    forged: `${h}.${p}.${"A".repeat(86)}`,
  };
}

// ---------------------------------------------------------------------------
// Generators: every choice is a function of the fixtures, so one seed replays the same requests.

type Pick<T> = (f: Fixtures) => T;

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom("", " ", "%", "../", "plt_", "%00", "x".repeat(300), "null", "0", "-1"),
);

function pathValue(name: string): fc.Arbitrary<Pick<string>> {
  const known: Record<string, Pick<string>[]> = {
    platformId: [(f) => f.own.platform_id, (f) => f.other.platform_id, () => "plt_missing"],
    sessionId: [
      (f) => f.live.session_id,
      (f) => f.ended.session_id,
      (f) => f.foreign.session_id,
      () => "6f1c1c5e-8d1c-4c59-9d43-1b7c8a3f7a11",
    ],
    apiKeyId: [(f) => f.spareKeyId, () => "key_missing"],
  };
  const choices = (known[name] ?? []).map((pick) => fc.constant(pick));
  if (choices.length === 0) return text.map((value) => () => value);
  return fc.oneof(
    { weight: 4, arbitrary: fc.oneof(...choices) },
    { weight: 1, arbitrary: fc.oneof(text, fc.constant("é")).map((value) => () => value) },
  );
}

const token = fc.oneof(
  fc.constantFrom<Pick<string>>(
    (f) => f.live.counselor_token,
    (f) => f.live.patient_token,
    (f) => f.ended.counselor_token,
    (f) => f.ended.patient_token,
    (f) => f.foreign.counselor_token,
    (f) => f.foreign.patient_token,
    (f) => f.expired,
    (f) => f.forged,
    () => "eyJhbGciOiJub25lIn0.eyJzaWQiOiJ4In0.",
  ),
  text.map((value) => () => value),
);

const credentials = fc.oneof(
  fc.constant<Pick<Record<string, string>>>(() => ({})),
  fc.constant<Pick<Record<string, string>>>(() => ADMIN_HEADERS),
  fc.constant<Pick<Record<string, string>>>(() => ({ Authorization: "Bearer not-the-admin" })),
  fc.constant<Pick<Record<string, string>>>((f) => ({ "X-API-Key": f.own.api_key })),
  fc.constant<Pick<Record<string, string>>>((f) => ({ "X-API-Key": f.other.api_key })),
  fc.constant<Pick<Record<string, string>>>(() => ({ "X-API-Key": `sk_live_${"A".repeat(40)}` })),
  fc.constant<Pick<Record<string, string>>>(() => ({ Authorization: "Basic dXNlcjpwYXNz" })),
  token.map(
    (pick): Pick<Record<string, string>> =>
      (f) => ({ Authorization: `Bearer ${pick(f)}` }),
  ),
  text.map(
    (value): Pick<Record<string, string>> =>
      () => ({ Authorization: value, "X-API-Key": value }),
  ),
);

/** The session a request is about: its path ids and its tokens go together, so requests get past the front door. */
const target = fc.constantFrom<Pick<SessionCreateResponse>>(
  (f) => f.live,
  (f) => f.live,
  (f) => f.live,
  (f) => f.ended,
  (f) => f.foreign,
);

/** The credential the route asks for, for the target session (an expired one now and then). */
function rightCredentials(
  security: string | null,
  session: Pick<SessionCreateResponse>,
): fc.Arbitrary<Pick<Record<string, string>>> {
  const bearer =
    (pick: Pick<string>): Pick<Record<string, string>> =>
    (f) => ({ Authorization: `Bearer ${pick(f)}` });
  switch (security) {
    case "AdminToken":
      return fc.constant(() => ADMIN_HEADERS);
    case "ApiKey":
      return fc.constant((f: Fixtures) => ({
        "X-API-Key": session(f).platform_id === f.other.platform_id ? f.other.api_key : f.own.api_key,
      }));
    case "CounselorToken":
      return fc
        .constantFrom<Pick<string>>(
          (f) => session(f).counselor_token,
          (f) => session(f).counselor_token,
          (f) => f.expired,
        )
        .map(bearer);
    case "PatientToken":
      return fc.constant(bearer((f) => session(f).patient_token));
    default:
      return credentials;
  }
}

const contentType = fc.option(
  fc.oneof(
    fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "application/json; charset=utf-16",
      "application/merge-patch+json",
      "text/plain",
      "multipart/form-data; boundary=x",
      "",
    ),
    text,
  ),
  { nil: undefined },
);

const contentLength = fc.option(fc.constantFrom("0", "1", "5", "16385", "99999999", "-1", "abc"), {
  nil: undefined,
});

/** A value shaped by a JSON schema, often valid, sometimes just out of range or of the wrong type. */
function fromSchema(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (schema.$ref) {
    const target = schemas[schema.$ref.replace("#/components/schemas/", "")];
    return target ? fromSchema(target, depth) : fc.jsonValue();
  }
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return fc.oneof(...variants.map((variant) => fromSchema(variant, depth + 1)));
  if (schema.enum) return fc.oneof(fc.constantFrom(...schema.enum), text);
  const wrong = fc.oneof(fc.constant(null), fc.boolean(), text, fc.double());
  switch (schema.type) {
    case "string":
      return fc.oneof(
        fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 60) }),
        fc.constant("s".repeat((schema.maxLength ?? 40) + 1)),
        wrong,
      );
    case "number":
    case "integer":
      return fc.oneof(
        fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true }),
        fc.integer({ min: Math.ceil(schema.minimum ?? -1e6), max: Math.floor(schema.maximum ?? 1e6) }),
        fc.constantFrom((schema.maximum ?? 0) + 1, (schema.minimum ?? 0) - 1, 1e308, -0),
        wrong,
      );
    case "object": {
      if (depth > 3) return fc.constant({});
      const properties = Object.entries(schema.properties ?? {});
      const shaped = fc.record(
        Object.fromEntries(properties.map(([name, inner]) => [name, fromSchema(inner, depth + 1)])),
        { requiredKeys: [] },
      );
      return fc.oneof(
        shaped,
        fc.tuple(shaped, text, fc.jsonValue()).map(([value, key, extra]) => ({ ...value, [key]: extra })),
        wrong,
      );
    }
    default:
      return fc.jsonValue();
  }
}

function bodyFor(operation: Operation): fc.Arbitrary<BodyInit | undefined> {
  const shaped = operation.body ? [fromSchema(operation.body).map((value) => JSON.stringify(value))] : [];
  return fc.oneof(
    fc.constant(undefined),
    fc.constant(""),
    ...shaped,
    ...shaped,
    ...shaped,
    fc.jsonValue().map((value) => JSON.stringify(value)),
    text,
    fc.constant('{"name":"é","meeting_id":"ü"}'),
    fc.constant(`{"padding":"${"x".repeat(17_000)}"}`),
    fc.uint8Array({ maxLength: 64 }),
  );
}

const request = fc
  .tuple(fc.nat(), target)
  .chain(([index, session]) => {
    const operation = operations[index % operations.length] as Operation;
    const pathParameters = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? "");
    const coherent = (name: string): fc.Arbitrary<Pick<string>> | null =>
      name === "platformId"
        ? fc.constant((f: Fixtures) => session(f).platform_id)
        : name === "sessionId"
          ? fc.constant((f: Fixtures) => session(f).session_id)
          : null;
    return fc.record({
      operation: fc.constant(operation),
      method: fc.oneof(
        { weight: 9, arbitrary: fc.constant(operation.method) },
        { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH") },
      ),
      params: fc.tuple(
        ...pathParameters.map((name) => {
          const matching = coherent(name);
          return matching
            ? fc.oneof({ weight: 3, arbitrary: matching }, { weight: 1, arbitrary: pathValue(name) })
            : pathValue(name);
        }),
      ),
      credentials: fc.oneof(
        { weight: 3, arbitrary: rightCredentials(operation.security, session) },
        { weight: 2, arbitrary: credentials },
      ),
      contentType: fc.oneof(
        { weight: 1, arbitrary: fc.constant("application/json") },
        { weight: 1, arbitrary: contentType },
      ),
      contentLength,
      body: bodyFor(operation),
      query: fc.record({
        token: fc.option(token, { nil: undefined }),
        after: fc.option(fc.oneof(fc.nat().map(String), text), { nil: undefined }),
        limit: fc.option(fc.oneof(fc.integer({ min: -5, max: 1100 }).map(String), text), { nil: undefined }),
      }),
      idempotencyKey: fc.option(fc.oneof(fc.constantFrom("fuzz-key", "k".repeat(256)), text), {
        nil: undefined,
      }),
      // Upgrade headers mostly where they mean something (elsewhere the runtime turns the request into a GET).
      upgrade: fc.oneof(
        { weight: operation.path === "/ws" ? 1 : 10, arbitrary: fc.constant(undefined) },
        {
          weight: 1,
          arbitrary: fc.constantFrom<Record<string, string>>(
            UPGRADE_HEADERS,
            { Upgrade: "websocket" },
            { Upgrade: "h2c", Connection: "Upgrade" },
          ),
        },
      ),
    });
  })
  .map((generated) => ({
    ...generated,
    // A readable summary for the report of a failing case.
    toString: () => `${generated.method} ${generated.operation.path}`,
  }));

type Generated = typeof request extends fc.Arbitrary<infer T> ? T : never;

function build(generated: Generated, f: Fixtures): Request {
  let path = generated.operation.path;
  generated.params.forEach((pick, i) => {
    const name = [...generated.operation.path.matchAll(/\{(\w+)\}/g)][i]?.[0] ?? "";
    path = path.replace(name, encodeURIComponent(pick(f)));
  });
  const query = new URLSearchParams();
  if (generated.query.token) query.set("token", generated.query.token(f));
  if (generated.query.after !== undefined) query.set("after", generated.query.after);
  if (generated.query.limit !== undefined) query.set("limit", generated.query.limit);
  const search = query.size > 0 ? `?${query}` : "";
  const headers = new Headers(generated.credentials(f));
  if (generated.contentType !== undefined) headers.set("Content-Type", generated.contentType);
  if (generated.contentLength !== undefined) headers.set("Content-Length", generated.contentLength);
  if (generated.idempotencyKey !== undefined) headers.set("Idempotency-Key", generated.idempotencyKey);
  for (const [name, value] of Object.entries(generated.upgrade ?? {})) headers.set(name, value);
  const canHaveBody = generated.method !== "GET" && generated.method !== "HEAD";
  return new Request(`${BASE}${path}${search}`, {
    method: generated.method,
    headers,
    body: canHaveBody ? generated.body : undefined,
  });
}

// ---------------------------------------------------------------------------
// What "nothing stored" means: every D1 row, and each fixture session's record, trail and sockets.

async function storedState(f: Fixtures): Promise<string> {
  const tables = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'd1_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  ).all<{ name: string }>();
  const rows: Record<string, unknown> = {};
  for (const { name } of tables.results) {
    rows[name] = (await env.DB.prepare(`SELECT * FROM "${name}" ORDER BY 1`).all()).results;
  }
  const sessions: unknown[] = [];
  for (const session of [f.live, f.ended, f.foreign]) {
    sessions.push(
      await runInDurableObject(sessionStubOf(session.session_id), (_instance, state) => ({
        record: state.storage.kv.get("session"),
        trail: state.storage.sql.exec("SELECT * FROM audit_events ORDER BY seq").toArray(),
        sockets: state.storage.sql.exec("SELECT * FROM open_sockets ORDER BY socket_id").toArray(),
      })),
    );
  }
  return JSON.stringify({ rows, sessions });
}

/** Ids minted while the request ran: none may name a stored session after a refusal. */
async function mintedSessions(ids: string[]): Promise<string[]> {
  const stored: string[] = [];
  for (const id of ids) {
    const found = await runInDurableObject(sessionStubOf(id), (_instance, state) =>
      state.storage.kv.get("session"),
    );
    if (found !== undefined) stored.push(id);
  }
  return stored;
}

describe("every route of the OpenAPI document, fuzzed", () => {
  it("never answers 5xx, always answers errors as problem+json, and stores nothing for a refusal", async () => {
    expect(operations.length).toBeGreaterThanOrEqual(12);
    let f = await fixtures();
    let runs = 0;
    const statuses = new Map<number, number>();
    const realRandomUUID = crypto.randomUUID.bind(crypto);
    await fc.assert(
      fc.asyncProperty(request, async (generated) => {
        if (runs > 0 && runs % FIXTURE_RUNS === 0) f = await fixtures();
        runs++;
        const before = await storedState(f);
        const minted: string[] = [];
        crypto.randomUUID = () => {
          const id = realRandomUUID();
          minted.push(id);
          return id;
        };
        let res: Response;
        try {
          res = await exports.default.fetch(build(generated, f));
        } finally {
          crypto.randomUUID = realRandomUUID;
        }
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.webSocket) {
          res.webSocket.accept();
          res.webSocket.close(1000, "fuzz");
        }
        const text = await res.text();
        expect(res.status, text).toBeLessThan(500);
        if (res.status < 400) return;
        expect(res.headers.get("Content-Type")).toBe("application/problem+json");
        const problem = JSON.parse(text) as { status: number; code: string; type: string; title: string };
        expect(problem.status).toBe(res.status);
        expect(problem.code).toMatch(/^[a-z_]+$/);
        expect(problem.type).toContain(problem.code);
        expect(text).not.toMatch(/at \S+ \(|stack/i);
        expect(await storedState(f), "a refused request changed what is stored").toBe(before);
        expect(await mintedSessions(minted)).toEqual([]);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // The fuzz reached past the front door: refusals of every kind and successes both.
    for (const status of [200, 400, 401, 403, 404, 409, 410, 413, 415]) {
      expect(statuses.get(status) ?? 0, `no ${status} in ${JSON.stringify([...statuses])}`).toBeGreaterThan(
        0,
      );
    }
  }, 120_000);
});
