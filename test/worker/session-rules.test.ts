// The session's rules as plain functions: the transition table with every field it changes, and the
// sliding window that counts requests.
import { describe, expect, it } from "vitest";
import { SESSION_LIMITS } from "../../lib/config.ts";
import type { PsapResultsBody, SessionState } from "../../sdk/src/protocol.ts";
import { SlidingWindow } from "../../src/session/rate-window.ts";
import { newRecord, type SessionRecord, type StoredCheck } from "../../src/session/record.ts";
import { type SessionEvent, type SessionEventType, transition } from "../../src/session/transitions.ts";

const T0 = Date.UTC(2026, 10, 24, 12);
const RESULT: PsapResultsBody = {
  result_id: "r1",
  psaps: [],
  area: { country: "US", state: "IL", county: "Cook", place: null, place_kind: null },
  emergency: { country: "US", numbers: [{ number: "911", service: "all" }] },
  computed_at: new Date(T0).toISOString(),
  data_version: "v",
  reason: "outside_coverage",
};
const LOCATION = { latitude: 41.9, longitude: -87.6, accuracy: 20 };

function record(state: SessionState = "active"): SessionRecord {
  const fresh = newRecord({
    session_id: "s",
    platform_id: "p",
    meeting_id: "m",
    counselor_id: "c",
    patient_id: "pt",
    patient_address: "1 Main St",
    location_check: "at_start",
    created_at: T0,
    expires_at: T0 + 3_600_000,
  });
  return { ...fresh, state };
}

/** A location check with a fix (its fix and its PSAPs). */
const CHECK: StoredCheck = {
  at: T0 + 500,
  outcome: "located",
  location: { latitude: 39.9, longitude: -75.0, accuracy: 30 },
  result: { ...RESULT, result_id: "check-result" },
};

function event(type: SessionEventType, at = T0 + 1_000): SessionEvent {
  if (type === "located") return { type, at, location: LOCATION, result: RESULT };
  if (type === "checked") return { type, at, check: { ...CHECK, at } };
  return { type, at } as SessionEvent;
}

/** An SOS with a fix and a result in it, after a location check. */
function locatedSos(): SessionRecord {
  const checked = transition(record(), event("checked", T0 + 500));
  const sos = checked && transition(checked, event("trigger"));
  const located = sos && transition(sos, event("located", T0 + 2_000));
  if (!located) throw new Error("setup failed");
  return located;
}

describe("the transition table", () => {
  const ALLOWED: Record<SessionState, SessionEventType[]> = {
    active: ["trigger", "checked", "end", "expire"],
    sos: ["trigger", "cancel", "located", "unavailable", "checked", "location_timeout", "end", "expire"],
    ended: ["end"],
    expired: [],
  };
  const EVENTS: SessionEventType[] = [
    "trigger",
    "cancel",
    "located",
    "unavailable",
    "checked",
    "location_timeout",
    "end",
    "expire",
  ];

  for (const [state, allowed] of Object.entries(ALLOWED) as [SessionState, SessionEventType[]][]) {
    it(`in ${state} accepts exactly ${allowed.join(", ") || "nothing"}`, () => {
      for (const type of EVENTS) {
        const next = transition(record(state), event(type));
        expect(next !== null, `${state} + ${type}`).toBe(allowed.includes(type));
      }
    });
  }

  it("starts an SOS: started now, no fix, and the 30 s clock running", () => {
    const next = transition(record(), event("trigger", T0 + 5_000));
    expect(next).toMatchObject({
      state: "sos",
      sos_started_at: T0 + 5_000,
      location: null,
      latest_result: null,
      location_deadline_at: T0 + 5_000 + SESSION_LIMITS.locationDeadlineMs,
    });
  });

  it("a repeated trigger keeps the SOS, its fix and result, and restarts the clock", () => {
    const before = locatedSos();
    const next = transition(before, event("trigger", T0 + 9_000));
    expect(next).toMatchObject({
      state: "sos",
      sos_started_at: before.sos_started_at,
      location: LOCATION,
      latest_result: RESULT,
      location_deadline_at: T0 + 9_000 + SESSION_LIMITS.locationDeadlineMs,
    });
  });

  it("a fix with its result stops the clock", () => {
    expect(locatedSos()).toMatchObject({
      location: LOCATION,
      latest_result: RESULT,
      location_deadline_at: null,
    });
  });

  it("a cancel erases the fix, keeps the check and the address, and gives at least 10 more minutes", () => {
    const late = T0 + 3_590_000;
    const next = transition(locatedSos(), event("cancel", late));
    expect(next).toMatchObject({
      state: "active",
      location: null,
      latest_result: null,
      location_deadline_at: null,
      check: { ...CHECK, at: T0 + 500 },
      location_checked_at: T0 + 500,
      patient_address: "1 Main St",
      expires_at: late + SESSION_LIMITS.cancelGraceMs,
    });
  });

  it.each(["end", "expire"] as const)(
    "%s erases the fix, the result, the check, the clock and the address, and keeps when the check came",
    (type) => {
      const next = transition(locatedSos(), event(type, T0 + 7_000));
      expect(next).toMatchObject({
        state: type === "end" ? "ended" : "expired",
        location: null,
        latest_result: null,
        check: null,
        location_checked_at: T0 + 500,
        location_deadline_at: null,
        patient_address: null,
        final_at: T0 + 7_000,
      });
    },
  );

  it("a check replaces the previous one in active and in sos, and leaves the SOS, its fix and its clock alone", () => {
    const first = transition(record(), event("checked", T0 + 100));
    const unavailable: StoredCheck = { at: T0 + 200, outcome: "timeout", location: null, result: null };
    const replaced = first && transition(first, { type: "checked", at: T0 + 200, check: unavailable });
    expect(replaced).toMatchObject({ state: "active", check: unavailable, location_checked_at: T0 + 200 });
    const sos = transition(record(), event("trigger", T0 + 1_000));
    const checked = sos && transition(sos, event("checked", T0 + 2_000));
    expect(checked).toMatchObject({
      state: "sos",
      check: { ...CHECK, at: T0 + 2_000 },
      location: null,
      latest_result: null,
      location_deadline_at: T0 + 1_000 + SESSION_LIMITS.locationDeadlineMs,
    });
  });

  it("ending an ended session changes nothing", () => {
    const ended = transition(record(), event("end", T0 + 1));
    expect(ended && transition(ended, event("end", T0 + 99))).toBe(ended);
  });

  it("never changes the record it is given", () => {
    const before = locatedSos();
    const copy = structuredClone(before);
    transition(before, event("end"));
    expect(before).toEqual(copy);
  });
});

describe("the sliding window", () => {
  it("admits `limit` in any window and says when the oldest leaves", () => {
    const window = new SlidingWindow<string>(3, 10_000);
    expect(window.take("a", 0).ok).toBe(true);
    expect(window.take("a", 4_000).ok).toBe(true);
    expect(window.take("a", 4_500).ok).toBe(true);
    expect(window.take("a", 9_000)).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(window.take("b", 9_000).ok).toBe(true);
    expect(window.take("a", 10_001).ok).toBe(true);
    expect(window.take("a", 10_002)).toEqual({ ok: false, retryAfterSeconds: 4 });
  });

  it("always admits an exempt request, and counts it", () => {
    const window = new SlidingWindow<string>(2, 10_000);
    window.take("a", 0);
    window.take("a", 1);
    expect(window.take("a", 2, true).ok).toBe(true);
    expect(window.take("a", 3).ok).toBe(false);
    // Only the latest two count (1 ms and 2 ms): the one at 1 ms leaves the window at 10 001 ms.
    expect(window.take("a", 10_000).ok).toBe(false);
    expect(window.take("a", 10_001).ok).toBe(true);
    expect(window.take("a", 10_001).ok).toBe(false);
  });
});
