// A fix on its way to the screens: looked up, then delivered if what asked for it is still current (the SOS
// and its latest fix, or the latest location check), late if the lookup was only slow. The session object
// owns the state; this part decides what a lookup's answer means for it, through the host's operations.
import type {
  CounselorUnavailableReason,
  LocationFix,
  LocationRequestPurpose,
  ReportedLocation,
} from "../../sdk/src/protocol.ts";
import type { PsapLookupResult } from "../answer/lookup.ts";
import { failure, success } from "../problem.ts";
import type { SessionBroadcasts } from "./broadcasts.ts";
import type { SessionCaller } from "./caller.ts";
import type { SessionFact } from "./facts.ts";
import type { BrowserGate } from "./gate.ts";
import { notInSos } from "./problems.ts";
import { reportedLocation, type SessionRecord, type StoredCheck } from "./record.ts";
import {
  type Delivery,
  type LookupTurn,
  type LookupTurns,
  type lookupForSession,
  resultOf,
} from "./session-lookup.ts";
import type { SessionEvent } from "./transitions.ts";

/** What the session object lends: its turns and gate, and the operations that change and tell its state. */
export interface FixHost {
  lookups: LookupTurns;
  gate: BrowserGate;
  /** The session as stored, its due deadlines run first (null once purged). */
  record(now: number): SessionRecord | null;
  apply(event: SessionEvent, beforeStoring?: (next: SessionRecord) => void): SessionRecord | null;
  emit(fact: SessionFact): void;
  tell(): SessionBroadcasts;
  noLocation(
    record: SessionRecord,
    reason: CounselorUnavailableReason,
    by: SessionFact["by"],
    at: number,
  ): void;
  lookup(location: ReportedLocation): ReturnType<typeof lookupForSession>;
  waitUntil(promise: Promise<unknown>): void;
}

export class FixDelivery {
  readonly #host: FixHost;

  constructor(host: FixHost) {
    this.#host = host;
  }

  /**
   * Looks up the PSAPs for a fix and delivers them, if what asked for it is still current: the SOS and
   * its latest fix, or the latest check. A check whose lookup failed records nothing: a failure of ours
   * is never told as where the patient is.
   */
  async locate(purpose: LocationRequestPurpose, caller: SessionCaller, fix: LocationFix, now: number) {
    const turn = this.#host.lookups.next(purpose);
    const location = reportedLocation(fix, now);
    const lookup = await this.#host.lookup(location);

    // The lookup let other requests in: the end, a newer fix or check, for the SOS's fix a cancel or a
    // new SOS, make this fix deliver nothing.
    const at = Date.now();
    const live = this.#host.gate.live(this.#host.record(at));
    if (!live.ok) return live;
    const latest = this.#host.lookups.isLatestFix(turn);
    if (purpose === "check") {
      if (!lookup.ok) return failure(lookup.problem);
      const result = resultOf(lookup.found, at);
      if (latest) this.recordCheck({ at: now, outcome: "located", location, result }, caller.role);
      return success(result);
    }
    if (!this.#host.lookups.isSameSos(turn, live.record.state)) {
      return failure(notInSos("The SOS was cancelled while the location was being looked up."));
    }
    const received = () =>
      this.#host.emit({ type: "location_received", by: caller.role, at: now, accuracy: fix.accuracy });
    if (!lookup.ok || !latest) received();
    if (!lookup.ok) {
      // A failure of ours, never "no PSAP nearby": counselors hear it at once, the 30 s clock runs on.
      if (latest) {
        this.#host.noLocation(live.record, "lookup_failed", "system", at);
        // Only slow (timed out, still running): if it answers after all, both sockets get its PSAPs.
        if (lookup.late) this.#host.waitUntil(this.#deliverLate(lookup.late, location, turn));
      }
      return failure(lookup.problem);
    }
    const result = resultOf(lookup.found, at);
    // A newer fix is being looked up: its result is the one delivered.
    if (latest) this.#deliver(live.record, { location, result, at, late: false }, received);
    return success(result);
  }

  /** The check becomes the latest (one still being looked up no longer records): told, stored, emitted. */
  recordCheck(check: StoredCheck, by: SessionFact["by"]): void {
    this.#host.lookups.next("check");
    if (!this.#host.apply({ type: "checked", at: check.at, check }, (next) => this.#host.tell().check(next)))
      return;
    const area = check.result?.area ?? null;
    this.#host.emit({ type: "location_checked", by, at: check.at, outcome: check.outcome, area });
  }

  /** A timed-out lookup that answered after all: delivered if its SOS and fix are still the current ones. */
  async #deliverLate(late: Promise<PsapLookupResult | null>, location: ReportedLocation, turn: LookupTurn) {
    const found = await late;
    if (!found) return;
    const at = Date.now();
    const record = this.#host.record(at);
    if (!record || !this.#host.lookups.isSameSos(turn, record.state) || !this.#host.lookups.isLatestFix(turn))
      return;
    this.#deliver(record, { location, result: resultOf(found, at), at, late: true });
  }

  /**
   * The fix and its PSAPs become the session's latest: sent to every socket first (a write would hold
   * the messages until it is stored), then stored and emitted (`beforeEvents` first).
   */
  #deliver(record: SessionRecord, fix: Delivery, beforeEvents?: () => void): void {
    const { location, result, at, late } = fix;
    // The state machine calls this before it stores; where it refuses the fix, the results still go.
    const send = (located: SessionRecord) => this.#host.tell().results(located);
    if (!this.#host.apply({ type: "located", at, location, result }, send)) send(record);
    beforeEvents?.();
    this.#host.emit({ type: "psaps_delivered", by: "system", at, result, late });
  }
}
