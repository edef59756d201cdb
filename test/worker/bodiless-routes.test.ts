// docs/contract.md, section 2, 3 and 7: the routes that take no body (an end, a new API key, a revocation, the
// webhook's removal and secret rotation) take nothing or `{}`, as the SOS trigger does, and refuse
// anything else with 413, 415 or 400 after their own 404 or 410, changing nothing when they refuse.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  ADMIN_HEADERS,
  asPlatform,
  call,
  newPlatform,
  newSession,
  SESSION_BODY,
  sessionPath,
  type TestPlatform,
} from "./helpers.ts";

/** The bodies refused, with the status and code each gets, in the contract's order of 413, 415, 400. */
const REFUSED: { body: string; type?: string; status: number; code: string }[] = [
  {
    body: JSON.stringify({ padding: "x".repeat(17_000) }),
    type: "text/plain",
    status: 413,
    code: "payload_too_large",
  },
  { body: "hello", type: "text/plain", status: 415, code: "unsupported_media_type" },
  { body: "{}", status: 415, code: "unsupported_media_type" },
  { body: '{"reason":"done"}', type: "application/json", status: 400, code: "unknown_field" },
  { body: "[]", type: "application/json", status: 400, code: "invalid_request" },
  { body: "{nope", type: "application/json", status: 400, code: "invalid_json" },
];

function send(path: string, method: string, auth: Record<string, string>, body?: string, type?: string) {
  const headers: Record<string, string> = { ...auth };
  if (type !== undefined) headers["Content-Type"] = type;
  return call(path, { method, headers, body });
}

async function expectProblem(res: Response, status: number, code: string): Promise<void> {
  expect(res.status, code).toBe(status);
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  expect((await res.json<{ code: string }>()).code).toBe(code);
}

async function stateOf(platform: TestPlatform, path: string): Promise<string> {
  return (await (await asPlatform(platform, path)).json<{ state: string }>()).state;
}

describe("POST .../sessions/{id}/end", () => {
  it("refuses a body it cannot take and ends nothing; takes none, `{}`, or an empty body of any type", async () => {
    const platform = await newPlatform();
    const key = { "X-API-Key": platform.api_key };
    const session = await newSession(platform);
    for (const refused of REFUSED) {
      const res = await send(sessionPath(session, "/end"), "POST", key, refused.body, refused.type);
      await expectProblem(res, refused.status, refused.code);
      expect(await stateOf(platform, sessionPath(session))).toBe("active");
    }
    // `fetch` with an empty string body sends text/plain: nothing was sent, so nothing is refused.
    const empty = await send(sessionPath(session, "/end"), "POST", key, "", "text/plain;charset=UTF-8");
    expect(empty.status).toBe(200);
    expect(await stateOf(platform, sessionPath(session))).toBe("ended");
    const again = await send(sessionPath(session, "/end"), "POST", key, "{}", "application/json");
    expect(again.status).toBe(200);

    const other = await newSession(platform);
    const withObject = await send(sessionPath(other, "/end"), "POST", key, "{}", "application/json");
    expect(withObject.status).toBe(200);
    expect(await withObject.json()).toMatchObject({ session_id: other.session_id, state: "ended" });
  });

  it("says 404 for an unknown session before it looks at the body", async () => {
    const platform = await newPlatform();
    const unknown = `/v1/platforms/${platform.platform_id}/sessions/6f1c1c5e-8d1c-4c59-9d43-1b7c8a3f7a11/end`;
    const res = await send(unknown, "POST", { "X-API-Key": platform.api_key }, "hello", "text/plain");
    await expectProblem(res, 404, "not_found");
  });
});

describe("POST /v1/admin/platforms/{id}/api-keys and DELETE .../api-keys/{keyId}", () => {
  async function keysOf(platformId: string): Promise<{ id: string; revoked_at: string | null }[]> {
    const { results } = await env.DB.prepare("SELECT id, revoked_at FROM api_keys WHERE platform_id = ?")
      .bind(platformId)
      .all<{ id: string; revoked_at: string | null }>();
    return results;
  }

  it("issues no key for a refused body, says 404 for an unknown platform first, and issues one for `{}`", async () => {
    const platform = await newPlatform();
    const path = `/v1/admin/platforms/${platform.platform_id}/api-keys`;
    for (const refused of REFUSED) {
      const res = await send(path, "POST", ADMIN_HEADERS, refused.body, refused.type);
      await expectProblem(res, refused.status, refused.code);
    }
    expect(await keysOf(platform.platform_id)).toHaveLength(1);
    const unknown = await send(
      "/v1/admin/platforms/plt_nope/api-keys",
      "POST",
      ADMIN_HEADERS,
      "x",
      "text/plain",
    );
    await expectProblem(unknown, 404, "not_found");
    const created = await send(path, "POST", ADMIN_HEADERS, "{}", "application/json");
    expect(created.status).toBe(201);
    expect(await keysOf(platform.platform_id)).toHaveLength(2);
  });

  it("revokes nothing for a refused body, and says 404 for an unknown key first", async () => {
    const platform = await newPlatform();
    const path = `/v1/admin/platforms/${platform.platform_id}/api-keys/${platform.api_key_id}`;
    for (const refused of REFUSED) {
      const res = await send(path, "DELETE", ADMIN_HEADERS, refused.body, refused.type);
      await expectProblem(res, refused.status, refused.code);
    }
    expect(await keysOf(platform.platform_id)).toEqual([{ id: platform.api_key_id, revoked_at: null }]);
    expect((await newSession(platform, SESSION_BODY)).session_id).toMatch(/^[0-9a-f-]{36}$/);
    const unknownKey = `/v1/admin/platforms/${platform.platform_id}/api-keys/key_nope`;
    await expectProblem(await send(unknownKey, "DELETE", ADMIN_HEADERS, "x", "text/plain"), 404, "not_found");
    expect((await send(path, "DELETE", ADMIN_HEADERS)).status).toBe(204);
    expect((await keysOf(platform.platform_id))[0]?.revoked_at).not.toBeNull();
  });
});

describe("DELETE .../webhook and POST .../webhook/rotate-secret", () => {
  async function webhookRow(platformId: string): Promise<{ secret: string } | null> {
    return env.DB.prepare("SELECT secret FROM platform_webhooks WHERE platform_id = ?")
      .bind(platformId)
      .first<{ secret: string }>();
  }

  it("rotates and removes nothing for a refused body; 404 first when there is no webhook to rotate", async () => {
    const platform = await newPlatform();
    const path = `/v1/admin/platforms/${platform.platform_id}/webhook`;
    const none = await send(`${path}/rotate-secret`, "POST", ADMIN_HEADERS, "x", "text/plain");
    await expectProblem(none, 404, "not_found");
    const put = await call(path, {
      method: "PUT",
      headers: { ...ADMIN_HEADERS, "Content-Type": "application/json" },
      body: JSON.stringify({ url: "https://platform.example.com/hooks/sos" }),
    });
    expect(put.status).toBe(200);
    const before = await webhookRow(platform.platform_id);
    for (const refused of REFUSED) {
      const rotate = await send(`${path}/rotate-secret`, "POST", ADMIN_HEADERS, refused.body, refused.type);
      await expectProblem(rotate, refused.status, refused.code);
      const remove = await send(path, "DELETE", ADMIN_HEADERS, refused.body, refused.type);
      await expectProblem(remove, refused.status, refused.code);
    }
    expect(await webhookRow(platform.platform_id)).toEqual(before);
    const rotated = await send(`${path}/rotate-secret`, "POST", ADMIN_HEADERS, "{}", "application/json");
    expect(rotated.status).toBe(200);
    expect((await webhookRow(platform.platform_id))?.secret).not.toBe(before?.secret);
    expect((await send(path, "DELETE", ADMIN_HEADERS)).status).toBe(204);
    expect(await webhookRow(platform.platform_id)).toBeNull();
    const unknown = await send(
      "/v1/admin/platforms/plt_nope/webhook",
      "DELETE",
      ADMIN_HEADERS,
      "x",
      "text/plain",
    );
    await expectProblem(unknown, 404, "not_found");
  });
});
