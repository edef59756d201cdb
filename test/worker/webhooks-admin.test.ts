// Admin webhook routes: set, keep, rotate and remove a platform's webhook, and every refusal as a problem.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { checkWebhookUrl } from "../../src/webhooks/url.ts";
import { ADMIN_HEADERS, BASE, call, newPlatform } from "./helpers.ts";

const HOOK = "https://platform.example.com/hooks/sos";

function webhookPath(platformId: string, suffix = ""): string {
  return `/v1/admin/platforms/${platformId}/webhook${suffix}`;
}

function putWebhook(platformId: string, body: unknown, headers: Record<string, string> = ADMIN_HEADERS) {
  return call(webhookPath(platformId), {
    method: "PUT",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function expectProblem(res: Response, status: number, code: string): Promise<{ detail: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  const body = await res.json<{ code: string; status: number; detail: string }>();
  expect(body.code).toBe(code);
  expect(body.status).toBe(status);
  return body;
}

describe("PUT /v1/admin/platforms/{id}/webhook", () => {
  it("creates the webhook and shows a whsec_ secret of 32 random bytes once", async () => {
    const platform = await newPlatform();
    const before = Date.now();
    const res = await putWebhook(platform.platform_id, { url: HOOK });
    expect(res.status).toBe(200);
    const body = await res.json<{ url: string; events: unknown; secret: string; updated_at: string }>();
    expect(body.url).toBe(HOOK);
    expect(body.events).toBeNull();
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(atob(body.secret.slice("whsec_".length))).toHaveLength(32);
    expect(Date.parse(body.updated_at)).toBeGreaterThanOrEqual(before - 1);
    expect(Object.keys(body).sort()).toEqual(["events", "secret", "updated_at", "url"]);
  });

  it("keeps the secret on a second PUT and does not show it again", async () => {
    const platform = await newPlatform();
    const first = await (await putWebhook(platform.platform_id, { url: HOOK })).json<{ secret: string }>();
    const res = await putWebhook(platform.platform_id, {
      url: "https://other.example.com/x",
      events: ["session.sos_triggered", "session.psaps_delivered", "session.sos_triggered"],
    });
    expect(res.status).toBe(200);
    const second = await res.json<{ url: string; events: string[]; secret: string | null }>();
    expect(second.secret).toBeNull();
    expect(second.url).toBe("https://other.example.com/x");
    expect(second.events).toEqual(["session.sos_triggered", "session.psaps_delivered"]);
    const stored = await env.DB.prepare("SELECT secret FROM platform_webhooks WHERE platform_id = ?")
      .bind(platform.platform_id)
      .first<{ secret: string }>();
    expect(stored?.secret).toBe(first.secret);
  });

  it("gives a new secret after the webhook was removed and set again", async () => {
    const platform = await newPlatform();
    const first = await (await putWebhook(platform.platform_id, { url: HOOK })).json<{ secret: string }>();
    expect(
      (await call(webhookPath(platform.platform_id), { method: "DELETE", headers: ADMIN_HEADERS })).status,
    ).toBe(204);
    const again = await (await putWebhook(platform.platform_id, { url: HOOK })).json<{ secret: string }>();
    expect(again.secret).toMatch(/^whsec_/);
    expect(again.secret).not.toBe(first.secret);
  });

  it("refuses an unknown platform with 404", async () => {
    await expectProblem(await putWebhook("plt_missing", { url: HOOK }), 404, "not_found");
  });

  it("refuses a missing or wrong admin token with 401", async () => {
    const platform = await newPlatform();
    await expectProblem(
      await putWebhook(platform.platform_id, { url: HOOK }, {}),
      401,
      "missing_credentials",
    );
    await expectProblem(
      await putWebhook(platform.platform_id, { url: HOOK }, { Authorization: "Bearer nope" }),
      401,
      "invalid_admin_token",
    );
  });

  it.each([
    ["http to a public host", { url: "http://platform.example.com/hook" }, "url"],
    ["not a URL", { url: "hooks/sos" }, "url"],
    ["ftp", { url: "ftp://platform.example.com/hook" }, "url"],
    ["credentials in the URL", { url: "https://user:pass@platform.example.com/hook" }, "url"],
    ["an unknown event type", { url: HOOK, events: ["session.teleported"] }, "events.0"],
    ["an empty event list", { url: HOOK, events: [] }, "events"],
    ["no url", {}, "url"],
  ])("refuses %s with a 400 naming the field", async (_name, body, field) => {
    const platform = await newPlatform();
    const problem = await expectProblem(await putWebhook(platform.platform_id, body), 400, "invalid_request");
    expect(JSON.stringify(problem)).toContain(field);
    const stored = await env.DB.prepare("SELECT COUNT(*) AS n FROM platform_webhooks WHERE platform_id = ?")
      .bind(platform.platform_id)
      .first<{ n: number }>();
    expect(stored?.n).toBe(0);
  });

  it("refuses an unknown field, bad JSON and a non-JSON body", async () => {
    const platform = await newPlatform();
    await expectProblem(
      await putWebhook(platform.platform_id, { url: HOOK, secret: "x" }),
      400,
      "unknown_field",
    );
    await expectProblem(await putWebhook(platform.platform_id, "{"), 400, "invalid_json");
    const res = await call(webhookPath(platform.platform_id), {
      method: "PUT",
      headers: { ...ADMIN_HEADERS, "Content-Type": "text/plain" },
      body: JSON.stringify({ url: HOOK }),
    });
    await expectProblem(res, 415, "unsupported_media_type");
  });

  it("takes plain http to a loopback receiver in local development", async () => {
    const platform = await newPlatform();
    const res = await putWebhook(platform.platform_id, { url: "http://127.0.0.1:9999/hook" });
    expect(res.status).toBe(200);
  });
});

/** Hosts that reach this machine, its networks or nobody: refused once deployed, however spelled. */
const NOT_PUBLIC = [
  // loopback, in every spelling the URL parser (and so fetch) reads as 127.0.0.1, ::1 or localhost
  "https://127.0.0.1/",
  "https://127.1/",
  "https://0177.0.0.1/",
  "https://2130706433/",
  "https://0x7f000001/",
  "https://127.0.0.1./",
  "https://localhost/",
  "https://localhost./",
  "https://LOCALHOST:8443/",
  "https://api.localhost/",
  "https://[::1]/",
  "https://[::ffff:127.0.0.1]/",
  "https://[::ffff:7f00:1]/",
  "https://[::127.0.0.1]/",
  "https://[0:0:0:0:0:0:0:1]/",
  // unspecified (connects to this machine on most systems)
  "https://0.0.0.0/",
  "https://0/",
  "https://0.0.0.0:8443/",
  "https://[::]/",
  "https://[::ffff:0.0.0.0]/",
  // private, shared (CGNAT), link-local (cloud metadata), unique-local
  "https://10.0.0.1/",
  "https://10.255.255.255/",
  "https://172.16.0.1/",
  "https://172.31.255.1/",
  "https://192.168.0.1/",
  "https://100.64.0.1/",
  "https://169.254.169.254/latest/meta-data/",
  "https://[fe80::1]/",
  "https://[fd00:ec2::254]/",
  "https://[fd00::1]/",
  "https://[fc00::1]/",
  "https://[::ffff:10.0.0.1]/",
  "https://[::ffff:169.254.169.254]/",
  "https://[64:ff9b::a00:1]/",
  // multicast, broadcast, documentation, benchmark, reserved
  "https://224.0.0.1/",
  "https://[ff02::1]/",
  "https://255.255.255.255/",
  "https://192.0.2.10/",
  "https://198.51.100.7/",
  "https://203.0.113.9/",
  "https://198.18.0.1/",
  "https://240.0.0.1/",
  "https://[2001:db8::1]/",
  "https://[2002:a00:1::]/",
  // names that resolve locally by convention
  "https://printer.local/",
  "https://metadata.google.internal/",
  "https://router.home.arpa/",
];

/** Public destinations: these pass in production. */
const PUBLIC = [
  "https://platform.example.com/hooks/sos",
  "https://platform.example.com./hooks/sos",
  "https://8.8.8.8/",
  "https://1.1.1.1:8443/h",
  "https://[2606:4700:4700::1111]/",
  "https://[::ffff:8.8.8.8]/",
  "https://172.32.0.1/",
  "https://100.128.0.1/",
];

/** The app as deployed: the same worker, WEBHOOK_ALLOW_LOOPBACK_HTTP "false". */
async function callDeployed(path: string, init: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${BASE}${path}`, init),
    { ...env, WEBHOOK_ALLOW_LOOPBACK_HTTP: "false" },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

describe("which URLs a deployment takes", () => {
  it.each(NOT_PUBLIC)("refuses %s once deployed, with a 400 naming url", async (url) => {
    expect(checkWebhookUrl(url, false).ok).toBe(false);
    const platform = await newPlatform();
    const res = await callDeployed(webhookPath(platform.platform_id), {
      method: "PUT",
      headers: { ...ADMIN_HEADERS, "Content-Type": "application/json" },
      body: JSON.stringify({ url }),
    });
    const problem = await expectProblem(res, 400, "invalid_request");
    expect(JSON.stringify(problem)).toContain("url");
  });

  it.each(PUBLIC)("takes %s once deployed", (url) => {
    expect(checkWebhookUrl(url, false).ok).toBe(true);
  });

  it("keeps plain http (and https) to loopback in local development only, and nothing else local", () => {
    for (const url of [
      "http://127.0.0.1:9000/h",
      "http://[::1]:9000/h",
      "http://localhost:9000/h",
      "https://127.0.0.1/",
    ]) {
      expect(checkWebhookUrl(url, true).ok, url).toBe(true);
      expect(checkWebhookUrl(url, false).ok, url).toBe(false);
    }
    for (const url of [
      "http://10.0.0.1/h",
      "https://10.0.0.1/h",
      "https://0.0.0.0:9000/",
      "http://platform.example.com/h",
    ]) {
      expect(checkWebhookUrl(url, true).ok, url).toBe(false);
    }
    expect(checkWebhookUrl(`https://x.example.com/${"a".repeat(2100)}`, false).ok).toBe(false);
  });

  it("reports the normalised URL it stored", () => {
    expect(checkWebhookUrl("https://Platform.Example.COM/h", false)).toEqual({
      ok: true,
      url: "https://platform.example.com/h",
    });
  });
});

describe("POST /v1/admin/platforms/{id}/webhook/rotate-secret", () => {
  it("issues a new secret and keeps the old one signing for 24 hours", async () => {
    const platform = await newPlatform();
    const first = await (await putWebhook(platform.platform_id, { url: HOOK })).json<{ secret: string }>();
    const res = await call(webhookPath(platform.platform_id, "/rotate-secret"), {
      method: "POST",
      headers: ADMIN_HEADERS,
    });
    expect(res.status).toBe(200);
    const rotated = await res.json<{ secret: string }>();
    expect(Object.keys(rotated)).toEqual(["secret"]);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(first.secret);
    const row = await env.DB.prepare(
      "SELECT secret, previous_secret, previous_secret_until FROM platform_webhooks WHERE platform_id = ?",
    )
      .bind(platform.platform_id)
      .first<{ secret: string; previous_secret: string; previous_secret_until: string }>();
    expect(row?.secret).toBe(rotated.secret);
    expect(row?.previous_secret).toBe(first.secret);
    const overlap = Date.parse(row?.previous_secret_until ?? "") - Date.now();
    expect(overlap).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(overlap).toBeLessThanOrEqual(24 * 3600_000);
  });

  it("answers 404 for an unknown platform, or one without a webhook", async () => {
    const platform = await newPlatform();
    const path = (id: string) => webhookPath(id, "/rotate-secret");
    await expectProblem(
      await call(path("plt_missing"), { method: "POST", headers: ADMIN_HEADERS }),
      404,
      "not_found",
    );
    const none = await expectProblem(
      await call(path(platform.platform_id), { method: "POST", headers: ADMIN_HEADERS }),
      404,
      "not_found",
    );
    expect(none.detail).toMatch(/no webhook/);
    await expectProblem(
      await call(path(platform.platform_id), { method: "POST" }),
      401,
      "missing_credentials",
    );
  });
});

describe("DELETE /v1/admin/platforms/{id}/webhook", () => {
  it("removes the webhook with 204, and again with 204", async () => {
    const platform = await newPlatform();
    await putWebhook(platform.platform_id, { url: HOOK });
    for (let i = 0; i < 2; i++) {
      const res = await call(webhookPath(platform.platform_id), { method: "DELETE", headers: ADMIN_HEADERS });
      expect(res.status).toBe(204);
      expect(await res.text()).toBe("");
    }
    const stored = await env.DB.prepare("SELECT COUNT(*) AS n FROM platform_webhooks WHERE platform_id = ?")
      .bind(platform.platform_id)
      .first<{ n: number }>();
    expect(stored?.n).toBe(0);
  });

  it("answers 404 for an unknown platform and 401 without the admin token", async () => {
    await expectProblem(
      await call(webhookPath("plt_missing"), { method: "DELETE", headers: ADMIN_HEADERS }),
      404,
      "not_found",
    );
    await expectProblem(
      await call(webhookPath("plt_missing"), { method: "DELETE" }),
      401,
      "missing_credentials",
    );
  });

  it("answers 405 for another method on the route", async () => {
    const platform = await newPlatform();
    const res = await call(webhookPath(platform.platform_id), { method: "GET", headers: ADMIN_HEADERS });
    await expectProblem(res, 405, "method_not_allowed");
  });
});

describe("the OpenAPI document", () => {
  it("describes the webhook routes and the events the service sends", async () => {
    const doc = await (await call("/v1/openapi.json")).json<{
      paths: Record<string, Record<string, unknown>>;
      webhooks?: Record<string, { post?: { requestBody?: unknown } }>;
      components: { schemas: Record<string, unknown> };
    }>();
    expect(Object.keys(doc.paths["/v1/admin/platforms/{platformId}/webhook"] ?? {}).sort()).toEqual([
      "delete",
      "put",
    ]);
    expect(doc.paths["/v1/admin/platforms/{platformId}/webhook/rotate-secret"]).toHaveProperty("post");
    expect(doc.paths["/v1/platforms/{platformId}/webhook/deliveries"]).toHaveProperty("get");
    expect(doc.webhooks?.sessionEvent?.post?.requestBody).toBeDefined();
    expect(doc.components.schemas).toHaveProperty("WebhookEvent");
  });
});
