// The PSAP lookup as the session runs it: bounded in time, and a failure answers 503 with Retry-After,
// never an empty list that claims no PSAP is near.
import type { PsapResultsBody, SessionState } from "../../sdk/src/protocol.ts";
import { PSAP_LIMITS } from "../config.ts";
import { errorSummary } from "../error-name.ts";
import { type Problem, problem } from "../problem.ts";
import {
  type LookupOptions,
  lookupPsaps,
  type PsapIndexStore,
  PsapIndexUnavailableError,
  type PsapLookupResult,
  type PsapQuery,
} from "../psap/lookup.ts";
import { withTimeout } from "../timeout.ts";

export type SessionLookup =
  | { ok: true; found: PsapLookupResult }
  /**
   * `late`: the lookup that timed out, still running. It settles within `lateLookupMs` more, with its
   * answer or null (it failed, or ran out of time), and never rejects.
   */
  | { ok: false; problem: Problem; late?: Promise<PsapLookupResult | null> };

/**
 * The PSAPs for a fix, or the problem to answer: any error, or no answer within `lookupTimeoutMs`.
 * `options` bring the contact directory (its numbers over the imported ones) and `waitUntil`.
 */
export async function lookupForSession(
  store: PsapIndexStore,
  query: PsapQuery,
  options: Pick<LookupOptions, "contacts" | "waitUntil"> = {},
): Promise<SessionLookup> {
  const running = lookupPsaps(store, query, { ...options, limit: PSAP_LIMITS.maxResults });
  const limitMs = PSAP_LIMITS.lookupTimeoutMs;
  try {
    const found = await withTimeout(running, limitMs, () => {
      throw new LookupTimeoutError(`No answer from the PSAP index within ${limitMs} ms`);
    });
    return { ok: true, found };
  } catch (error) {
    const failed: SessionLookup = { ok: false, problem: lookupProblem(error) };
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

/** Which SOS and which fix a lookup was started for: their turns then. */
export type LookupTurn = { sos: number; fix: number };

/**
 * Which lookup may still deliver: the one for the latest fix of the SOS under way, no other. A lookup
 * lets other requests in while it runs (a cancel, a new SOS, the end, a newer fix).
 */
export class LookupTurns {
  #sos = 0;
  #fix = 0;

  /** The state changed (an SOS started or was cancelled, the session ended): no lookup under way delivers. */
  stateChanged(): void {
    this.#sos++;
  }

  /** A new fix came: its lookup's turn (an earlier fix's lookup is no longer the latest). */
  next(): LookupTurn {
    return { sos: this.#sos, fix: ++this.#fix };
  }

  isLatestFix(turn: LookupTurn): boolean {
    return turn.fix === this.#fix;
  }

  /** Whether the SOS that asked for the lookup is still the one under way. */
  isSameSos(turn: LookupTurn, state: SessionState): boolean {
    return state === "sos" && turn.sos === this.#sos;
  }
}

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

/** Any error of the lookup: nothing loaded is `psap_index_unavailable`, everything else `psap_lookup_failed`. */
export function lookupProblem(error: unknown): Problem {
  const retryAfter = PSAP_LIMITS.lookupRetryAfterSeconds;
  logLookupFailure("", error);
  if (error instanceof PsapIndexUnavailableError) {
    return problem("psap_index_unavailable", "No PSAP data is loaded; the operator must import it.", {
      retryAfter,
    });
  }
  return problem("psap_lookup_failed", "The PSAP data could not be read just now; retry shortly.", {
    retryAfter,
  });
}

/** Logged for the operator: the kind and message only (the lookup never puts a coordinate in a message). */
function logLookupFailure(which: "" | "late ", error: unknown): void {
  console.error(`PSAP ${which}lookup failed: ${errorSummary(error)}`);
}
