// The PSAP lookup as the session runs it: bounded in time, and a failure answers 503 with Retry-After,
// never an empty list that claims no PSAP is near.

import { PSAP_LIMITS } from "../../lib/config.ts";
import type {
  LocationRequestPurpose,
  PsapResultsBody,
  ReportedLocation,
  SessionState,
} from "../../sdk/src/protocol.ts";
import { answerFix, type LookupOptions, type PsapLookupResult } from "../answer/lookup.ts";
import { errorSummary } from "../error-name.ts";
import { type Problem, problem } from "../problem.ts";
import { type PsapIndexStore, PsapIndexUnavailableError, type PsapQuery } from "../psap/lookup.ts";
import { importUnderWay } from "../psap-import-marker.ts";
import { withTimeout } from "../timeout.ts";

/** How long a failed lookup waits for the import marker before it answers without it. */
const MARKER_READ_MS = 1000;

export type SessionLookup =
  | { ok: true; found: PsapLookupResult }
  /**
   * `late`: the lookup that timed out, still running. It settles within `lateLookupMs` more, with its
   * answer or null (it failed, or ran out of time), and never rejects.
   */
  | { ok: false; problem: Problem; late?: Promise<PsapLookupResult | null> };

/**
 * The PSAPs for a fix, or the problem to answer: any error, or no answer within `lookupTimeoutMs`.
 * `options` bring the contact directory (the operator's lines beside the imported ones).
 */
export async function lookupForSession(
  store: PsapIndexStore,
  query: PsapQuery,
  options: Pick<LookupOptions, "contacts"> = {},
): Promise<SessionLookup> {
  const running = answerFix(store, query, { ...options, limit: PSAP_LIMITS.maxResults });
  // Answered from the isolate's caches: nothing to wait for, no timer to set.
  if (!(running instanceof Promise)) return { ok: true, found: running };
  const limitMs = PSAP_LIMITS.lookupTimeoutMs;
  try {
    const found = await withTimeout(running, limitMs, () => {
      throw new LookupTimeoutError(`No answer from the PSAP index within ${limitMs} ms`);
    });
    return { ok: true, found };
  } catch (error) {
    // Nothing loaded: while `npm run dev` imports, say so (one more read, on this failure only, and a
    // short one: the answer must not wait on a store that failed to answer already).
    const loading =
      error instanceof PsapIndexUnavailableError &&
      (await withTimeout(importUnderWay(store), MARKER_READ_MS, () => false));
    const failed: SessionLookup = { ok: false, problem: lookupProblem(error, loading) };
    if (error instanceof LookupTimeoutError) failed.late = lateAnswer(running);
    return failed;
  }
}

/** The timed-out lookup's answer if it comes within `lateLookupMs`; null if it fails or does not come. */
function lateAnswer(running: Promise<PsapLookupResult>): Promise<PsapLookupResult | null> {
  const answer = running.catch((error: unknown) => {
    logLookupFailure("late ", error);
    return null;
  });
  return withTimeout(answer, PSAP_LIMITS.lateLookupMs, () => null);
}

/** What a lookup was started for (the SOS, or the location check), and the turns of its SOS and fix then. */
export type LookupTurn = { purpose: LocationRequestPurpose; sos: number; fix: number };

/**
 * Which lookup may still deliver: for the SOS, the one for the latest fix of the SOS under way; for the
 * location check, the one for the latest check. A lookup lets other requests in while it runs (a cancel,
 * a new SOS, the end, a newer fix or check).
 */
export class LookupTurns {
  #sos = 0;
  readonly #fix: Record<LocationRequestPurpose, number> = { sos: 0, check: 0 };

  /** The state changed (an SOS started or was cancelled, the session ended): no SOS lookup under way delivers. */
  stateChanged(): void {
    this.#sos++;
  }

  /** A new fix (or report) came for `purpose`: its turn (an earlier one's lookup is no longer the latest). */
  next(purpose: LocationRequestPurpose): LookupTurn {
    return { purpose, sos: this.#sos, fix: ++this.#fix[purpose] };
  }

  isLatestFix(turn: LookupTurn): boolean {
    return turn.fix === this.#fix[turn.purpose];
  }

  /** Whether the SOS that asked for the lookup is still the one under way. */
  isSameSos(turn: LookupTurn, state: SessionState): boolean {
    return state === "sos" && turn.sos === this.#sos;
  }
}

/** A lookup's result to deliver, for the fix it was made for (`late`: after it was reported failed). */
export type Delivery = { location: ReportedLocation; result: PsapResultsBody; at: number; late: boolean };

/** The answer to deliver: a fresh result id, and no coordinate in it. */
export function resultOf(found: PsapLookupResult, at: number): PsapResultsBody {
  const result: PsapResultsBody = {
    result_id: crypto.randomUUID(),
    psaps: found.psaps,
    area: found.area,
    emergency: found.emergency,
    computed_at: new Date(at).toISOString(),
    data_version: found.data_version,
  };
  if (found.reason) result.reason = found.reason;
  return result;
}

class LookupTimeoutError extends Error {
  override name = "LookupTimeoutError";
}

/**
 * Any error of the lookup: nothing loaded is `psap_index_unavailable` (`loading`: an import is under way,
 * so the data is coming), everything else `psap_lookup_failed`.
 */
export function lookupProblem(error: unknown, loading = false): Problem {
  const retryAfter = PSAP_LIMITS.lookupRetryAfterSeconds;
  logLookupFailure("", error);
  if (error instanceof PsapIndexUnavailableError) {
    const detail = loading
      ? `The PSAP data is still loading (an import is under way); retry in ${retryAfter} s.`
      : "No PSAP data is loaded; the operator must import it.";
    return problem("psap_index_unavailable", detail, { retryAfter });
  }
  return problem("psap_lookup_failed", "The PSAP data could not be read just now; retry shortly.", {
    retryAfter,
  });
}

/** Logged for the operator: the kind and message only (the lookup never puts a coordinate in a message). */
function logLookupFailure(which: "" | "late ", error: unknown): void {
  console.error(`PSAP ${which}lookup failed: ${errorSummary(error)}`);
}
