// PatientSDK: answers location requests from a private fix, resubmits on movement, keeps no coordinate anywhere.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PatientSDK, type PatientSDKOptions, STORAGE_KEY } from "../../sdk/src/patient.ts";
import type { PsapRecord, PsapResultsBody } from "../../sdk/src/protocol.ts";
import {
  type FakeGeolocation,
  type FakeStorage,
  FakeWebSocket,
  type fakeFetch,
  flush,
  installBrowserFakes,
  json,
  makeToken,
  problem,
  restoreBrowserFakes,
  type SeenRequest,
} from "./sdk-fakes.ts";

const TOKEN = makeToken("patient", "sess-1", "plt_a");
const LOCATION_PATH = "/v1/platforms/plt_a/sessions/sess-1/sos/location";
const PSAP: PsapRecord = {
  id: "8927",
  name: "Southland Dispatch Center",
  type: "primary",
  state: "IL",
  county: "Cook",
  city: "Hazel Crest",
  phone: "+17085551234",
  phone_kind: "administrative",
  lines: [
    {
      phone: "+17085551234",
      kind: "administrative",
      label: "Business line",
      source: "https://www.example.gov/911",
      checked_on: "2026-11-28",
      origin: "directory",
    },
  ],
  jurisdiction: "regional",
  handled_by: null,
  latitude: 41.57,
  longitude: -87.69,
  location_precision: "city",
  distance_km: 3.2,
  match: "county",
};

let http: ReturnType<typeof fakeFetch>;
let storage: FakeStorage;
let geo: FakeGeolocation;
let results: PsapRecord[][];
let errors: Error[];
let resultCounter: number;

function answerWithResults(req: SeenRequest): Response {
  if (req.body && typeof req.body === "object" && "unavailable" in req.body)
    return json(200, { received: true });
  const body: PsapResultsBody = {
    result_id: `res-${++resultCounter}`,
    psaps: [PSAP],
    area: { country: "US", state: "IL", county: "Cook", place: "Hazel Crest", place_kind: "city" },
    emergency: { country: "US", numbers: [{ number: "911", service: "all" }] },
    computed_at: "2026-11-22T10:00:00Z",
    data_version: "fcc-2.295",
  };
  return json(200, body);
}

function locationPosts(): SeenRequest[] {
  return http.requests.filter((r) => r.url.includes(LOCATION_PATH));
}

async function started(extra: Partial<PatientSDKOptions> = {}) {
  const sdk = new PatientSDK({
    token: TOKEN,
    apiBaseUrl: "https://sos.test/",
    onPSAPResults: (p) => results.push(p),
    onError: (e) => errors.push(e),
    ...extra,
  });
  const ready = sdk.init();
  FakeWebSocket.last.open();
  await ready;
  return sdk;
}

function sos(ws = FakeWebSocket.last) {
  ws.receive({ type: "session_state", session_id: "sess-1", role: "patient", state: "sos", expires_at: "x" });
  ws.receive({ type: "location_request", session_id: "sess-1", requested_at: "x" });
}

beforeEach(() => {
  ({ http, storage, geo } = installBrowserFakes([[`POST ${LOCATION_PATH}`, answerWithResults]]));
  results = [];
  errors = [];
  resultCounter = 0;
});

afterEach(restoreBrowserFakes);

describe("PatientSDK", () => {
  it("opens its socket with the token and watches the position with high accuracy", async () => {
    await started();
    expect(FakeWebSocket.last.url).toBe(`wss://sos.test/ws?token=${TOKEN}`);
    expect(geo.watches.size).toBe(1);
    expect(geo.options?.enableHighAccuracy).toBe(true);
  });

  it("keeps only the token and the session identifiers in sessionStorage", async () => {
    await started();
    expect(JSON.parse(storage.getItem(STORAGE_KEY) ?? "")).toEqual({
      token: TOKEN,
      session_id: "sess-1",
      platform_id: "plt_a",
    });
  });

  it("answers a location request with the latest fix and delivers the PSAPs", async () => {
    await started();
    geo.fix(41.6, -87.7, 12);
    sos();
    await flush();
    expect(locationPosts()).toHaveLength(1);
    expect(locationPosts()[0]).toMatchObject({
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: { latitude: 41.6, longitude: -87.7, accuracy: 12 },
    });
    expect(results).toEqual([[PSAP]]);
  });

  it("does not send a location before the SOS", async () => {
    await started();
    geo.fix(41.6, -87.7);
    geo.fix(42.6, -87.7);
    await flush();
    expect(locationPosts()).toHaveLength(0);
  });

  it("waits for the first fix when a request comes before it", async () => {
    await started();
    sos();
    await vi.advanceTimersByTimeAsync(4000);
    expect(locationPosts()).toHaveLength(0);
    geo.fix(41.6, -87.7);
    await flush();
    expect(locationPosts()).toHaveLength(1);
    expect(locationPosts()[0]?.body).toMatchObject({ latitude: 41.6 });
  });

  it("answers `unavailable: timeout` when no fix comes within 10 s", async () => {
    await started();
    sos();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(locationPosts().map((r) => r.body)).toEqual([{ unavailable: "timeout" }]);
    // A fix that comes later is still sent at once.
    geo.fix(41.6, -87.7);
    await flush();
    expect(locationPosts()).toHaveLength(2);
  });

  it("tells onError and the service when the browser refuses the location", async () => {
    await started();
    geo.fail(1, "User denied Geolocation");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: "GeolocationError", code: "permission_denied" });
    sos();
    await flush();
    expect(locationPosts().map((r) => r.body)).toEqual([{ unavailable: "permission_denied" }]);
    expect(errors).toHaveLength(1); // the same refusal is reported once
  });

  it.each([
    [2, "position_unavailable"],
    [3, "timeout"],
  ] as const)("maps geolocation error code %i to `%s` while a request waits", async (code, reason) => {
    await started();
    sos();
    geo.fail(code);
    await flush();
    expect(errors[0]).toMatchObject({ name: "GeolocationError", code: reason });
    expect(locationPosts().map((r) => r.body)).toEqual([{ unavailable: reason }]);
  });

  it("reports position_unavailable where there is no geolocation at all", async () => {
    vi.stubGlobal("navigator", {});
    await started();
    sos();
    await flush();
    expect(errors[0]).toMatchObject({ name: "GeolocationError", code: "position_unavailable" });
    expect(locationPosts().map((r) => r.body)).toEqual([{ unavailable: "position_unavailable" }]);
  });

  it("delivers a result once though it comes both as the HTTP answer and on the socket", async () => {
    await started();
    geo.fix(41.6, -87.7);
    sos();
    await flush();
    FakeWebSocket.last.receive({
      type: "psap_results",
      session_id: "sess-1",
      result_id: "res-1",
      psaps: [PSAP],
      computed_at: "x",
      data_version: "v",
    });
    FakeWebSocket.last.receive({
      type: "psap_results",
      session_id: "sess-1",
      result_id: "res-9",
      psaps: [],
      computed_at: "x",
      data_version: "v",
      reason: "outside_coverage",
    });
    expect(results).toEqual([[PSAP], []]);
  });

  it("tells onEmergencyNumbers what to dial with each result, once, before the PSAPs", async () => {
    const seen: string[] = [];
    await started({
      onEmergencyNumbers: (e) => seen.push(`dial:${e.numbers.map((n) => n.number).join(",")}`),
      onPSAPResults: (p) => seen.push(`psaps:${p.length}`),
    });
    geo.fix(41.6, -87.7);
    sos();
    await flush();
    // The same result again on the socket is not delivered twice.
    FakeWebSocket.last.receive({
      type: "psap_results",
      session_id: "sess-1",
      result_id: "res-1",
      psaps: [PSAP],
      area: { country: "US", state: "IL", county: "Cook", place: "Hazel Crest", place_kind: "city" },
      emergency: { country: "US", numbers: [{ number: "911", service: "all" }] },
      computed_at: "x",
      data_version: "v",
    });
    expect(seen).toEqual(["dial:911", "psaps:1"]);
  });

  it("tells onEmergencyNumbers the country's numbers when no PSAP can help (a patient abroad)", async () => {
    const numbers: unknown[] = [];
    const psaps: PsapRecord[][] = [];
    await started({ onEmergencyNumbers: (e) => numbers.push(e), onPSAPResults: (p) => psaps.push(p) });
    const gb = {
      country: "GB",
      numbers: [
        { number: "999", service: "all" },
        { number: "112", service: "all" },
      ],
    } as const;
    FakeWebSocket.last.receive({
      type: "psap_results",
      session_id: "sess-1",
      result_id: "res-abroad",
      psaps: [],
      area: { country: "GB", state: null, county: null, place: null, place_kind: null },
      emergency: gb,
      computed_at: "x",
      data_version: "v",
      reason: "outside_coverage",
    });
    expect(numbers).toEqual([gb]);
    expect(psaps).toEqual([[]]);
  });

  it("a throwing onEmergencyNumbers does not keep the PSAPs from onPSAPResults", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    await started({
      onEmergencyNumbers: () => {
        throw new Error("page bug");
      },
    });
    geo.fix(41.6, -87.7);
    sos();
    await flush();
    expect(results).toEqual([[PSAP]]);
  });

  it("resubmits while in SOS when the patient moves 100 m, at most once every 10 s", async () => {
    await started();
    geo.fix(41.6, -87.7, 20);
    sos();
    await flush();
    expect(locationPosts()).toHaveLength(1);
    geo.fix(41.6003, -87.7, 20); // ~33 m: not enough
    await vi.advanceTimersByTimeAsync(11_000);
    expect(locationPosts()).toHaveLength(1);
    geo.fix(41.6012, -87.7, 20); // ~133 m from the sent fix, 11 s later: at once
    await flush();
    expect(locationPosts()).toHaveLength(2);
    geo.fix(41.61, -87.7, 20); // moved again 1 s later: waits for the 10 s mark
    await vi.advanceTimersByTimeAsync(8000);
    expect(locationPosts()).toHaveLength(2);
    geo.fix(41.62, -87.7, 20);
    await vi.advanceTimersByTimeAsync(2000);
    expect(locationPosts()).toHaveLength(3);
    expect(locationPosts()[2]?.body).toMatchObject({ latitude: 41.62 }); // the latest fix
  });

  it("resubmits when the accuracy halves", async () => {
    await started();
    geo.fix(41.6, -87.7, 1000);
    sos();
    await flush();
    await vi.advanceTimersByTimeAsync(10_000);
    geo.fix(41.6, -87.7, 600);
    await flush();
    expect(locationPosts()).toHaveLength(1);
    geo.fix(41.6, -87.7, 500);
    await flush();
    expect(locationPosts()).toHaveLength(2);
  });

  it("stops resubmitting after a cancel", async () => {
    await started();
    geo.fix(41.6, -87.7);
    sos();
    await vi.advanceTimersByTimeAsync(20_000);
    FakeWebSocket.last.receive({
      type: "session_state",
      session_id: "s",
      role: "patient",
      state: "active",
      expires_at: "x",
    });
    geo.fix(42.6, -87.7);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(locationPosts()).toHaveLength(1);
  });

  it("answers every location request (a repeated trigger)", async () => {
    await started();
    geo.fix(41.6, -87.7);
    sos();
    await flush();
    sos();
    await flush();
    expect(locationPosts()).toHaveLength(2);
  });

  it("keeps working when a callback throws", async () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    let calls = 0;
    await started({
      onPSAPResults: () => {
        calls++;
        throw new Error("page bug");
      },
      onStateChange: () => {
        throw new Error("page bug");
      },
      onSessionState: () => {
        throw new Error("page bug");
      },
    });
    geo.fix(41.6, -87.7);
    sos();
    await flush();
    await vi.advanceTimersByTimeAsync(10_000);
    geo.fix(42.6, -87.7);
    await flush();
    expect(calls).toBe(2);
    expect(spy).toHaveBeenCalled();
  });

  it("never writes a coordinate to storage, and holds none in its own properties", async () => {
    const sdk = await started();
    geo.fix(41.612345, -87.698765, 15);
    sos();
    await flush();
    await vi.advanceTimersByTimeAsync(11_000);
    geo.fix(41.712345, -87.698765, 15);
    await flush();
    expect(locationPosts()).toHaveLength(2);
    const everything = storage.written.join("\n");
    expect(everything).not.toMatch(/41\.6|41\.7|87\.6|latitude|longitude/);
    const props = JSON.stringify(Object.entries(sdk), (_k, v) => (v instanceof Set ? [...v] : v));
    expect(props).not.toMatch(/41\.6|41\.7|87\.6/);
    expect(String(errors)).not.toMatch(/41\.6|87\.6/);
  });

  it("destroy() stops the watch, closes the socket, clears storage, and is idempotent", async () => {
    const states: string[] = [];
    const sdk = await started({ onStateChange: (s) => states.push(s) });
    geo.fix(41.6, -87.7);
    const ws = FakeWebSocket.last;
    sdk.destroy();
    sdk.destroy();
    expect(geo.watches.size).toBe(0);
    expect(ws.closedWith).toBe(1000);
    expect(storage.getItem(STORAGE_KEY)).toBeNull();
    expect(states).toEqual(["connecting", "open", "closed"]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
    await expect(sdk.init()).rejects.toMatchObject({ code: "destroyed" });
  });

  it("a reply that lands after destroy() is not delivered", async () => {
    let answer: (r: Response) => void = () => {};
    http.fn.mockImplementation(() => new Promise<Response>((resolve) => (answer = resolve)));
    const sdk = await started();
    geo.fix(41.6, -87.7);
    sos();
    await flush();
    sdk.destroy();
    answer(json(200, { result_id: "late", psaps: [PSAP], computed_at: "x", data_version: "v" }));
    await flush();
    expect(results).toEqual([]);
  });

  it("when the session ends: stops watching, forgets the token, reports the state, does not reconnect", async () => {
    const sessionStates: string[] = [];
    await started({ onSessionState: (s) => sessionStates.push(s) });
    FakeWebSocket.last.receive({ type: "session_ended", session_id: "sess-1", reason: "ended" });
    FakeWebSocket.last.serverClose(4000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sessionStates).toEqual(["ended"]);
    expect(geo.watches.size).toBe(0);
    expect(storage.getItem(STORAGE_KEY)).toBeNull();
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it("init() rejects when the token is refused, and the SDK stops", async () => {
    http.fn.mockImplementation(async () => problem(401, "invalid_token"));
    const sdk = new PatientSDK({
      token: TOKEN,
      apiBaseUrl: "https://sos.test",
      onError: (e) => errors.push(e),
    });
    const ready = sdk.init();
    FakeWebSocket.last.serverClose(1006);
    await expect(ready).rejects.toMatchObject({ name: "ApiError", status: 401, code: "invalid_token" });
    expect(errors[0]).toMatchObject({ code: "invalid_token" });
    expect(geo.watches.size).toBe(0);
  });

  it("init() rejects a malformed token without opening anything", async () => {
    const sdk = new PatientSDK({ token: "nope", apiBaseUrl: "https://sos.test" });
    await expect(sdk.init()).rejects.toMatchObject({ name: "SdkError", code: "invalid_token" });
    expect(FakeWebSocket.instances).toHaveLength(0);
  });

  it("after a reload, picks up the token this tab kept", async () => {
    storage.setItem(
      STORAGE_KEY,
      JSON.stringify({ token: TOKEN, session_id: "sess-1", platform_id: "plt_a" }),
    );
    await started({ token: undefined });
    expect(FakeWebSocket.last.url).toContain(TOKEN);
  });

  it("passes a RateLimitError to onError when the location submission stays rate limited", async () => {
    ({ http, geo } = installBrowserFakes([[`POST ${LOCATION_PATH}`, () => problem(429, "rate_limited")]]));
    await started({ maxRetryAttempts: 2 });
    geo.fix(41.6, -87.7);
    sos();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(locationPosts()).toHaveLength(3);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: "RateLimitError", code: "rate_limited" });
  });

  it("ignores a 409 (the SOS was cancelled while the fix was on its way)", async () => {
    ({ http, geo } = installBrowserFakes([[`POST ${LOCATION_PATH}`, () => problem(409, "not_in_sos")]]));
    await started();
    geo.fix(41.6, -87.7);
    sos();
    await flush();
    expect(locationPosts()).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it("derives wss:// from an https apiBaseUrl and accepts a bare-host wsUrl", async () => {
    await started({ apiBaseUrl: "https://api.sos.test", wsUrl: "rt.sos.test" });
    expect(FakeWebSocket.last.url).toBe(`wss://rt.sos.test/ws?token=${TOKEN}`);
  });
});
