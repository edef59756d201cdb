// Test helpers: call the worker, create platforms and sessions, and hold sockets with a message inbox.
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, beforeEach, expect, type MockInstance, vi } from "vitest";
import { type BuiltIndex, buildIndex } from "../../data/index/build.ts";
import type {
  PsapLine,
  ServerMessage,
  ServerMessageType,
  SessionCreateResponse,
} from "../../sdk/src/protocol.ts";
import { lookupPsaps } from "../../src/answer/lookup.ts";
import { type PsapIndexStore, resetPsapLookupCache } from "../../src/psap/lookup.ts";
import type { SessionRecord } from "../../src/session/record.ts";

export const BASE = "http://sos.test";
export const ADMIN_HEADERS = { Authorization: "Bearer test-admin-token" };

export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(`${BASE}${path}`, init);
}

export function postJson(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return call(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

export interface TestPlatform {
  platform_id: string;
  api_key: string;
  api_key_id: string;
}

export async function newPlatform(name = "Test Platform"): Promise<TestPlatform> {
  const res = await postJson("/v1/admin/platforms", { name }, ADMIN_HEADERS);
  if (res.status !== 201) throw new Error(`platform creation failed: ${res.status} ${await res.text()}`);
  return res.json();
}

export const SESSION_BODY = { meeting_id: "meeting-1", counselor_id: "counselor-1", patient_id: "patient-1" };

export async function newSession(
  platform: TestPlatform,
  body: Record<string, unknown> = SESSION_BODY,
): Promise<SessionCreateResponse> {
  const res = await postJson(`/v1/platforms/${platform.platform_id}/sessions`, body, {
    "X-API-Key": platform.api_key,
  });
  if (res.status !== 201) throw new Error(`session creation failed: ${res.status} ${await res.text()}`);
  return res.json();
}

export function sessionPath(session: SessionCreateResponse, suffix = ""): string {
  return `/v1/platforms/${session.platform_id}/sessions/${session.session_id}${suffix}`;
}

export function asCounselor(
  session: SessionCreateResponse,
  suffix: string,
  body?: unknown,
): Promise<Response> {
  return postJson(sessionPath(session, suffix), body ?? {}, {
    Authorization: `Bearer ${session.counselor_token}`,
  });
}

export function asPatient(session: SessionCreateResponse, suffix: string, body: unknown): Promise<Response> {
  return postJson(sessionPath(session, suffix), body, { Authorization: `Bearer ${session.patient_token}` });
}

export function asPlatform(platform: TestPlatform, path: string, method = "GET"): Promise<Response> {
  return call(path, { method, headers: { "X-API-Key": platform.api_key } });
}

/**
 * Audit events as JSON with every ISO time taken out, for checks that no coordinate is there: a time such
 * as "…:41.883Z" holds "41.88" by chance, and must not pass for the fix's latitude.
 */
export function eventsWithoutTimes(events: unknown): string {
  return JSON.stringify(events).replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, "<time>");
}

export function sessionStubOf(sessionId: string) {
  return env.SESSIONS.get(env.SESSIONS.idFromName(sessionId));
}

/** The session's record as its object stored it (undefined once purged). */
export function storedRecord(sessionId: string): Promise<SessionRecord | undefined> {
  return runInDurableObject(sessionStubOf(sessionId), (_instance, state) =>
    state.storage.get<SessionRecord>("session"),
  );
}

/**
 * Spies on every console level during each test of the file and, after it, fails if any line logged
 * holds one of `secrets` (a position's digits, the address on file): whatever the test did.
 */
export function expectNeverLogged(secrets: readonly string[]): void {
  let spies: MockInstance[] = [];
  beforeEach(() => {
    spies = (["log", "info", "warn", "error", "debug"] as const).map((level) => vi.spyOn(console, level));
  });
  afterEach(() => {
    for (const spy of spies) {
      const text = JSON.stringify(spy.mock.calls);
      for (const secret of secrets) expect(text).not.toContain(secret);
      spy.mockRestore();
    }
  });
}

/** A client socket that keeps every message it receives, so a test can wait for the next of a type. */
export class TestSocket {
  readonly ws: WebSocket;
  readonly received: ServerMessage[] = [];
  readonly raw: string[] = [];
  closeCode: number | null = null;
  #waiters: (() => void)[] = [];

  constructor(ws: WebSocket) {
    this.ws = ws;
    ws.accept();
    ws.addEventListener("message", (event) => {
      const text = typeof event.data === "string" ? event.data : "";
      this.raw.push(text);
      if (text.startsWith("{")) this.received.push(JSON.parse(text) as ServerMessage);
      this.#wake();
    });
    ws.addEventListener("close", (event) => {
      this.closeCode = event.code;
      this.#wake();
    });
  }

  /** Every message of a type received so far. */
  all<T extends ServerMessageType>(type: T): Extract<ServerMessage, { type: T }>[] {
    return this.received.filter((m): m is Extract<ServerMessage, { type: T }> => m.type === type);
  }

  /** Waits until at least `count` messages of `type` have arrived, and returns the last of them. */
  async waitFor<T extends ServerMessageType>(
    type: T,
    count = 1,
    timeoutMs = 3_000,
  ): Promise<Extract<ServerMessage, { type: T }>> {
    await this.#until(() => this.all(type).length >= count, `${count} × ${type}`, timeoutMs);
    const list = this.all(type);
    return list[list.length - 1] as Extract<ServerMessage, { type: T }>;
  }

  async waitForRaw(text: string, timeoutMs = 3_000): Promise<void> {
    await this.#until(() => this.raw.includes(text), `raw frame ${text}`, timeoutMs);
  }

  async waitForClose(timeoutMs = 3_000): Promise<number> {
    await this.#until(() => this.closeCode !== null, "close", timeoutMs);
    return this.closeCode ?? 0;
  }

  close(): void {
    try {
      this.ws.close(1000, "test done");
    } catch {
      // already closed
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  async #until(done: () => boolean, what: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) {
        const seen = this.received.map((m) => m.type).join(", ") || "nothing";
        throw new Error(`timed out waiting for ${what}; received: ${seen}`);
      }
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, Math.min(left, 50));
      });
    }
  }
}

/** The headers of a browser's WebSocket handshake. */
export const UPGRADE_HEADERS = {
  Upgrade: "websocket",
  Connection: "Upgrade",
  "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
  "Sec-WebSocket-Version": "13",
};

/** Asks for a socket; the answer is 101 with `webSocket`, or the refusal. */
export function upgrade(token: string, headers: Record<string, string> = UPGRADE_HEADERS): Promise<Response> {
  return call(`/ws?token=${encodeURIComponent(token)}`, { headers });
}

export async function openSocket(token: string): Promise<TestSocket> {
  const res = await upgrade(token);
  if (res.status !== 101 || !res.webSocket)
    throw new Error(`socket refused: ${res.status} ${await res.text()}`);
  return new TestSocket(res.webSocket);
}

/** Makes `Date.now()` inside every object in this test isolate read `offsetMs` later than real time. */
export function shiftClock(offsetMs: number): () => void {
  const realNow = Date.now.bind(Date);
  Date.now = () => realNow() + offsetMs;
  return () => {
    Date.now = realNow;
  };
}

/** Three fictional PSAPs around Chicago, loaded into the test KV as a real (small) index. */
/** A line from the directory, as the test index stores it. */
function testLine(phone: string, kind: PsapLine["kind"]): PsapLine {
  return {
    phone,
    kind,
    label: kind === "dispatch" ? "Non-emergency, answered by dispatch 24/7" : "Business line",
    source: "https://www.example.gov/psap",
    checked_on: "2026-11-28",
    origin: "directory",
  };
}

export const TEST_PSAPS = [
  {
    id: "T1",
    name: "Test Chicago Primary",
    type: "primary",
    state: "IL",
    county: "Cook",
    city: "Chicago",
    phone: "+13125550101",
    phone_kind: "dispatch",
    lines: [testLine("+13125550101", "dispatch")] as PsapLine[],
    jurisdiction: "municipal",
    handled_by: null,
    latitude: 41.8781,
    longitude: -87.6298,
    location_precision: "city",
  },
  {
    id: "T2",
    name: "Test Evanston Secondary",
    type: "secondary",
    state: "IL",
    county: "Cook",
    city: "Evanston",
    phone: null,
    phone_kind: null,
    lines: [] as PsapLine[],
    jurisdiction: "municipal",
    handled_by: "T1",
    latitude: 42.0451,
    longitude: -87.6877,
    location_precision: "city",
  },
  {
    id: "T3",
    name: "Test Gary Primary",
    type: "primary",
    state: "IN",
    county: "Lake",
    city: "Gary",
    phone: "+12195550102",
    phone_kind: "administrative",
    lines: [testLine("+12195550102", "administrative")] as PsapLine[],
    jurisdiction: "municipal",
    handled_by: null,
    latitude: 41.5934,
    longitude: -87.3464,
    location_precision: "city",
  },
] as const;

export async function seedPsapIndex(version = "test-v1"): Promise<BuiltIndex> {
  const built = buildIndex({ dataVersion: "test-data", psaps: TEST_PSAPS, areas: [] }, { version });
  for (const [key, value] of [...built.entries, ...built.catalogue]) await env.PSAP_INDEX.put(key, value);
  await env.PSAP_INDEX.put(built.pointerKey, built.pointerValue);
  resetPsapLookupCache();
  return built;
}

/** The index entries a lookup of this fix reads (the pointer aside), whatever the index format. */
export async function entriesReadFor(
  built: BuiltIndex,
  fix: { latitude: number; longitude: number },
): Promise<string[]> {
  const read: string[] = [];
  const recording: PsapIndexStore = {
    get: (key: string) => {
      if (key !== built.pointerKey) read.push(key);
      return env.PSAP_INDEX.get(key, "text");
    },
  };
  resetPsapLookupCache();
  await lookupPsaps(recording, fix);
  resetPsapLookupCache();
  if (read.length === 0) throw new Error("the lookup read no index entry");
  return read;
}

/**
 * Puts `store` in place of the session object's PSAP_INDEX binding (the object and the tests share
 * one isolate), so a test can slow the lookup down or make it fail. Returns the undo.
 */
export async function replaceObjectIndex(
  sessionId: string,
  wrap: (original: KVNamespace) => PsapIndexStore,
): Promise<() => Promise<void>> {
  const stub = sessionStubOf(sessionId);
  const original = await runInDurableObject(stub, (instance) => {
    const bindings = (instance as unknown as { env: { PSAP_INDEX: KVNamespace | PsapIndexStore } }).env;
    const before = bindings.PSAP_INDEX as KVNamespace;
    bindings.PSAP_INDEX = wrap(before);
    return before;
  });
  resetPsapLookupCache();
  return async () => {
    await runInDurableObject(stub, (instance) => {
      (instance as unknown as { env: { PSAP_INDEX: KVNamespace } }).env.PSAP_INDEX = original;
    });
    resetPsapLookupCache();
  };
}

/** A session with the address on file, both sockets open, and an SOS whose location request reached the patient. */
export async function sosAwaitingFix(patientAddress: string) {
  const platform = await newPlatform();
  const session = await newSession(platform, { ...SESSION_BODY, patient_address: patientAddress });
  const counselor = await openSocket(session.counselor_token);
  const patient = await openSocket(session.patient_token);
  const triggered = await asCounselor(session, "/sos");
  if (triggered.status !== 202) throw new Error(`the SOS was answered ${triggered.status}`);
  await patient.waitFor("location_request");
  return { platform, session, counselor, patient };
}
