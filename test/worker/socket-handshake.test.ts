// Only real handshakes reach the session object: an upgrade whose Sec-WebSocket-Key is not the base64 of
// 16 bytes, or whose Sec-WebSocket-Version is not 13, is refused by the worker with a 400 problem, and the
// session's audit trail never shows a socket for it.
import { describe, expect, it } from "vitest";
import type { SessionCreateResponse } from "../../sdk/src/protocol.ts";
import {
  asPlatform,
  newPlatform,
  newSession,
  openSocket,
  sessionPath,
  type TestPlatform,
  UPGRADE_HEADERS,
  upgrade,
} from "./helpers.ts";

async function auditTypes(platform: TestPlatform, session: SessionCreateResponse): Promise<string[]> {
  const res = await asPlatform(platform, sessionPath(session, "/events?limit=1000"));
  return (await res.json<{ events: { type: string }[] }>()).events.map((e) => e.type);
}

const { "Sec-WebSocket-Key": _key, ...WITHOUT_KEY } = UPGRADE_HEADERS;
const { "Sec-WebSocket-Version": _version, ...WITHOUT_VERSION } = UPGRADE_HEADERS;

const MALFORMED: { what: string; headers: Record<string, string>; field: string }[] = [
  { what: "no key", headers: WITHOUT_KEY, field: "Sec-WebSocket-Key" },
  {
    what: "a short key",
    headers: { ...UPGRADE_HEADERS, "Sec-WebSocket-Key": "short" },
    field: "Sec-WebSocket-Key",
  },
  {
    what: "a key of 15 bytes",
    headers: { ...UPGRADE_HEADERS, "Sec-WebSocket-Key": "AAAAAAAAAAAAAAAAAAAA" },
    field: "Sec-WebSocket-Key",
  },
  {
    what: "a key of 17 bytes",
    headers: { ...UPGRADE_HEADERS, "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZSE=" },
    field: "Sec-WebSocket-Key",
  },
  {
    what: "a key without its padding",
    headers: { ...UPGRADE_HEADERS, "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ" },
    field: "Sec-WebSocket-Key",
  },
  {
    what: "a key with a character base64 does not have",
    headers: { ...UPGRADE_HEADERS, "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25j*Q==" },
    field: "Sec-WebSocket-Key",
  },
  { what: "no version", headers: WITHOUT_VERSION, field: "Sec-WebSocket-Version" },
  {
    what: "version 8",
    headers: { ...UPGRADE_HEADERS, "Sec-WebSocket-Version": "8" },
    field: "Sec-WebSocket-Version",
  },
];

describe("a WebSocket upgrade with a broken handshake", () => {
  it.each(MALFORMED)("is refused with 400 and recorded nowhere: $what", async ({ headers, field }) => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    const res = await upgrade(session.patient_token, headers);
    expect(res.status).toBe(400);
    expect(res.webSocket).toBeNull();
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect(res.headers.get("Sec-WebSocket-Version")).toBe("13");
    const body = await res.json<{ code: string; errors: { field: string }[] }>();
    expect(body.code).toBe("invalid_request");
    expect(body.errors.map((e) => e.field)).toEqual([field]);
    expect(await auditTypes(platform, session)).toEqual(["session_created"]);
  });

  it("is refused by the worker without asking the session object, which would have answered 429", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    // Ten patient sockets: the object refuses an eleventh with 429 before it looks at the handshake.
    for (let i = 0; i < 10; i++) await openSocket(session.patient_token);
    expect((await upgrade(session.patient_token)).status).toBe(429);
    const res = await upgrade(session.patient_token, WITHOUT_KEY);
    expect(res.status).toBe(400);
    const sockets = (await auditTypes(platform, session)).filter((type) => type.startsWith("socket_"));
    expect(sockets).toEqual(Array(10).fill("socket_connected"));
  });

  it("is refused only after the token: a forged token is still 401", async () => {
    const res = await upgrade("not.a.token", WITHOUT_KEY);
    expect(res.status).toBe(401);
  });

  it("leaves a real handshake alone: it opens, and is recorded once", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    const socket = await openSocket(session.patient_token);
    await socket.waitFor("session_state");
    const types = await auditTypes(platform, session);
    expect(types.filter((type) => type === "socket_connected")).toHaveLength(1);
  });

  it("leaves the probe without Upgrade to the session object: 426 while the session is live", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    expect((await upgrade(session.patient_token, {})).status).toBe(426);
  });
});
