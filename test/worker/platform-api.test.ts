// The platform API (X-API-Key): sessions are created, read, ended and audited exactly as docs/contract.md, section 3 says.
import { describe, expect, it } from "vitest";
import {
  asPlatform,
  call,
  newPlatform,
  newSession,
  postJson,
  SESSION_BODY,
  sessionPath,
  type TestPlatform,
} from "./helpers.ts";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

function createRequest(platform: TestPlatform, body: unknown, headers: Record<string, string> = {}) {
  return postJson(`/v1/platforms/${platform.platform_id}/sessions`, body, {
    "X-API-Key": platform.api_key,
    ...headers,
  });
}

async function problemOf(res: Response) {
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  return (await res.json()) as { code: string; status: number; title: string; detail: string; type: string };
}

describe("creating a session", () => {
  it("returns the session id, both tokens and the expiry, in state active", async () => {
    const platform = await newPlatform();
    const before = Date.now();
    const res = await createRequest(platform, SESSION_BODY);
    expect(res.status).toBe(201);
    const body = await res.json<Record<string, unknown>>();
    expect(body.session_id).toMatch(UUID_V4);
    expect(body.platform_id).toBe(platform.platform_id);
    expect(body.state).toBe("active");
    expect(String(body.patient_token).split(".")).toHaveLength(3);
    expect(String(body.counselor_token).split(".")).toHaveLength(3);
    expect(body.created_at).toMatch(ISO_UTC);
    expect(body.expires_at).toMatch(ISO_UTC);
    const lifetime = Date.parse(String(body.expires_at)) - Date.parse(String(body.created_at));
    expect(lifetime).toBe(60 * 60_000);
    expect(Date.parse(String(body.created_at))).toBeGreaterThanOrEqual(before - 1000);
  });

  it("honours expires_in_minutes", async () => {
    const platform = await newPlatform();
    const res = await createRequest(platform, { ...SESSION_BODY, expires_in_minutes: 1440 });
    const body = await res.json<{ created_at: string; expires_at: string }>();
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(1440 * 60_000);
  });

  it.each([
    ["a missing meeting_id", { counselor_id: "c", patient_id: "p" }, "invalid_request"],
    ["an empty patient_id", { ...SESSION_BODY, patient_id: "" }, "invalid_request"],
    [
      "a counselor_id over 256 characters",
      { ...SESSION_BODY, counselor_id: "x".repeat(257) },
      "invalid_request",
    ],
    ["a number as meeting_id", { ...SESSION_BODY, meeting_id: 7 }, "invalid_request"],
    ["expires_in_minutes 0", { ...SESSION_BODY, expires_in_minutes: 0 }, "invalid_request"],
    ["expires_in_minutes 1441", { ...SESSION_BODY, expires_in_minutes: 1441 }, "invalid_request"],
    ["a fractional expires_in_minutes", { ...SESSION_BODY, expires_in_minutes: 1.5 }, "invalid_request"],
    ["an unknown field", { ...SESSION_BODY, colour: "red" }, "unknown_field"],
    ["an array", [SESSION_BODY], "invalid_request"],
    ["null", null, "invalid_request"],
  ])("refuses %s with 400", async (_name, body, code) => {
    const platform = await newPlatform();
    const res = await createRequest(platform, body);
    expect(res.status).toBe(400);
    const problem = await problemOf(res);
    expect(problem.code).toBe(code);
    expect(problem.status).toBe(400);
    expect(problem.type).toContain(code);
  });

  it("names the offending fields", async () => {
    const platform = await newPlatform();
    const res = await createRequest(platform, { meeting_id: "m", counselor_id: "c", expires_in_minutes: 0 });
    const body = await res.json<{ errors: { field: string }[] }>();
    expect(body.errors.map((e) => e.field).sort()).toEqual(["expires_in_minutes", "patient_id"]);
  });

  it("refuses malformed JSON with 400 invalid_json", async () => {
    const platform = await newPlatform();
    const res = await call(`/v1/platforms/${platform.platform_id}/sessions`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-API-Key": platform.api_key },
      body: '{"meeting_id": "m",',
    });
    expect(res.status).toBe(400);
    expect((await problemOf(res)).code).toBe("invalid_json");
  });

  it("refuses a body that is not JSON with 415", async () => {
    const platform = await newPlatform();
    const res = await call(`/v1/platforms/${platform.platform_id}/sessions`, {
      method: "POST",
      headers: { "Content-Type": "text/plain", "X-API-Key": platform.api_key },
      body: JSON.stringify(SESSION_BODY),
    });
    expect(res.status).toBe(415);
    expect((await problemOf(res)).code).toBe("unsupported_media_type");
  });

  it("refuses a body over 16 KiB with 413, before looking at its type", async () => {
    const platform = await newPlatform();
    const res = await call(`/v1/platforms/${platform.platform_id}/sessions`, {
      method: "POST",
      headers: { "Content-Type": "text/plain", "X-API-Key": platform.api_key },
      body: "x".repeat(16 * 1024 + 1),
    });
    expect(res.status).toBe(413);
    expect((await problemOf(res)).code).toBe("payload_too_large");
  });

  it("checks credentials before the body", async () => {
    const platform = await newPlatform();
    const res = await call(`/v1/platforms/${platform.platform_id}/sessions`, {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: "x".repeat(20_000),
    });
    expect(res.status).toBe(401);
    expect((await problemOf(res)).code).toBe("missing_credentials");
  });
});

describe("Idempotency-Key on create", () => {
  it("returns the same session for the same key and body, marked as replayed", async () => {
    const platform = await newPlatform();
    const first = await createRequest(platform, SESSION_BODY, { "Idempotency-Key": "create-1" });
    const second = await createRequest(platform, SESSION_BODY, { "Idempotency-Key": "create-1" });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await second.json()).toEqual(await first.json());
  });

  it("treats the same fields in another order as the same body", async () => {
    const platform = await newPlatform();
    const a = await createRequest(platform, SESSION_BODY, { "Idempotency-Key": "k" });
    const reordered = { patient_id: "patient-1", counselor_id: "counselor-1", meeting_id: "meeting-1" };
    const b = await createRequest(platform, reordered, { "Idempotency-Key": "k" });
    expect((await b.json<{ session_id: string }>()).session_id).toBe(
      (await a.json<{ session_id: string }>()).session_id,
    );
  });

  it("refuses the same key with another body with 422", async () => {
    const platform = await newPlatform();
    await createRequest(platform, SESSION_BODY, { "Idempotency-Key": "k2" });
    const res = await createRequest(
      platform,
      { ...SESSION_BODY, patient_id: "someone-else" },
      { "Idempotency-Key": "k2" },
    );
    expect(res.status).toBe(422);
    expect((await problemOf(res)).code).toBe("idempotency_key_reused");
  });

  it("keeps keys of different platforms apart", async () => {
    const a = await newPlatform("A");
    const b = await newPlatform("B");
    const sa = await (await createRequest(a, SESSION_BODY, { "Idempotency-Key": "same" })).json<{
      session_id: string;
    }>();
    const resB = await createRequest(b, SESSION_BODY, { "Idempotency-Key": "same" });
    expect(resB.status).toBe(201);
    expect(resB.headers.get("Idempotent-Replayed")).toBeNull();
    expect((await resB.json<{ session_id: string }>()).session_id).not.toBe(sa.session_id);
  });

  it("refuses a key over 255 characters with 400", async () => {
    const platform = await newPlatform();
    const res = await createRequest(platform, SESSION_BODY, { "Idempotency-Key": "k".repeat(256) });
    expect(res.status).toBe(400);
  });
});

describe("reading, ending and auditing a session", () => {
  it("reads a fresh session with null times and nobody connected", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    const res = await asPlatform(platform, sessionPath(session));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      session_id: session.session_id,
      platform_id: platform.platform_id,
      state: "active",
      created_at: session.created_at,
      expires_at: session.expires_at,
      sos_started_at: null,
      ended_at: null,
      patient_connected: false,
      counselor_connected: false,
      location_check: "off",
      location_checked_at: null,
    });
  });

  it("ends a session, and ending it again answers the same", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    const first = await asPlatform(platform, sessionPath(session, "/end"), "POST");
    expect(first.status).toBe(200);
    const body = await first.json<{ session_id: string; state: string; ended_at: string }>();
    expect(body).toMatchObject({ session_id: session.session_id, state: "ended" });
    expect(body.ended_at).toMatch(ISO_UTC);
    const again = await asPlatform(platform, sessionPath(session, "/end"), "POST");
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(body);
    const read = await (await asPlatform(platform, sessionPath(session))).json<{
      state: string;
      ended_at: string;
    }>();
    expect(read.state).toBe("ended");
    expect(read.ended_at).toBe(body.ended_at);
  });

  it("lists the audit trail in order", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    await asPlatform(platform, sessionPath(session, "/end"), "POST");
    const res = await asPlatform(platform, sessionPath(session, "/events"));
    expect(res.status).toBe(200);
    const { events } = await res.json<{
      events: { seq: number; type: string; actor: string; at: string }[];
    }>();
    expect(events.map((e) => e.type)).toEqual(["session_created", "session_ended"]);
    expect(events[0]?.seq).toBeLessThan(events[1]?.seq ?? 0);
    expect(events[1]?.actor).toBe("platform");
    expect(events[0]?.at).toMatch(ISO_UTC);
  });

  it("answers 404 for an unknown session id and for a malformed one", async () => {
    const platform = await newPlatform();
    const unknown = await asPlatform(
      platform,
      `/v1/platforms/${platform.platform_id}/sessions/6f1c1c5e-8d1c-4c59-9d43-1b7c8a3f7a11`,
    );
    expect(unknown.status).toBe(404);
    expect((await problemOf(unknown)).code).toBe("not_found");
    const malformed = await asPlatform(
      platform,
      `/v1/platforms/${platform.platform_id}/sessions/not-a-uuid/end`,
      "POST",
    );
    expect(malformed.status).toBe(404);
  });

  it("does not show one platform's session to another platform", async () => {
    const owner = await newPlatform("owner");
    const other = await newPlatform("other");
    const session = await newSession(owner);
    const res = await asPlatform(other, `/v1/platforms/${other.platform_id}/sessions/${session.session_id}`);
    expect(res.status).toBe(404);
    const end = await asPlatform(
      other,
      `/v1/platforms/${other.platform_id}/sessions/${session.session_id}/end`,
      "POST",
    );
    expect(end.status).toBe(404);
    const still = await (await asPlatform(owner, sessionPath(session))).json<{ state: string }>();
    expect(still.state).toBe("active");
  });
});
