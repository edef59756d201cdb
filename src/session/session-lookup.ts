// The PSAP lookup as the session runs it: bounded in time, and a failure answers 503 with Retry-After,
// never an empty list that claims no PSAP is near.
import type { PsapResultsBody } from "../../sdk/src/protocol.ts";
import { PSAP_LIMITS } from "../config.ts";
import { type Problem, problem } from "../problem.ts";
import {
  type LookupOptions,
  lookupPsaps,
  type PsapIndexStore,
  PsapIndexUnavailableError,
  type PsapLookupResult,
  type PsapQuery,
} from "../psap/lookup.ts";

export type SessionLookup = { ok: true; found: PsapLookupResult } | { ok: false; problem: Problem };

/**
 * The PSAPs for a fix, or the problem to answer: any error, or no answer within `lookupTimeoutMs`.
 * `options` bring the contact directory (its numbers over the imported ones) and `waitUntil`.
 */
export async function lookupForSession(
  store: PsapIndexStore,
  query: PsapQuery,
  options: Pick<LookupOptions, "contacts" | "waitUntil"> = {},
): Promise<SessionLookup> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new LookupTimeoutError(`No answer from the PSAP index within ${PSAP_LIMITS.lookupTimeoutMs} ms`),
        ),
      PSAP_LIMITS.lookupTimeoutMs,
    );
  });
  try {
    const found = await Promise.race([
      lookupPsaps(store, query, { ...options, limit: PSAP_LIMITS.maxResults }),
      timeout,
    ]);
    return { ok: true, found };
  } catch (error) {
    return { ok: false, problem: lookupProblem(error) };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
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
  // Logged for the operator: the kind and message only (the lookup never puts a coordinate in a message).
  const name = error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message : "";
  console.error(`PSAP lookup failed: ${name}: ${message}`);
  if (error instanceof PsapIndexUnavailableError) {
    return problem("psap_index_unavailable", "No PSAP data is loaded; the operator must import it.", {
      retryAfter,
    });
  }
  return problem("psap_lookup_failed", "The PSAP data could not be read just now; retry shortly.", {
    retryAfter,
  });
}
