// Who may do what: every credential failure of docs/contract.md, section 1, 2 and 7, on HTTP and on /ws alike.
import { env } from "cloudflare:workers";
import { generateKeyPair, importJWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { SessionCreateResponse } from "../../sdk/src/protocol.ts";
import {
  ADMIN_HEADERS,
  asCounselor,
  asPlatform,
  call,
  newPlatform,
  newSession,
  postJson,
  SESSION_BODY,
  sessionPath,
} from "./helpers.ts";

async function codeOf(res: Response): Promise<string> {
  return (await res.json<{ code: string }>()).code;
}

function claimsOf(token: string): Record<string, unknown> {
  const payload = token.split(".")[1] ?? "";
  return JSON.parse(atob(payload.replaceAll("-", "+").replaceAll("_", "/")));
}

/** Signs claims with the service's own test key (as a genuine token would be). */
async function signWithServiceKey(claims: Record<string, unknown>): Promise<string> {
  const jwk = JSON.parse(env.JWT_SIGNING_KEY) as { kid: string };
  const key = await importJWK(jwk, "EdDSA");
  return new SignJWT(claims).setProtectedHeader({ alg: "EdDSA", kid: jwk.kid, typ: "JWT" }).sign(key);
}

function trigger(session: SessionCreateResponse, token: string): Promise<Response> {
  return postJson(sessionPath(session, "/sos"), {}, { Authorization: `Bearer ${token}` });
}

function probe(token: string): Promise<Response> {
  return call(`/ws?token=${encodeURIComponent(token)}`);
}

describe("platform API keys", () => {
  it("refuses a request without a key with 401 missing_credentials", async () => {
    const platform = await newPlatform();
    const res = await postJson(`/v1/platforms/${platform.platform_id}/sessions`, SESSION_BODY);
    expect(res.status).toBe(401);
    expect(await codeOf(res)).toBe("missing_credentials");
  });

  it("refuses an unknown key with 401 invalid_api_key", async () => {
    const platform = await newPlatform();
    const res = await postJson(`/v1/platforms/${platform.platform_id}/sessions`, SESSION_BODY, {
      "X-API-Key": `sk_live_${"A".repeat(40)}`,
    });
    expect(res.status).toBe(401);
    expect(await codeOf(res)).toBe("invalid_api_key");
  });

  it("refuses another platform's key with 403", async () => {
    const mine = await newPlatform("mine");
    const theirs = await newPlatform("theirs");
    const res = await postJson(`/v1/platforms/${mine.platform_id}/sessions`, SESSION_BODY, {
      "X-API-Key": theirs.api_key,
    });
    expect(res.status).toBe(403);
    expect(await codeOf(res)).toBe("forbidden");
  });

  it("keeps an old key working after rotation, and refuses a revoked one", async () => {
    const platform = await newPlatform();
    const rotated = await postJson(`/v1/admin/platforms/${platform.platform_id}/api-keys`, {}, ADMIN_HEADERS);
    expect(rotated.status).toBe(201);
    const fresh = await rotated.json<{ api_key: string; api_key_id: string }>();
    expect(fresh.api_key).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
    await newSession(platform);
    await newSession({ ...platform, api_key: fresh.api_key });

    const revoke = await call(`/v1/admin/platforms/${platform.platform_id}/api-keys/${platform.api_key_id}`, {
      method: "DELETE",
      headers: ADMIN_HEADERS,
    });
    expect(revoke.status).toBe(204);
    // Revocation reaches every isolate within the API-key cache time (5 s); wait it out.
    await new Promise((resolve) => setTimeout(resolve, 5_100));
    const refused = await postJson(`/v1/platforms/${platform.platform_id}/sessions`, SESSION_BODY, {
      "X-API-Key": platform.api_key,
    });
    expect(refused.status).toBe(401);
    expect(await codeOf(refused)).toBe("invalid_api_key");
    await newSession({ ...platform, api_key: fresh.api_key });
  });
});

describe("admin API", () => {
  it("refuses a request without the admin token, and with a wrong one", async () => {
    const none = await postJson("/v1/admin/platforms", { name: "x" });
    expect(none.status).toBe(401);
    expect(await codeOf(none)).toBe("missing_credentials");
    const wrong = await postJson("/v1/admin/platforms", { name: "x" }, { Authorization: "Bearer nope" });
    expect(wrong.status).toBe(401);
  });

  it("creates a platform with a URL-safe id and a key shown once", async () => {
    const res = await postJson("/v1/admin/platforms", { name: "Acme" }, ADMIN_HEADERS);
    expect(res.status).toBe(201);
    const body = await res.json<Record<string, string>>();
    expect(body.platform_id).toMatch(/^plt_[A-Za-z0-9_-]+$/);
    expect(body.name).toBe("Acme");
    expect(body.api_key).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
    expect(body.api_key_id).toBeTruthy();
    expect(body.created_at).toMatch(/Z$/);
  });

  it.each([
    ["an empty name", { name: "" }],
    ["a name over 200 characters", { name: "n".repeat(201) }],
    ["an unknown field", { name: "ok", plan: "gold" }],
  ])("refuses %s with 400", async (_name, body) => {
    const res = await postJson("/v1/admin/platforms", body, ADMIN_HEADERS);
    expect(res.status).toBe(400);
  });

  it("answers 404 for keys of an unknown platform", async () => {
    const create = await postJson("/v1/admin/platforms/plt_missing/api-keys", {}, ADMIN_HEADERS);
    expect(create.status).toBe(404);
    const revoke = await call("/v1/admin/platforms/plt_missing/api-keys/key_missing", {
      method: "DELETE",
      headers: ADMIN_HEADERS,
    });
    expect(revoke.status).toBe(404);
  });

  it("sends no CORS headers on admin and API-key routes", async () => {
    const res = await postJson(
      "/v1/admin/platforms",
      { name: "x" },
      { ...ADMIN_HEADERS, Origin: "https://evil.example" },
    );
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});

describe("session tokens", () => {
  it("refuses a trigger without a token with 401 missing_credentials", async () => {
    const session = await newSession(await newPlatform());
    const res = await postJson(sessionPath(session, "/sos"), {});
    expect(res.status).toBe(401);
    expect(await codeOf(res)).toBe("missing_credentials");
  });

  it("refuses a patient token where a counselor's is needed, and the reverse, with 403", async () => {
    const session = await newSession(await newPlatform());
    const asPatientTrigger = await trigger(session, session.patient_token);
    expect(asPatientTrigger.status).toBe(403);
    expect(await codeOf(asPatientTrigger)).toBe("forbidden");
    await asCounselor(session, "/sos");
    const asCounselorLocation = await postJson(
      sessionPath(session, "/sos/location"),
      { latitude: 41.88, longitude: -87.63 },
      { Authorization: `Bearer ${session.counselor_token}` },
    );
    expect(asCounselorLocation.status).toBe(403);
  });

  it("refuses another session's token with 403", async () => {
    const platform = await newPlatform();
    const mine = await newSession(platform);
    const other = await newSession(platform);
    const res = await trigger(mine, other.counselor_token);
    expect(res.status).toBe(403);
  });

  it("refuses a token on another platform's path with 403", async () => {
    const session = await newSession(await newPlatform());
    const res = await postJson(
      `/v1/platforms/plt_other/sessions/${session.session_id}/sos`,
      {},
      { Authorization: `Bearer ${session.counselor_token}` },
    );
    expect(res.status).toBe(403);
  });

  it("refuses an unsigned (alg: none) token with 401", async () => {
    const session = await newSession(await newPlatform());
    const header = btoa(JSON.stringify({ alg: "none", typ: "JWT" })).replaceAll("=", "");
    const payload = session.counselor_token.split(".")[1];
    const res = await trigger(session, `${header}.${payload}.`);
    expect(res.status).toBe(401);
    expect(await codeOf(res)).toBe("invalid_token");
    expect((await probe(`${header}.${payload}.`)).status).toBe(401);
  });

  it("refuses a tampered signature with 401", async () => {
    const session = await newSession(await newPlatform());
    const [h, p, sig = ""] = session.counselor_token.split(".");
    const flipped = (sig[0] === "A" ? "B" : "A") + sig.slice(1);
    const res = await trigger(session, `${h}.${p}.${flipped}`);
    expect(res.status).toBe(401);
  });

  it("refuses claims changed after signing with 401", async () => {
    const session = await newSession(await newPlatform());
    const [h, , sig] = session.patient_token.split(".");
    const claims = { ...claimsOf(session.patient_token), aud: "counselor" };
    const forgedPayload = btoa(JSON.stringify(claims))
      .replaceAll("=", "")
      .replaceAll("+", "-")
      .replaceAll("/", "_");
    const res = await trigger(session, `${h}.${forgedPayload}.${sig}`);
    expect(res.status).toBe(401);
  });

  it("refuses a token signed by another key with 401", async () => {
    const session = await newSession(await newPlatform());
    const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const forged = await new SignJWT(claimsOf(session.counselor_token))
      .setProtectedHeader({ alg: "EdDSA", kid: JSON.parse(env.JWT_SIGNING_KEY).kid })
      .sign(privateKey);
    expect((await trigger(session, forged)).status).toBe(401);
    expect((await probe(forged)).status).toBe(401);
  });

  it("refuses garbage with 401 on HTTP and on the socket probe", async () => {
    const session = await newSession(await newPlatform());
    expect((await trigger(session, "not-a-jwt")).status).toBe(401);
    expect((await probe("not-a-jwt")).status).toBe(401);
    expect((await call("/ws")).status).toBe(401);
  });

  it("answers 410 session_expired for a genuine token past its exp", async () => {
    const session = await newSession(await newPlatform());
    const now = Math.floor(Date.now() / 1000);
    const expired = await signWithServiceKey({
      ...claimsOf(session.counselor_token),
      iat: now - 7200,
      exp: now - 60,
    });
    const res = await trigger(session, expired);
    expect(res.status).toBe(410);
    expect(await codeOf(res)).toBe("session_expired");
    expect((await probe(expired)).status).toBe(410);
  });

  it("answers 410 session_ended after the end call, on HTTP and the socket probe", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    await asPlatform(platform, sessionPath(session, "/end"), "POST");
    const res = await trigger(session, session.counselor_token);
    expect(res.status).toBe(410);
    expect(await codeOf(res)).toBe("session_ended");
    const socket = await probe(session.patient_token);
    expect(socket.status).toBe(410);
    expect(await codeOf(socket)).toBe("session_ended");
  });

  it("answers 426 to a socket probe without Upgrade for a live session", async () => {
    const session = await newSession(await newPlatform());
    const res = await probe(session.patient_token);
    expect(res.status).toBe(426);
    expect(await codeOf(res)).toBe("upgrade_required");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
  });

  it("issues EdDSA tokens with a kid and the claims of the contract", async () => {
    const session = await newSession(await newPlatform());
    const header = JSON.parse(atob(session.patient_token.split(".")[0] ?? ""));
    expect(header).toMatchObject({ alg: "EdDSA", kid: JSON.parse(env.JWT_SIGNING_KEY).kid });
    const claims = claimsOf(session.patient_token);
    expect(claims).toMatchObject({
      iss: "https://sos.test",
      aud: "patient",
      sub: SESSION_BODY.patient_id,
      sid: session.session_id,
      pid: session.platform_id,
    });
    expect(typeof claims.jti).toBe("string");
    const expectedExp = Date.parse(session.expires_at) / 1000 + 24 * 3600;
    expect(Math.abs(Number(claims.exp) - expectedExp)).toBeLessThanOrEqual(1);
    expect(claimsOf(session.counselor_token)).toMatchObject({
      aud: "counselor",
      sub: SESSION_BODY.counselor_id,
    });
  });

  it("serves the public keys at /.well-known/jwks.json without private parts", async () => {
    const res = await call("/.well-known/jwks.json");
    expect(res.status).toBe(200);
    const { keys } = await res.json<{ keys: Record<string, string>[] }>();
    expect(keys[0]).toMatchObject({ kty: "OKP", crv: "Ed25519", kid: JSON.parse(env.JWT_SIGNING_KEY).kid });
    expect(keys.every((key) => !("d" in key))).toBe(true);
  });
});
