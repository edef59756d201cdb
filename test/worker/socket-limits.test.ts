// /ws is bounded: 10 sockets per role, 30 upgrades a minute per role, refused with 429 before the upgrade
// (the probe answers the same); only accepted sockets are audited, and vanished ones are reconciled.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SessionCreateResponse } from "../../sdk/src/protocol.ts";
import { closeQuietly } from "../../src/session/sockets.ts";
import {
  asPlatform,
  call,
  newPlatform,
  newSession,
  openSocket,
  sessionPath,
  sessionStubOf,
  shiftClock,
  type TestPlatform,
  type TestSocket,
  UPGRADE_HEADERS,
  upgrade,
} from "./helpers.ts";

interface AuditEvent {
  seq: number;
  type: string;
  actor: string;
  data?: Record<string, unknown>;
}

async function events(platform: TestPlatform, session: SessionCreateResponse): Promise<AuditEvent[]> {
  const res = await asPlatform(platform, sessionPath(session, "/events?limit=1000"));
  return (await res.json<{ events: AuditEvent[] }>()).events;
}

function socketEvents(list: AuditEvent[], type: "socket_connected" | "socket_disconnected") {
  return list.filter((e) => e.type === type);
}

async function expectRefusedForRate(res: Response, maxRetryAfter: number): Promise<void> {
  expect(res.status).toBe(429);
  expect(res.webSocket).toBeNull();
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
  const retryAfter = Number(res.headers.get("Retry-After"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxRetryAfter);
  expect((await res.json<{ code: string }>()).code).toBe("rate_limited");
}

function probe(token: string): Promise<Response> {
  return call(`/ws?token=${encodeURIComponent(token)}`);
}

async function closeAll(sockets: TestSocket[]): Promise<void> {
  for (const socket of sockets) socket.close();
  for (const socket of sockets) await socket.waitForClose();
}

describe("the socket cap", () => {
  it("refuses an 11th socket of a role with 429 before the upgrade, and the probe says the same", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    const tabs: TestSocket[] = [];
    for (let i = 0; i < 10; i++) tabs.push(await openSocket(session.patient_token));
    await expectRefusedForRate(await upgrade(session.patient_token), 60);
    await expectRefusedForRate(await probe(session.patient_token), 60);
    // The other role has its own ten.
    const counselor = await openSocket(session.counselor_token);
    await counselor.waitFor("session_state");
    // One tab closes: a slot is free again.
    tabs[0]?.close();
    await tabs[0]?.waitForClose();
    await expect.poll(async () => (await probe(session.patient_token)).status).toBe(426);
    tabs.push(await openSocket(session.patient_token));
    expect(socketEvents(await events(platform, session), "socket_connected")).toHaveLength(12);
  });

  it("refuses a 31st upgrade of a role within a minute, and allows it again a minute later", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    for (let i = 0; i < 30; i++) await closeAll([await openSocket(session.counselor_token)]);
    await expectRefusedForRate(await upgrade(session.counselor_token), 60);
    await expectRefusedForRate(await probe(session.counselor_token), 60);
    expect((await probe(session.patient_token)).status).toBe(426);
    const restore = shiftClock(61_000);
    try {
      const later = await openSocket(session.counselor_token);
      await later.waitFor("session_state");
      later.close();
    } finally {
      restore();
    }
    expect(socketEvents(await events(platform, session), "socket_connected")).toHaveLength(31);
  });

  it("answers a closed session's probe with 410 even when its sockets were at the cap", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    for (let i = 0; i < 10; i++) await openSocket(session.patient_token);
    await asPlatform(platform, sessionPath(session, "/end"), "POST");
    expect((await probe(session.patient_token)).status).toBe(410);
  });
});

describe("the audit of sockets", () => {
  it("records nothing for a probe or a handshake the runtime would refuse", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    expect((await probe(session.patient_token)).status).toBe(426);
    const { "Sec-WebSocket-Key": _key, ...withoutKey } = UPGRADE_HEADERS;
    const keyless = await upgrade(session.patient_token, withoutKey);
    expect(keyless.status).toBe(400);
    expect(keyless.webSocket).toBeNull();
    const badKey = await upgrade(session.patient_token, { ...UPGRADE_HEADERS, "Sec-WebSocket-Key": "short" });
    expect(badKey.status).toBe(400);
    expect((await events(platform, session)).map((e) => e.type)).toEqual(["session_created"]);
  });

  it("records each accepted socket once as connected and once as gone, with its id", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    const socket = await openSocket(session.patient_token);
    await socket.waitFor("session_state");
    socket.close();
    expect(await socket.waitForClose()).toBe(1000);
    await expect
      .poll(async () => socketEvents(await events(platform, session), "socket_disconnected").length)
      .toBe(1);
    const list = await events(platform, session);
    const [connected] = socketEvents(list, "socket_connected");
    const [gone] = socketEvents(list, "socket_disconnected");
    expect(connected?.data?.socket_id).toBeTruthy();
    expect(gone?.data?.socket_id).toBe(connected?.data?.socket_id);
    expect(gone?.actor).toBe("patient");
  });

  it("records a socket the runtime no longer holds as gone when the object wakes", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    const kept = await openSocket(session.counselor_token);
    await kept.waitFor("session_state");
    const stub = sessionStubOf(session.session_id);
    // A socket the trail shows as connected, whose connection died with a crashed object.
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("INSERT INTO open_sockets (socket_id, role) VALUES ('vanished-1', 'patient')");
      state.storage.sql.exec(
        "INSERT INTO audit_events (type, at, actor, data) VALUES ('socket_connected', ?, 'patient', ?)",
        new Date().toISOString(),
        JSON.stringify({ socket_id: "vanished-1" }),
      );
    });
    await evictDurableObject(stub);
    const list = await events(platform, session);
    const gone = socketEvents(list, "socket_disconnected");
    expect(gone.map((e) => e.data?.socket_id)).toEqual(["vanished-1"]);
    // The socket still held survives the eviction and is not reported gone.
    kept.ws.send("ping");
    await kept.waitForRaw("pong");
    const read = await (await asPlatform(platform, sessionPath(session))).json<{
      counselor_connected: boolean;
      patient_connected: boolean;
    }>();
    expect(read).toMatchObject({ counselor_connected: true, patient_connected: false });
  });
});

describe("socket handlers", () => {
  it("answer a client's close so it sees a clean close", async () => {
    const session = await newSession(await newPlatform());
    const socket = await openSocket(session.counselor_token);
    await socket.waitFor("session_state");
    socket.ws.close(4321, "bye");
    expect(await socket.waitForClose()).toBe(4321);
  });

  it("never answer a close that had no close frame (1005, 1006, 1015), and never throw", () => {
    const closed: number[] = [];
    const fake = {
      close(code: number) {
        closed.push(code);
        if (code === 4999) throw new TypeError("already closed");
      },
    } as unknown as WebSocket;
    for (const code of [1005, 1006, 1015]) closeQuietly(fake, code, "");
    expect(closed).toEqual([]);
    closeQuietly(fake, 1000, "done");
    expect(() => closeQuietly(fake, 4999, "gone")).not.toThrow();
    expect(closed).toEqual([1000, 4999]);
  });

  it("keep every socket and message across an eviction", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    const sockets = [await openSocket(session.patient_token), await openSocket(session.counselor_token)];
    for (const socket of sockets) await socket.waitFor("session_state");
    await evictDurableObject(sessionStubOf(session.session_id));
    await asPlatform(platform, sessionPath(session, "/end"), "POST");
    for (const socket of sockets) expect((await socket.waitFor("session_ended")).reason).toBe("ended");
    expect(socketEvents(await events(platform, session), "socket_disconnected").length).toBeLessThanOrEqual(
      2,
    );
  });
});
