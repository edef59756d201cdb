// The session state machine (docs/contract.md, section 6): every allowed move, and the one function that applies it
// with every field it changes, so no method sets fields by hand and no path (end, expiry) bypasses it.

import { SESSION_LIMITS } from "../../lib/config.ts";
import type {
  PsapResultsBody,
  ReportedLocation,
  SessionEndReason,
  SessionState,
} from "../../sdk/src/protocol.ts";
import type { SessionRecord, StoredCheck } from "./record.ts";

export type SessionEvent =
  /** The counselor presses SOS: starts one from `active`, or asks again for a fix while in `sos`. */
  | { type: "trigger"; at: number }
  /** A false alarm: back to `active`. */
  | { type: "cancel"; at: number }
  /** A lookup for the current SOS finished: its fix and result become the session's latest. */
  | { type: "located"; at: number; location: ReportedLocation; result: PsapResultsBody }
  /** The patient's browser cannot give a fix: the counselor knows, the clock stops. */
  | { type: "unavailable"; at: number }
  /** A location check came (a fix and its PSAPs, or why there is none): it replaces the previous one. */
  | { type: "checked"; at: number; check: StoredCheck }
  /** 30 s passed without a fix or a report: the counselor is told, the clock stops. */
  | { type: "location_timeout"; at: number }
  | { type: "end"; at: number }
  | { type: "expire"; at: number };

export type SessionEventType = SessionEvent["type"];

/** For each state, the events it accepts and the state each leads to. Absent means refused. */
const MOVES: Readonly<Record<SessionState, Partial<Record<SessionEventType, SessionState>>>> = {
  active: { trigger: "sos", checked: "active", end: "ended", expire: "expired" },
  // `sos` expires only 24 h after it started, which the deadlines decide, not this table.
  sos: {
    trigger: "sos",
    cancel: "active",
    located: "sos",
    unavailable: "sos",
    checked: "sos",
    location_timeout: "sos",
    end: "ended",
    expire: "expired",
  },
  // Ending twice answers the same again and changes nothing.
  ended: { end: "ended" },
  expired: {},
};

export function isFinal(state: SessionState): state is SessionEndReason {
  return state === "ended" || state === "expired";
}

/** Whether a trigger now would start an SOS (the move that is never refused for rate). */
export function startsSos(record: SessionRecord): boolean {
  return record.state === "active";
}

/** The record after `event`, or null when its state refuses the event. Never changes `record`. */
export function transition(record: SessionRecord, event: SessionEvent): SessionRecord | null {
  const state = MOVES[record.state][event.type];
  if (state === undefined) return null;
  if (state === record.state && isFinal(state)) return record;
  const next: SessionRecord = { ...record, state };
  switch (event.type) {
    case "trigger":
      if (record.state === "active") {
        next.sos_started_at = event.at;
        next.location = null;
        next.latest_result = null;
      }
      next.location_deadline_at = event.at + SESSION_LIMITS.locationDeadlineMs;
      return next;
    case "cancel":
      // The SOS's fix goes; the location check stays (it is the session's, not the SOS's).
      next.location = null;
      next.latest_result = null;
      next.location_deadline_at = null;
      next.expires_at = Math.max(record.expires_at, event.at + SESSION_LIMITS.cancelGraceMs);
      return next;
    case "located":
      next.location = event.location;
      next.latest_result = event.result;
      next.location_deadline_at = null;
      return next;
    case "checked":
      next.check = event.check;
      next.location_checked_at = event.at;
      return next;
    case "unavailable":
    case "location_timeout":
      next.location_deadline_at = null;
      return next;
    case "end":
    case "expire":
      // Final: everything that locates the patient goes, the check and the address on file too.
      next.location = null;
      next.latest_result = null;
      next.check = null;
      next.location_deadline_at = null;
      next.patient_address = null;
      next.final_at = event.at;
      return next;
  }
}
