// CounselorSDK: API-key calls from a server, token calls and the live socket from a browser.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type CounselorPsapResults,
  CounselorSDK,
  type CounselorSDKOptions,
} from "../../sdk/src/counselor.ts";
import type { PsapResultsMessage } from "../../sdk/src/protocol.ts";
import {
  FakeWebSocket,
  fakeFetch,
  flush,
  installBrowserFakes,
  json,
  makeToken,
  problem,
  restoreBrowserFakes,
} from "./sdk-fakes.ts";

const TOKEN = makeToken("counselor", "sess-1", "plt_a");
const CREATED = {
  session_id: "sess-1",
  platform_id: "plt_a",
  state: "active",
  patient_token: makeToken("patient"),
  counselor_token: TOKEN,
  expires_at: "2026-11-22T11:00:00Z",
  created_at: "2026-11-22T10:00:00Z",
};
const RESULTS: PsapResultsMessage = {
  type: "psap_results",
  session_id: "sess-1",
  result_id: "res-1",
  psaps: [],
  area: { country: "US", state: "IL", county: "Cook", place: null, place_kind: null },
  emergency: { country: "US", numbers: [{ number: "911", service: "all" }] },
  computed_at: "2026-11-22T10:00:01Z",
  data_version: "v1",
  location: { latitude: 41.6, longitude: -87.7, accuracy: 12 },
};

const LOCATION_URI = { uri: "https://sos.test/held/tok", expires_at: "2026-11-22T11:00:00Z" };

let http: ReturnType<typeof fakeFetch>;
let errors: Error[];

function sdk(extra: Partial<CounselorSDKOptions> = {}) {
  return new CounselorSDK({ apiBaseUrl: "https://sos.test", onError: (e) => errors.push(e), ...extra });
}

beforeEach(() => {
  ({ http } = installBrowserFakes([
    ["POST /v1/platforms/plt_a/sessions/sess-1/sos/cancel", () => json(200, { state: "active" })],
    ["POST /v1/platforms/plt_a/sessions/sess-1/location-uri", () => json(201, LOCATION_URI)],
    ["POST /v1/platforms/plt_a/sessions/sess-1/sos", () => json(202, { state: "sos" })],
    ["POST /v1/platforms/plt_a/sessions/sess-1/end", () => json(200, { state: "ended" })],
    ["POST /v1/platforms/plt_a/sessions", () => json(201, CREATED)],
  ]));
  errors = [];
});

afterEach(restoreBrowserFakes);

describe("CounselorSDK, API-key calls", () => {
  it("startSession maps camelCase input and returns the snake_case answer unchanged", async () => {
    const c = sdk({ platformId: "plt_a", secretKey: "sk_live_x" });
    const res = await c.startSession({
      meetingId: "m-1",
      counselorId: "c-1",
      patientId: "p-1",
      expiresInMinutes: 30,
      idempotencyKey: "idem-1",
    });
    expect(res).toEqual(CREATED);
    expect(http.requests[0]).toMatchObject({
      method: "POST",
      url: "https://sos.test/v1/platforms/plt_a/sessions",
      headers: { "x-api-key": "sk_live_x", "idempotency-key": "idem-1", "content-type": "application/json" },
      body: { meeting_id: "m-1", counselor_id: "c-1", patient_id: "p-1", expires_in_minutes: 30 },
    });
  });

  it("endSession posts to .../end with the API key and no body", async () => {
    const c = sdk({ platformId: "plt_a", secretKey: "sk_live_x" });
    await expect(c.endSession({ sessionId: "sess-1" })).resolves.toEqual({ state: "ended" });
    expect(http.requests[0]).toMatchObject({
      url: "https://sos.test/v1/platforms/plt_a/sessions/sess-1/end",
      headers: { "x-api-key": "sk_live_x" },
      body: undefined,
    });
  });

  it("refuses API-key calls without a secretKey or platformId, before any request", async () => {
    await expect(
      sdk({ platformId: "plt_a" }).startSession({ meetingId: "m", counselorId: "c", patientId: "p" }),
    ).rejects.toMatchObject({ code: "invalid_options" });
    await expect(sdk({ secretKey: "sk" }).endSession({ sessionId: "s" })).rejects.toMatchObject({
      code: "invalid_options",
    });
    expect(http.requests).toHaveLength(0);
  });

  it("throws RateLimitError and passes it to onError when 429 persists", async () => {
    const rl = fakeFetch([["/sessions", () => problem(429, "rate_limited", { "Retry-After": "1" })]]);
    vi.stubGlobal("fetch", rl.fn);
    const c = sdk({ platformId: "plt_a", secretKey: "sk", maxRetryAttempts: 1 });
    const p = c.startSession({ meetingId: "m", counselorId: "c", patientId: "p" }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(2000);
    expect(await p).toMatchObject({ name: "RateLimitError", code: "rate_limited" });
    expect(rl.requests).toHaveLength(2);
    expect(errors).toHaveLength(1);
  });

  it("throws an ApiError with the service's code at once", async () => {
    const bad = fakeFetch([["/sessions", () => problem(401, "invalid_api_key")]]);
    vi.stubGlobal("fetch", bad.fn);
    const c = sdk({ platformId: "plt_a", secretKey: "sk" });
    await expect(c.startSession({ meetingId: "m", counselorId: "c", patientId: "p" })).rejects.toMatchObject({
      name: "ApiError",
      status: 401,
      code: "invalid_api_key",
    });
    expect(bad.requests).toHaveLength(1);
  });
});

describe("CounselorSDK, token calls and socket", () => {
  it("trigger and cancel use the token's platform and session, with Bearer auth and body {}", async () => {
    const c = sdk({ sessionToken: TOKEN });
    await c.trigger();
    await c.cancel({ sessionId: "sess-1" });
    expect(http.requests.map((r) => [r.url, r.headers.authorization, r.body])).toEqual([
      ["https://sos.test/v1/platforms/plt_a/sessions/sess-1/sos", `Bearer ${TOKEN}`, {}],
      ["https://sos.test/v1/platforms/plt_a/sessions/sess-1/sos/cancel", `Bearer ${TOKEN}`, {}],
    ]);
  });

  it("requestLocationUri posts to .../location-uri with the token and returns the URI and its expiry", async () => {
    const c = sdk({ sessionToken: TOKEN });
    expect(await c.requestLocationUri()).toEqual(LOCATION_URI);
    expect(http.requests.map((r) => [r.method, r.url, r.headers.authorization, r.body])).toEqual([
      ["POST", "https://sos.test/v1/platforms/plt_a/sessions/sess-1/location-uri", `Bearer ${TOKEN}`, {}],
    ]);
  });

  it("passes each location_uri of the socket to onLocationUri, without its type and session", async () => {
    const uris: unknown[] = [];
    const c = sdk({ sessionToken: TOKEN, onLocationUri: (u) => uris.push(u) });
    const ready = c.connect();
    FakeWebSocket.last.open();
    await ready;
    FakeWebSocket.last.receive({ type: "location_uri", session_id: "sess-1", ...LOCATION_URI });
    await flush();
    expect(uris).toEqual([LOCATION_URI]);
  });

  it("connect() after startSession() uses the new session's counselor token", async () => {
    const c = sdk({ platformId: "plt_a", secretKey: "sk", wsUrl: "sos.test" });
    await c.startSession({ meetingId: "m", counselorId: "c", patientId: "p" });
    const ready = c.connect();
    expect(FakeWebSocket.last.url).toBe(`wss://sos.test/ws?token=${TOKEN}`);
    FakeWebSocket.last.open();
    await ready;
  });

  it("a bare-host wsUrl means wss://", () => {
    const c = new CounselorSDK({ wsUrl: "sos.example.com", sessionToken: TOKEN });
    void c.connect();
    expect(FakeWebSocket.last.url).toBe(`wss://sos.example.com/ws?token=${TOKEN}`);
  });

  it("reports connection state, session state, unavailable reasons and results once each", async () => {
    const seen: string[] = [];
    const results: CounselorPsapResults[] = [];
    const c = sdk({
      sessionToken: TOKEN,
      onStateChange: (s) => seen.push(`conn:${s}`),
      onSessionState: (s) => seen.push(`session:${s}`),
      onLocationUnavailable: (r) => seen.push(`unavailable:${r}`),
      onPSAPResults: (r) => results.push(r),
    });
    const ready = c.connect();
    const ws = FakeWebSocket.last;
    ws.open();
    await ready;
    ws.receive({
      type: "session_state",
      session_id: "sess-1",
      role: "counselor",
      state: "sos",
      expires_at: "x",
    });
    ws.receive({
      type: "location_unavailable",
      session_id: "sess-1",
      reason: "permission_denied",
      patient_address: null,
    });
    ws.receive(RESULTS);
    ws.receive(RESULTS); // a reconnect brings the latest again
    ws.receive({ ...RESULTS, result_id: "res-2", psaps: [], reason: "outside_coverage" });
    expect(seen).toEqual(["conn:connecting", "conn:open", "session:sos", "unavailable:permission_denied"]);
    expect(results).toEqual([
      {
        psaps: [],
        location: RESULTS.location,
        area: RESULTS.area,
        emergency: RESULTS.emergency,
        patient_address: null,
        result_id: "res-1",
        computed_at: RESULTS.computed_at,
        data_version: "v1",
      },
      {
        psaps: [],
        location: RESULTS.location,
        area: RESULTS.area,
        emergency: RESULTS.emergency,
        patient_address: null,
        result_id: "res-2",
        computed_at: RESULTS.computed_at,
        data_version: "v1",
        reason: "outside_coverage",
      },
    ]);
  });

  it("keeps the latest address on file and passes it with results and with location_unavailable", async () => {
    const ADDRESS = "1200 W Harrison St, Chicago, IL 60607";
    const seen: unknown[][] = [];
    const results: CounselorPsapResults[] = [];
    let c: CounselorSDK | undefined;
    c = sdk({
      sessionToken: TOKEN,
      // The address that came with a session_state is already there when the state is reported.
      onSessionState: (s) => seen.push(["session", s, c?.patientAddress]),
      onLocationUnavailable: (reason, address) => seen.push(["unavailable", reason, address]),
      onPSAPResults: (r) => results.push(r),
    });
    expect(c.patientAddress).toBeNull();
    void c.connect();
    const ws = FakeWebSocket.last;
    ws.open();
    ws.receive({
      type: "session_state",
      session_id: "sess-1",
      role: "counselor",
      state: "sos",
      expires_at: "x",
      patient_address: ADDRESS,
    });
    expect(c.patientAddress).toBe(ADDRESS);
    ws.receive({
      type: "location_unavailable",
      session_id: "sess-1",
      reason: "timeout",
      patient_address: ADDRESS,
    });
    ws.receive({ ...RESULTS, patient_address: ADDRESS });
    expect(results[0]).toMatchObject({
      area: RESULTS.area,
      emergency: RESULTS.emergency,
      patient_address: ADDRESS,
    });
    // The platform's record changed (or had none): the latest word wins.
    ws.receive({
      type: "location_unavailable",
      session_id: "sess-1",
      reason: "lookup_failed",
      patient_address: null,
    });
    expect(c.patientAddress).toBeNull();
    expect(seen).toEqual([
      ["session", "sos", ADDRESS],
      ["unavailable", "timeout", ADDRESS],
      ["unavailable", "lookup_failed", null],
    ]);
  });

  it("forgets the address when the session ends (the service erases it)", async () => {
    const c = sdk({ sessionToken: TOKEN });
    void c.connect();
    FakeWebSocket.last.open();
    FakeWebSocket.last.receive({
      type: "session_state",
      session_id: "sess-1",
      role: "counselor",
      state: "active",
      expires_at: "x",
      patient_address: "somewhere",
    });
    expect(c.patientAddress).toBe("somewhere");
    FakeWebSocket.last.receive({ type: "session_ended", session_id: "sess-1", reason: "ended" });
    expect(c.patientAddress).toBeNull();
  });

  it("reports each session state once, in order, across reconnects", async () => {
    const seen: string[] = [];
    const c = sdk({ sessionToken: TOKEN, onSessionState: (s) => seen.push(s) });
    void c.connect();
    const state = (s: "active" | "sos") =>
      FakeWebSocket.last.receive({
        type: "session_state",
        session_id: "sess-1",
        role: "counselor",
        state: s,
        expires_at: "x",
        patient_address: null,
      });
    FakeWebSocket.last.open();
    state("active");
    state("sos");
    // A reconnect brings the same state again: not reported twice.
    FakeWebSocket.last.serverClose(1006);
    await vi.advanceTimersByTimeAsync(30_000);
    FakeWebSocket.last.open();
    state("sos");
    state("active");
    expect(FakeWebSocket.instances.length).toBeGreaterThan(1);
    expect(seen).toEqual(["active", "sos", "active"]);
  });

  it("a throwing callback does not stop later messages", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    let calls = 0;
    const c = sdk({
      sessionToken: TOKEN,
      onPSAPResults: () => {
        calls++;
        throw new Error("page bug");
      },
    });
    void c.connect();
    FakeWebSocket.last.open();
    FakeWebSocket.last.receive(RESULTS);
    FakeWebSocket.last.receive({ ...RESULTS, result_id: "res-2" });
    expect(calls).toBe(2);
  });

  it("stops reconnecting once the session ends", async () => {
    const seen: string[] = [];
    const c = sdk({
      sessionToken: TOKEN,
      onSessionState: (s) => seen.push(s),
      onStateChange: (s) => seen.push(s),
    });
    void c.connect();
    FakeWebSocket.last.open();
    FakeWebSocket.last.receive({ type: "session_ended", session_id: "sess-1", reason: "expired" });
    FakeWebSocket.last.serverClose(4000);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(seen).toEqual(["connecting", "open", "expired", "closed"]);
    expect(errors).toEqual([]);
  });

  it("reports the final session state once, though it comes as session_state and session_ended", async () => {
    const seen: string[] = [];
    const c = sdk({ sessionToken: TOKEN, onSessionState: (s) => seen.push(s) });
    void c.connect();
    FakeWebSocket.last.open();
    FakeWebSocket.last.receive({
      type: "session_state",
      session_id: "sess-1",
      role: "counselor",
      state: "sos",
      expires_at: "2026-11-22T16:00:00.000Z",
    });
    FakeWebSocket.last.receive({
      type: "session_state",
      session_id: "sess-1",
      role: "counselor",
      state: "ended",
      expires_at: "2026-11-22T16:00:00.000Z",
    });
    FakeWebSocket.last.receive({ type: "session_ended", session_id: "sess-1", reason: "ended" });
    expect(seen).toEqual(["sos", "ended"]);
  });

  it("closes its socket on session_ended without waiting for the service's close frame", async () => {
    const states: string[] = [];
    const c = sdk({ sessionToken: TOKEN, onStateChange: (s) => states.push(s) });
    void c.connect();
    const ws = FakeWebSocket.last;
    ws.open();
    ws.receive({ type: "session_ended", session_id: "sess-1", reason: "ended" });
    expect(ws.closedWith).toBe(1000);
    expect(states.at(-1)).toBe("closed");
    await vi.advanceTimersByTimeAsync(120_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it("stops when the session ended while it was away (probe 410)", async () => {
    const gone = fakeFetch([["/ws?", () => problem(410, "session_ended")]]);
    vi.stubGlobal("fetch", gone.fn);
    const seen: string[] = [];
    const c = sdk({ sessionToken: TOKEN, onSessionState: (s) => seen.push(s) });
    void c.connect();
    FakeWebSocket.last.open();
    FakeWebSocket.last.serverClose(1006);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(seen).toEqual(["ended"]);
  });

  it("connect() rejects when the token is refused", async () => {
    vi.stubGlobal("fetch", fakeFetch([["/ws?", () => problem(401, "invalid_token")]]).fn);
    const c = sdk({ sessionToken: TOKEN });
    const ready = c.connect();
    FakeWebSocket.last.serverClose(1006);
    await expect(ready).rejects.toMatchObject({ name: "ApiError", status: 401, code: "invalid_token" });
  });

  it("disconnect() closes without reconnecting and can be called twice", async () => {
    const states: string[] = [];
    const c = sdk({ sessionToken: TOKEN, onStateChange: (s) => states.push(s) });
    const ready = c.connect();
    FakeWebSocket.last.open();
    await ready;
    c.disconnect();
    c.disconnect();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(states).toEqual(["connecting", "open", "closed"]);
  });

  it("token calls without a token fail with invalid_options", async () => {
    await expect(sdk().trigger()).rejects.toMatchObject({ code: "invalid_options" });
    await expect(sdk().connect()).rejects.toMatchObject({ code: "invalid_options" });
    await flush();
    expect(http.requests).toHaveLength(0);
  });
});
