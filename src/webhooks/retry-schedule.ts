// When a failed delivery is tried again: a delay per try, read from config, so the schedule is in one place.
import { WEBHOOK_LIMITS, WEBHOOK_MAX_ATTEMPTS } from "../../lib/config.ts";

/** Seconds to wait after try `attempt` (1 = the first) failed; null when that was the last try. */
export function retryDelaySeconds(attempt: number): number | null {
  if (attempt >= WEBHOOK_MAX_ATTEMPTS) return null;
  const delays = WEBHOOK_LIMITS.retryDelaysSeconds;
  return delays[Math.max(0, Math.min(attempt - 1, delays.length - 1))] ?? null;
}
