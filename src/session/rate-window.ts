// An exact sliding-window rate limit, kept in the session object's memory (one object per session,
// so the count is exact and costs no call). Memory is enough: an object hibernates or is evicted
// only after seconds without any event, by which time a 10 s window holds nothing any more.

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

export class SlidingWindow<K> {
  readonly #limit: number;
  readonly #windowMs: number;
  /** Admitted request times per key, oldest first. */
  readonly #times = new Map<K, number[]>();

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /**
   * Admits one request for `key` at `now`, or refuses it with the seconds until the window frees a
   * slot. An exempt request is always admitted, and counted.
   */
  take(key: K, now: number, exempt = false): RateDecision {
    const times = (this.#times.get(key) ?? []).filter((at) => at > now - this.#windowMs);
    this.#times.set(key, times);
    const oldest = times[times.length - this.#limit];
    if (!exempt && oldest !== undefined) {
      return { ok: false, retryAfterSeconds: retryAfterSeconds(oldest + this.#windowMs - now) };
    }
    times.push(now);
    // Exempt requests may push past the limit; only the latest `limit` decide anything.
    if (times.length > this.#limit) times.splice(0, times.length - this.#limit);
    return { ok: true };
  }
}

/** Whole seconds, rounded up, at least 1 (Retry-After has no fractions, and 0 invites a retry storm). */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
