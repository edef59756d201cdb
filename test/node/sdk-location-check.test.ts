// The location check in both SDKs: the patient SDK answers a `location_request` whose purpose is `check`
// at `.../location-check` on its own (no option), once, without entering the SOS's resubmissions; the
// counselor SDK starts a session with the check, and hands each check (and the latest one with every
// `location_unavailable`) to its callbacks.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type CounselorLocationCheck, CounselorSDK } from "../../sdk/src/counselor.ts";
import { PatientSDK } from "../../sdk/src/patient.ts";
import type {
  EmergencyNumbers,
  LocationCheckMessage,
  PsapRecord,
  PsapResultsBody,
} from "../../sdk/src/protocol.ts";
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

const PATIENT = makeToken("patient", "sess-1", "plt_a");
const COUNSELOR = makeToken("counselor", "sess-1", "plt_a");
const SESSION = "/v1/platforms/plt_a/sessions/sess-1";
const PSAP: PsapRecord = {
  id: "1234",
  name: "Camden County Communications",
  type: "primary",
  state: "NJ",
  county: "Camden",
  city: "Lindenwold",
  phone: null,
  phone_kind: null,
  lines: [],
  jurisdiction: "county",
  handled_by: null,
  latitude: 39.82,
  longitude: -74.99,
  location_precision: "city",
  distance_km: 9.1,
  match: "county",
};
const RESULT: PsapResultsBody = {
  result_id: "check-1",
  psaps: [PSAP],
  area: { country: "US", state: "NJ", county: "Camden", place: "Cherry Hill", place_kind: "town" },
  emergency: { country: "US", numbers: [{ number: "911", service: "all" }] },
  computed_at: "2026-11-22T10:02:00.000Z",
  data_version: "v1",
};

let http: ReturnType<typeof fakeFetch>;
let storage: FakeStorage;
let geo: FakeGeolocation;
let checkAnswer: (req: SeenRequest) => Response;

const posts = (suffix: string) => http.requests.filter((r) => r.url.endsWith(`${SESSION}${suffix}`));

beforeEach(() => {
  checkAnswer = (req) =>
    req.body && typeof req.body === "object" && "unavailable" in req.body
      ? json(200, { received: true })
      : json(200, RESULT);
  ({ http, storage, geo } = installBrowserFakes([
    [`POST ${SESSION}/location-check`, (req) => checkAnswer(req)],
    [`POST ${SESSION}/sos/location`, () => json(200, { ...RESULT, result_id: "sos-1" })],
    [
      "POST /v1/platforms/plt_a/sessions",
      () => json(201, { session_id: "sess-1", counselor_token: COUNSELOR }),
    ],
  ]));
});

afterEach(restoreBrowserFakes);

describe("PatientSDK and the location check", () => {
  let psaps: PsapRecord[][];
  let numbers: EmergencyNumbers[];
  let errors: Error[];

  async function started() {
    psaps = [];
    numbers = [];
    errors = [];
    const sdk = new PatientSDK({
      token: PATIENT,
      apiBaseUrl: "https://sos.test",
      onPSAPResults: (p) => psaps.push(p),
      onEmergencyNumbers: (e) => numbers.push(e),
      onError: (e) => errors.push(e),
    });
    const ready = sdk.init();
    FakeWebSocket.last.open();
    await ready;
    FakeWebSocket.last.receive({
      type: "session_state",
      session_id: "sess-1",
      role: "patient",
      state: "active",
      expires_at: "x",
    });
    return sdk;
  }

  const ask = (purpose: "check" | "sos") =>
    FakeWebSocket.last.receive({
      type: "location_request",
      session_id: "sess-1",
      requested_at: "x",
      purpose,
    });

  it("answers a check request with its fix at .../location-check, and delivers the PSAPs and the numbers", async () => {
    await started();
    geo.fix(39.93, -75.03, 20);
    ask("check");
    await flush();
    expect(posts("/location-check")).toHaveLength(1);
    expect(posts("/location-check")[0]).toMatchObject({
      headers: { authorization: `Bearer ${PATIENT}` },
      body: { latitude: 39.93, longitude: -75.03, accuracy: 20 },
    });
    expect(posts("/sos/location")).toHaveLength(0);
    expect(psaps).toEqual([[PSAP]]);
    expect(numbers).toEqual([RESULT.emergency]);
    // The socket's copy of the same check (no location there) is not delivered again.
    FakeWebSocket.last.receive({
      type: "location_check",
      session_id: "sess-1",
      checked_at: "x",
      outcome: "located",
      ...RESULT,
    });
    expect(psaps).toHaveLength(1);
  });

  it("waits for the first fix, then sends it once; it does not follow the patient around before an SOS", async () => {
    await started();
    ask("check");
    await vi.advanceTimersByTimeAsync(3_000);
    expect(posts("/location-check")).toHaveLength(0);
    geo.fix(39.93, -75.03, 20);
    await flush();
    expect(posts("/location-check")).toHaveLength(1);
    geo.fix(40.5, -75.5, 5);
    await vi.advanceTimersByTimeAsync(30_000);
    geo.fix(41.5, -76.5, 2);
    await flush();
    expect(http.requests.filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("answers unavailable at .../location-check when the browser cannot give a fix", async () => {
    await started();
    geo.fail(1);
    ask("check");
    await flush();
    expect(posts("/location-check").map((r) => r.body)).toEqual([{ unavailable: "permission_denied" }]);
    expect(errors.map((e) => e.name)).toEqual(["GeolocationError"]);

    // A request waiting for its first fix when the browser gives up: answered at once.
    const later = await started();
    ask("check");
    geo.fail(2);
    await flush();
    expect(posts("/location-check").at(-1)?.body).toEqual({ unavailable: "position_unavailable" });
    later.destroy();
  });

  it("sends a failed check again (503, no answer) at most every 10 s until it is taken; not a refused one", async () => {
    let failures = 2;
    checkAnswer = () =>
      failures-- > 0 ? problem(503, "psap_lookup_failed", { "Retry-After": "3" }) : json(200, RESULT);
    await started();
    geo.fix(39.93, -75.03, 20);
    ask("check");
    await flush();
    expect(posts("/location-check")).toHaveLength(1);
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual(["psap_lookup_failed"]);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(posts("/location-check")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(posts("/location-check")).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(posts("/location-check")).toHaveLength(3);
    expect(psaps).toEqual([[PSAP]]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(posts("/location-check")).toHaveLength(3);

    // A check the service refuses (a 400 or 403, say) is not sent again.
    checkAnswer = () => problem(403, "forbidden");
    await started();
    geo.fix(39.93, -75.03, 20);
    ask("check");
    await flush();
    const refused = posts("/location-check").length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(posts("/location-check")).toHaveLength(refused);
  });

  it("answers the SOS's request at .../sos/location, also after a check, and treats a request without a purpose as the SOS's", async () => {
    await started();
    geo.fix(39.93, -75.03, 20);
    ask("check");
    await flush();
    ask("sos");
    await flush();
    expect(posts("/location-check")).toHaveLength(1);
    expect(posts("/sos/location")).toHaveLength(1);

    await started();
    geo.fix(39.93, -75.03, 20);
    FakeWebSocket.last.receive({ type: "location_request", session_id: "sess-1", requested_at: "x" });
    await flush();
    expect(posts("/sos/location")).toHaveLength(2);
  });

  it("keeps no coordinate of the check in storage or the URL", async () => {
    const sdk = await started();
    geo.fix(39.93123, -75.03456, 20);
    ask("check");
    await flush();
    const kept = [...storage.written, ...http.requests.map((r) => r.url), FakeWebSocket.last.url].join("\n");
    expect(kept).not.toMatch(/39\.93|75\.03|latitude|longitude/);
    sdk.destroy();
  });
});

describe("CounselorSDK and the location check", () => {
  const CHECK: LocationCheckMessage = {
    type: "location_check",
    session_id: "sess-1",
    checked_at: "2026-11-22T10:02:00.000Z",
    outcome: "located",
    ...RESULT,
    location: { latitude: 39.93, longitude: -75.03, accuracy: 20 },
    patient_address: "1 Main St, Cherry Hill, NJ",
  };

  async function connected(extra: ConstructorParameters<typeof CounselorSDK>[0] = {}) {
    const c = new CounselorSDK({ sessionToken: COUNSELOR, apiBaseUrl: "https://sos.test", ...extra });
    const open = c.connect();
    FakeWebSocket.last.open();
    await open;
    return c;
  }

  it("startSession sends locationCheck as location_check, and nothing when it is left out", async () => {
    const c = new CounselorSDK({ apiBaseUrl: "https://sos.test", platformId: "plt_a", secretKey: "sk" });
    await c.startSession({ meetingId: "m", counselorId: "c", patientId: "p", locationCheck: "at_start" });
    await c.startSession({ meetingId: "m", counselorId: "c", patientId: "p" });
    const bodies = http.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies[0]).toMatchObject({ location_check: "at_start" });
    expect(bodies[1]).not.toHaveProperty("location_check");
  });

  it("passes each check to onLocationCheck as the results' shape plus checked_at and outcome", async () => {
    const checks: CounselorLocationCheck[] = [];
    const c = await connected({ onLocationCheck: (check) => checks.push(check) });
    FakeWebSocket.last.receive(CHECK);
    FakeWebSocket.last.receive({
      type: "location_check",
      session_id: "sess-1",
      checked_at: "2026-11-22T10:05:00.000Z",
      outcome: "permission_denied",
      patient_address: null,
    });
    const { type: _type, session_id: _sid, ...expected } = CHECK;
    expect(checks).toEqual([
      expected,
      { checked_at: "2026-11-22T10:05:00.000Z", outcome: "permission_denied", patient_address: null },
    ]);
    expect(c.patientAddress).toBeNull();
  });

  it("passes the latest check with location_unavailable, or null (also from a service that sends none)", async () => {
    const seen: unknown[][] = [];
    await connected({ onLocationUnavailable: (...args) => seen.push(args) });
    const { type: _type, session_id: _sid, ...last } = CHECK;
    FakeWebSocket.last.receive({
      type: "location_unavailable",
      session_id: "sess-1",
      reason: "timeout",
      patient_address: "1 Main St, Cherry Hill, NJ",
      last_check: last,
    });
    FakeWebSocket.last.receive({
      type: "location_unavailable",
      session_id: "sess-1",
      reason: "permission_denied",
      patient_address: null,
      last_check: null,
    });
    FakeWebSocket.last.receive({
      type: "location_unavailable",
      session_id: "sess-1",
      reason: "lookup_failed",
      patient_address: null,
    });
    expect(seen).toEqual([
      ["timeout", "1 Main St, Cherry Hill, NJ", last],
      ["permission_denied", null, null],
      ["lookup_failed", null, null],
    ]);
  });
});
