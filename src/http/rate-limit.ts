// The rate limit per API key, through the Workers rate-limit binding (per session and role, the session object counts).
import { RATE_LIMITS } from "../../lib/config.ts";
import type { Env } from "../env.ts";
import { type Problem, problem } from "../problem.ts";

/** Fails closed: a limiter that cannot answer refuses. */
export async function withinApiKeyRate(env: Env, apiKeyId: string): Promise<boolean> {
  try {
    return (await env.API_KEY_LIMITER.limit({ key: apiKeyId })).success;
  } catch {
    return false;
  }
}

/** The binding says only yes or no, so the honest wait is its period. */
export function apiKeyRateProblem(): Problem {
  return problem("rate_limited", "Too many requests for this API key; retry later.", {
    retryAfter: RATE_LIMITS.apiKey.periodSeconds,
  });
}
