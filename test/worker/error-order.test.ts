// docs/contract.md, sections 1 and 7: which error wins (401, 403, 404, 410, 413, 415, 400, 409, 422, 503), the one
// media type accepted, and the WWW-Authenticate challenge of every 401.
import { env } from "cloudflare:workers";
import { importJWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { SessionCreateResponse } from "../../sdk/src/protocol.ts";
import {
  ADMIN_HEADERS,
  asPlatform,
  call,
  newPlatform,
  newSession,
  postJson,
  SESSION_BODY,
  sessionPath,
} from "./helpers.ts";

async function codeOf(res: Response): Promise<string> {
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  return (await res.json<{ code: string }>()).code;
}

function claimsOf(token: string): Record<string, unknown> {
  const payload = token.split(".")[1] ?? "";
  return JSON.parse(atob(payload.replaceAll("-", "+").replaceAll("_", "/")));
}

/** The session's own token, re-signed by the service's key with an `exp` in the past. */
async function expiredToken(token: string): Promise<string> {
  const jwk = JSON.parse(env.JWT_SIGNING_KEY) as { kid: string };
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ ...claimsOf(token), iat: now - 7200, exp: now - 60 })
    .setProtectedHeader({ alg: "EdDSA", kid: jwk.kid, typ: "JWT" })
    .sign(await importJWK(jwk, "EdDSA"));
}

function post(path: string, token: string, init: { body?: BodyInit; type?: string } = {}) {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (init.type !== undefined) headers["Content-Type"] = init.type;
  return call(path, { method: "POST", headers, body: init.body });
}

describe("a token past its exp", () => {
  it("is 403 on another session, 403 for another role, and 410 only on its own session and role", async () => {
    const platform = await newPlatform();
    const mine = await newSession(platform);
    const other = await newSession(platform);
    const expired = await expiredToken(mine.counselor_token);
    const onOther = await post(sessionPath(other, "/sos"), expired);
    expect(onOther.status).toBe(403);
    expect(await codeOf(onOther)).toBe("forbidden");
    const otherRole = await post(sessionPath(mine, "/sos/location"), expired, {
      body: JSON.stringify({ latitude: 1, longitude: 1 }),
      type: "application/json",
    });
    expect(otherRole.status).toBe(403);
    const otherPlatform = await post(`/v1/platforms/plt_other/sessions/${mine.session_id}/sos`, expired);
    expect(otherPlatform.status).toBe(403);
    const own = await post(sessionPath(mine, "/sos"), expired);
    expect(own.status).toBe(410);
    expect(await codeOf(own)).toBe("session_expired");
  });
});

describe("media types", () => {
  async function createWith(type: string | undefined, body: BodyInit = JSON.stringify(SESSION_BODY)) {
    const platform = await newPlatform();
    const headers: Record<string, string> = { "X-API-Key": platform.api_key };
    if (type !== undefined) headers["Content-Type"] = type;
    return call(`/v1/platforms/${platform.platform_id}/sessions`, { method: "POST", headers, body });
  }

  it.each([
    "application/merge-patch+json",
    "application/vnd.api+json",
    "application/json; charset=utf-16",
    "application/json; charset=iso-8859-1",
    "application/json; profile=x",
    "application/jsonx",
    "text/json",
    "text/plain",
  ])("refuses %s with 415", async (type) => {
    const res = await createWith(type);
    expect(res.status).toBe(415);
    expect(await codeOf(res)).toBe("unsupported_media_type");
  });

  it("refuses a body with no Content-Type with 415", async () => {
    expect((await createWith(undefined)).status).toBe(415);
  });

  it.each([
    "application/json",
    "Application/JSON",
    "application/json; charset=utf-8",
    'application/json;charset="UTF-8"',
  ])("accepts %s", async (type) => {
    expect((await createWith(type)).status).toBe(201);
  });

  it("refuses bytes that are not UTF-8 with 400 invalid_json", async () => {
    const body = new Uint8Array([0x7b, 0x22, 0x6d, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]);
    const res = await createWith("application/json", body);
    expect(res.status).toBe(400);
    expect(await codeOf(res)).toBe("invalid_json");
  });

  it("checks the size before the type, and the type before the JSON", async () => {
    expect((await createWith("text/plain", "x".repeat(16 * 1024 + 1))).status).toBe(413);
    expect((await createWith("text/plain", "{not json")).status).toBe(415);
    expect((await createWith("application/json", "{not json")).status).toBe(400);
  });

  it("refuses a trigger body of another type on the browser routes too", async () => {
    const session = await newSession(await newPlatform());
    const res = await post(sessionPath(session, "/sos"), session.counselor_token, {
      body: "{}",
      type: "application/merge-patch+json",
    });
    expect(res.status).toBe(415);
  });
});

describe("the order on the browser routes", () => {
  async function ended(): Promise<SessionCreateResponse> {
    const platform = await newPlatform();
    const session = await newSession(platform);
    await asPlatform(platform, sessionPath(session, "/end"), "POST");
    return session;
  }

  it("says 410 before 413, 415 and 400 for a session that is over", async () => {
    const session = await ended();
    const path = sessionPath(session, "/sos");
    const big = await post(path, session.counselor_token, { body: "x".repeat(20_000), type: "text/plain" });
    expect(big.status).toBe(410);
    const typed = await post(path, session.counselor_token, { body: "{}", type: "text/plain" });
    expect(typed.status).toBe(410);
  });

  it("says 413 before 415 before 400 before 409 for a live session", async () => {
    const session = await newSession(await newPlatform());
    const path = sessionPath(session, "/sos/location");
    const token = session.patient_token;
    expect((await post(path, token, { body: "x".repeat(20_000), type: "text/plain" })).status).toBe(413);
    expect((await post(path, token, { body: "{}", type: "text/plain" })).status).toBe(415);
    expect((await post(path, token, { body: "{}", type: "application/json" })).status).toBe(400);
    const notInSos = await post(path, token, {
      body: JSON.stringify({ latitude: 1, longitude: 1 }),
      type: "application/json",
    });
    expect(notInSos.status).toBe(409);
  });
});

describe("WWW-Authenticate on 401", () => {
  it("challenges for a bearer token on the browser routes and /ws", async () => {
    const session = await newSession(await newPlatform());
    const missing = await call(sessionPath(session, "/sos"), { method: "POST" });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("WWW-Authenticate")).toBe('Bearer realm="sos"');
    const forged = await post(sessionPath(session, "/sos"), "a.b.c");
    expect(forged.status).toBe(401);
    expect(forged.headers.get("WWW-Authenticate")).toBe('Bearer realm="sos", error="invalid_token"');
    const socket = await call("/ws?token=nonsense");
    expect(socket.status).toBe(401);
    expect(socket.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
    expect((await call("/ws")).headers.get("WWW-Authenticate")).toBe('Bearer realm="sos"');
  });

  it("challenges for an API key and for the admin token", async () => {
    const platform = await newPlatform();
    const noKey = await postJson(`/v1/platforms/${platform.platform_id}/sessions`, SESSION_BODY);
    expect(noKey.headers.get("WWW-Authenticate")).toMatch(/^ApiKey realm="sos"/);
    const badKey = await postJson(`/v1/platforms/${platform.platform_id}/sessions`, SESSION_BODY, {
      "X-API-Key": "sk_live_nope",
    });
    expect(badKey.status).toBe(401);
    expect(badKey.headers.get("WWW-Authenticate")).toMatch(/^ApiKey realm="sos"/);
    const admin = await postJson("/v1/admin/platforms", { name: "x" }, { Authorization: "Bearer wrong" });
    expect(admin.status).toBe(401);
    expect(admin.headers.get("WWW-Authenticate")).toMatch(/^Bearer realm="sos-admin", error="invalid_token"/);
    const ok = await postJson("/v1/admin/platforms", { name: "x" }, ADMIN_HEADERS);
    expect(ok.headers.get("WWW-Authenticate")).toBeNull();
  });

  it("sends no challenge with a 403", async () => {
    const platform = await newPlatform();
    const other = await newPlatform("other");
    const res = await postJson(`/v1/platforms/${platform.platform_id}/sessions`, SESSION_BODY, {
      "X-API-Key": other.api_key,
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("WWW-Authenticate")).toBeNull();
  });
});
