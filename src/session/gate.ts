// The gate of every browser (token) call of a session, in the contract's order (docs/contract.md, section 7): 410 when
// the session is over (or no longer stored), 429 when the caller's role is over its rate, then the body's
// own problem (413, 415, 400, found by the worker as it read the body). What comes after (409) is each
// method's own rule. The socket's gate is the socket hub's (`SocketHub.refusal`).

import { RATE_LIMITS } from "../../lib/config.ts";
import type { Role } from "../../sdk/src/protocol.ts";
import type { Checked, Problem } from "../problem.ts";
import type { SessionCaller } from "./caller.ts";
import { sessionForgotten, sessionOver, sessionRateLimited } from "./problems.ts";
import { SlidingWindow } from "./rate-window.ts";
import type { SessionRecord } from "./record.ts";
import { isFinal } from "./transitions.ts";

/** A browser call let through: the live record and the checked body; or the problem to answer. */
export type Admitted<T> = { ok: true; record: SessionRecord; value: T } | { ok: false; problem: Problem };

export class BrowserGate {
  /** Per role: 30 requests in any 10 s (config). */
  readonly #requests = new SlidingWindow<Role>(
    RATE_LIMITS.sessionRole.limit,
    RATE_LIMITS.sessionRole.windowMs,
  );

  /**
   * Lets `caller`'s call through to `record` (the session as stored now, null once purged), or says why
   * not. A call `exempt` says may not be refused for rate (the trigger that starts an SOS) is counted all
   * the same.
   */
  admit<T>(
    record: SessionRecord | null,
    caller: SessionCaller,
    body: Checked<T>,
    now: number,
    exempt?: (record: SessionRecord) => boolean,
  ): Admitted<T> {
    const live = this.live(record);
    if (!live.ok) return live;
    const rate = this.#requests.take(caller.role, now, body.ok && exempt?.(live.record) === true);
    if (!rate.ok) return { ok: false, problem: sessionRateLimited(rate.retryAfterSeconds) };
    if (!body.ok) return { ok: false, problem: body.problem };
    return { ok: true, record: live.record, value: body.value };
  }

  /** The session while it is live; 410 once it is over or no longer stored (also after a call's await). */
  live(record: SessionRecord | null): Admitted<null> {
    if (!record) return { ok: false, problem: sessionForgotten() };
    if (isFinal(record.state)) return { ok: false, problem: sessionOver(record.state) };
    return { ok: true, record, value: null };
  }
}
