// JSON over HTTP with the SDKs' one retry rule: HTTP 429 is retried (jittered backoff), everything else fails at once.
import type { ProblemDetails } from "../protocol.ts";
import { ApiError, RateLimitError } from "./errors.ts";

/** Longest wait a `Retry-After` may impose; longer values are cut to this. */
export const MAX_RETRY_AFTER_MS = 60_000;
/** A request with no answer after this long fails with `request_timeout`. */
export const REQUEST_TIMEOUT_MS = 15_000;

export interface HttpOptions {
  /** Retries after a 429 before `RateLimitError` (default 3). */
  maxRetryAttempts?: number;
}

/**
 * Milliseconds to wait before retry number `retry` (0-based): the `Retry-After` header when it is
 * usable (delta-seconds or an HTTP date, cut to 0..60 s), else 1 s, 2 s, 4 s, ... each shortened by up
 * to half at random, so that clients refused at one moment do not all come back at
 * the next one. The service's own `Retry-After` is kept as it is: it already says when to come back.
 */
export function retryDelayMs(retryAfter: string | null, retry: number, now = Date.now()): number {
  const value = retryAfter?.trim() ?? "";
  // An HTTP date always has a weekday or month name; anything else that is not seconds is ignored.
  let ms = /^\d+(\.\d+)?$/.test(value)
    ? Number(value) * 1000
    : /[a-z]/i.test(value)
      ? Date.parse(value) - now
      : Number.NaN;
  if (Number.isNaN(ms)) ms = 1000 * 2 ** retry * (1 - Math.random() / 2);
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends `body` (if any) as JSON and returns the parsed JSON answer.
 * Throws `RateLimitError` after `maxRetryAttempts` retries of 429, `ApiError` for anything else.
 */
export async function requestJson<T>(
  opts: HttpOptions,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<T> {
  const max = opts.maxRetryAttempts ?? 3;
  for (let retry = 0; ; retry++) {
    const res = await send(url, {
      method,
      headers: body === undefined ? headers : { ...headers, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status === 429) {
      if (retry >= max) throw new RateLimitError(retry);
      await sleep(retryDelayMs(res.headers.get("Retry-After"), retry));
      continue;
    }
    const data: unknown = await res.json().catch(() => undefined);
    if (res.ok) return data as T;
    throw problemError(res.status, data);
  }
}

/** One fetch with a timeout; a failure to get any answer becomes an `ApiError` with status 0. */
async function send(url: string, init: RequestInit): Promise<Response> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), REQUEST_TIMEOUT_MS);
  try {
    return await fetch(url, { ...init, signal: ctl.signal });
  } catch (err) {
    throw ctl.signal.aborted
      ? new ApiError(0, "request_timeout", "no answer in time", err)
      : new ApiError(0, "network_error", "the service could not be reached", err);
  } finally {
    clearTimeout(timer);
  }
}

/** An `ApiError` from a problem+json body (or from the bare status when the body is not one). */
export function problemError(status: number, body: unknown): ApiError {
  const p = (body && typeof body === "object" ? body : {}) as Partial<ProblemDetails>;
  return new ApiError(status, p.code ?? `http_${status}`, p.detail ?? p.title ?? `HTTP ${status}`);
}
