// The problems a session answers with, each worded once: the session object's, and the worker's when a
// token outlives its session.
import type { SessionEndReason } from "../../sdk/src/protocol.ts";
import { type Problem, problem } from "../problem.ts";

/** No session of this id for the platform asking (or a malformed id). */
export function noSuchSession(): Problem {
  return problem("not_found", "No such session for this platform.");
}

/** The session was purged 30 days after its end: nothing of it is left to answer with. */
export function sessionForgotten(): Problem {
  return problem("session_expired", "This session is no longer stored.");
}

/** The session is over: 410 with how it ended. */
export function sessionOver(state: SessionEndReason): Problem {
  return state === "expired"
    ? problem("session_expired", "This session has expired.")
    : problem("session_ended", "This session has ended.");
}

export function notInSos(detail: string): Problem {
  return problem("not_in_sos", detail);
}

/** A location check for a session created without `location_check: "at_start"`. */
export function locationCheckOff(): Problem {
  return problem("location_check_off", 'This session was created without location_check: "at_start".');
}

/** Over the per-role rate of this session (docs/contract.md, section 7: 30 requests in any 10 s). */
export function sessionRateLimited(retryAfter: number): Problem {
  return problem("rate_limited", "Too many requests for this session; retry later.", { retryAfter });
}
