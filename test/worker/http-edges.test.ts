// The edges every client meets: unknown routes and methods, CORS, rate limits, the OpenAPI document.

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import packageJson from "../../package.json";
import { readJsonBody } from "../../src/http/body.ts";
import { CreateSessionRequest } from "../../src/http/schemas.ts";
import { asCounselor, asPlatform, call, newPlatform, newSession, postJson, sessionPath } from "./helpers.ts";

const ORIGIN = "https://platform.example";

describe("unknown routes and methods", () => {
  it("answers an unknown route with a problem+json 404", async () => {
    const res = await call("/v2/nothing-here");
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ status: 404, code: "not_found", title: expect.any(String) });
  });

  it("answers a known route with another method with 405 and Allow", async () => {
    const res = await call("/v1/admin/platforms", { method: "GET" });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("POST");
    expect((await res.json<{ code: string }>()).code).toBe("method_not_allowed");
    const session = await call("/v1/platforms/plt_x/sessions/6f1c1c5e-8d1c-4c59-9d43-1b7c8a3f7a11", {
      method: "PUT",
    });
    expect(session.status).toBe(405);
  });
});

describe("CORS on the browser routes", () => {
  it("answers a preflight from any origin", async () => {
    const res = await call("/v1/platforms/plt_x/sessions/6f1c1c5e-8d1c-4c59-9d43-1b7c8a3f7a11/sos/location", {
      method: "OPTIONS",
      headers: {
        Origin: ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("authorization");
    expect(res.headers.get("Access-Control-Allow-Methods")).toContain("POST");
  });

  it("puts CORS headers on errors too", async () => {
    const res = await postJson(
      "/v1/platforms/plt_x/sessions/6f1c1c5e-8d1c-4c59-9d43-1b7c8a3f7a11/sos",
      {},
      { Origin: ORIGIN },
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Access-Control-Expose-Headers")).toContain("Retry-After");
    const socket = await call("/ws?token=nonsense", { headers: { Origin: ORIGIN } });
    expect(socket.headers.get("Access-Control-Allow-Origin")).toBe("*");
  });

  it("answers a cross-origin 429 with Retry-After it can read, and never refuses the first trigger", async () => {
    const session = await newSession(await newPlatform());
    const headers = { Authorization: `Bearer ${session.counselor_token}`, Origin: ORIGIN };
    let limited: Response | null = null;
    for (let i = 0; i < 40 && !limited; i++) {
      const res = await postJson(sessionPath(session, "/sos/cancel"), {}, headers);
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(409);
    }
    expect(limited).not.toBeNull();
    if (!limited) return;
    expect(limited.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(limited.headers.get("Access-Control-Expose-Headers")).toContain("Retry-After");
    const retryAfter = Number(limited.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect((await limited.json<{ code: string }>()).code).toBe("rate_limited");

    // Still over the rate: the first trigger goes through, a repeat does not.
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    expect((await asCounselor(session, "/sos")).status).toBe(429);
  });

  it("does not let one role's traffic limit the other", async () => {
    const session = await newSession(await newPlatform());
    for (let i = 0; i < 25; i++) await asCounselor(session, "/sos/cancel");
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    const location = await postJson(
      sessionPath(session, "/sos/location"),
      { unavailable: "timeout" },
      { Authorization: `Bearer ${session.patient_token}` },
    );
    expect(location.status).toBe(200);
  });
});

describe("rate limit per API key", () => {
  it("answers 429 with Retry-After past 600 requests a minute, without CORS headers", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    let limitedAt = -1;
    let limited: Response | null = null;
    // The local limiter counts in fixed 60 s windows of the wall clock: a run that crosses into the next
    // window starts again from zero there, so the loop goes on until the 429 comes (two windows' worth at
    // most), and what it holds to is that none came before the 600 allowed.
    for (let i = 0; i < 1300; i++) {
      const res = await asPlatform(platform, sessionPath(session));
      if (res.status === 429) {
        limitedAt = i;
        limited = res;
        break;
      }
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    expect(limitedAt).toBeGreaterThanOrEqual(599);
    expect(limited?.headers.get("Retry-After")).toBe("60");
    expect(limited?.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});

describe("bodies on the SOS routes", () => {
  it("refuses a location body over 16 KiB with 413", async () => {
    const session = await newSession(await newPlatform());
    await asCounselor(session, "/sos");
    const res = await postJson(
      sessionPath(session, "/sos/location"),
      { latitude: 1, longitude: 1, padding: "x".repeat(17_000) },
      { Authorization: `Bearer ${session.patient_token}` },
    );
    expect(res.status).toBe(413);
  });

  it("refuses a trigger body that is not JSON with 415 and one with fields with 400", async () => {
    const session = await newSession(await newPlatform());
    const text = await call(sessionPath(session, "/sos"), {
      method: "POST",
      headers: { Authorization: `Bearer ${session.counselor_token}`, "Content-Type": "text/plain" },
      body: "go",
    });
    expect(text.status).toBe(415);
    const fields = await asCounselor(session, "/sos", { now: true });
    expect(fields.status).toBe(400);
    expect((await fields.json<{ code: string }>()).code).toBe("unknown_field");
  });

  // A body sent in chunks has no Content-Length: it is read chunk by chunk and cut off at the limit.
  it("reads a streamed body (no Content-Length) and refuses one over 16 KiB with 413", async () => {
    const session = await newSession(await newPlatform());
    const init = (token: string, text: string): RequestInit => ({
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: inChunks(text, 1024),
    });
    expect(new Request("https://sos.test/", init("t", "{}")).headers.get("Content-Length")).toBeNull();
    const streamed = (path: string, token: string, text: string) => call(path, init(token, text));
    const trigger = await streamed(sessionPath(session, "/sos"), session.counselor_token, "{}");
    expect(trigger.status).toBe(202);
    const big = JSON.stringify({ latitude: 1, longitude: 1, padding: "x".repeat(17_000) });
    const res = await streamed(sessionPath(session, "/sos/location"), session.patient_token, big);
    expect(res.status).toBe(413);
    expect((await res.json<{ code: string }>()).code).toBe("payload_too_large");
    const fields = await streamed(
      sessionPath(session, "/sos/cancel"),
      session.counselor_token,
      '{"now":true}',
    );
    expect(fields.status).toBe(400);
    expect((await fields.json<{ code: string }>()).code).toBe("unknown_field");
  });

  it("reads a body that breaks off mid-read as a 400 problem, not a failure of ours", async () => {
    // Through the worker's own fetch the test's stream arrives empty; read directly, the read fails.
    const request = new Request("https://sos.test/", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: brokenOff('{"meeting_id":"m","counselor_id":"c",'),
    });
    const read = await readJsonBody(request, CreateSessionRequest);
    expect(read).toMatchObject({ ok: false, problem: { code: "invalid_request" } });
    expect(read.ok ? "" : read.problem.detail).toMatch(/broke off/);
  });

  it("accepts a trigger with no body at all", async () => {
    const session = await newSession(await newPlatform());
    const res = await call(sessionPath(session, "/sos"), {
      method: "POST",
      headers: { Authorization: `Bearer ${session.counselor_token}` },
    });
    expect(res.status).toBe(202);
  });
});

describe("the OpenAPI document", () => {
  it("describes every route from the validation schemas", async () => {
    const res = await call("/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = await res.json<{
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: {
        schemas: Record<string, { properties?: Record<string, { maxLength?: number; maximum?: number }> }>;
      };
    }>();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/v1/admin/platforms",
        "/v1/platforms/{platformId}/sessions",
        "/v1/platforms/{platformId}/sessions/{sessionId}",
        "/v1/platforms/{platformId}/sessions/{sessionId}/end",
        "/v1/platforms/{platformId}/sessions/{sessionId}/events",
        "/v1/platforms/{platformId}/sessions/{sessionId}/sos",
        "/v1/platforms/{platformId}/sessions/{sessionId}/sos/cancel",
        "/v1/platforms/{platformId}/sessions/{sessionId}/sos/location",
        "/ws",
      ]),
    );
    const create = doc.components.schemas.CreateSessionRequest;
    expect(create?.properties?.meeting_id?.maxLength).toBe(256);
    expect(create?.properties?.expires_in_minutes?.maximum).toBe(1440);
    expect(doc.components.schemas.LocationFix?.properties?.latitude?.maximum).toBe(90);
  });
});

describe("problem types and the version", () => {
  it("points every problem's type at this deployment's documentation, which answers for each code", async () => {
    const res = await call("/v1/no-such-route");
    const body = await res.json<{ type: string; code: string }>();
    expect(body.type).toBe(`${env.PROBLEM_TYPE_BASE}not_found`);
    const doc = await call(new URL(body.type).pathname);
    expect(doc.status).toBe(200);
    expect(doc.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(await doc.text()).toContain('id="not_found"');
    const unknown = await call("/errors/no_such_code");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("Content-Type")).toBe("application/problem+json");
  });

  it("gives the OpenAPI document the version of package.json", async () => {
    const doc = await (await call("/v1/openapi.json")).json<{ info: { version: string } }>();
    expect(doc.info.version).toBe(packageJson.version);
    expect(packageJson.version).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

/** A stream that gives the text's bytes and then fails, as a client that hangs up mid-body. */
function brokenOff(text: string): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(new Error("connection lost"));
      controller.enqueue(new TextEncoder().encode(text));
      sent = true;
    },
  });
}

/** The text's bytes as a stream of `size`-byte chunks (a request with it has no Content-Length). */
function inChunks(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}
