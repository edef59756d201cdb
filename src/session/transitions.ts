// The session state machine (SPEC section 6): every allowed move, in one table.
import type { SessionState } from "../../sdk/src/protocol.ts";

export type SessionEvent = "trigger" | "cancel" | "end" | "expire";

/** For each state, the events it accepts and the state each leads to. Absent means refused. */
export const TRANSITIONS: Readonly<Record<SessionState, Partial<Record<SessionEvent, SessionState>>>> = {
  active: { trigger: "sos", end: "ended", expire: "expired" },
  // A repeated trigger stays in `sos` (and sends a fresh location request); `sos` expires only
  // 24 h after it started, which the deadline logic decides, not this table.
  sos: { trigger: "sos", cancel: "active", end: "ended", expire: "expired" },
  // Ending twice answers the same again.
  ended: { end: "ended" },
  expired: {},
};

export const FINAL_STATES: ReadonlySet<SessionState> = new Set(["ended", "expired"]);

export function nextState(state: SessionState, event: SessionEvent): SessionState | null {
  return TRANSITIONS[state][event] ?? null;
}

export function isFinal(state: SessionState): boolean {
  return FINAL_STATES.has(state);
}
