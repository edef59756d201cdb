// Rate limits through the Workers rate-limit binding: per API key, and per session and role on the token routes.

import { RATE_LIMITS } from "../config.ts";
import type { Env } from "../env.ts";
import { type Problem, problem } from "./problem.ts";

export async function withinApiKeyRate(env: Env, apiKeyId: string): Promise<boolean> {
  return (await env.API_KEY_LIMITER.limit({ key: apiKeyId })).success;
}

export async function withinSessionRate(env: Env, sessionId: string, role: string): Promise<boolean> {
  return (await env.SESSION_LIMITER.limit({ key: `${sessionId}:${role}` })).success;
}

/** The binding says only yes or no, so the honest wait is its period. */
export function apiKeyRateProblem(): Problem {
  return problem("rate_limited", "Too many requests for this API key; retry later.", {
    retryAfter: RATE_LIMITS.apiKey.periodSeconds,
  });
}

export function sessionRateProblem(): Problem {
  return problem("rate_limited", "Too many requests for this session; retry later.", {
    retryAfter: RATE_LIMITS.sessionRole.periodSeconds,
  });
}
