// What a failed PSAP lookup answers: 503 with Retry-After, never an empty list that claims no PSAP is near.
import { PSAP_LIMITS } from "../config.ts";
import { type Problem, problem } from "../problem.ts";
import { PsapIndexUnavailableError } from "../psap/lookup.ts";

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
