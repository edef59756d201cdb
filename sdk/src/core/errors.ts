// Typed SDK errors. `name` and `code` are literal strings so they survive minification.
import type { LocationUnavailableReason, ProblemCode } from "../protocol.ts";

/**
 * What an `ApiError` says went wrong: the service's problem `code`; `network_error` or `request_timeout`
 * when no answer came; `http_<status>` when the answer was not a problem+json (a proxy's page, say).
 */
export type ApiErrorCode = ProblemCode | "network_error" | "request_timeout" | `http_${number}`;

/** Base class of every error the SDKs raise: switch on `code`. */
export class SdkError extends Error {
  /** Stable machine-readable code, such as `"rate_limited"` or the service's problem `code`. */
  readonly code: string;

  constructor(code: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "SdkError";
    this.code = code;
  }
}

/** An HTTP call failed (any status but 429, or no answer at all: `status` 0). Never retried. */
export class ApiError extends SdkError {
  declare readonly code: ApiErrorCode;
  /** HTTP status; 0 when the request got no answer (`network_error`, `request_timeout`). */
  readonly status: number;
  /** The problem's `detail`, or a short description when the service sent none. */
  readonly detail: string;

  constructor(status: number, code: ApiErrorCode, detail: string, cause?: unknown) {
    super(code, status ? `${status} ${code}: ${detail}` : `${code}: ${detail}`, cause);
    this.name = "ApiError";
    this.status = status;
    this.detail = detail;
  }
}

/** The service kept answering 429 after `maxRetryAttempts` retries. */
export class RateLimitError extends SdkError {
  readonly status = 429;
  /** How many retries were made before giving up. */
  readonly retries: number;

  constructor(retries: number) {
    super("rate_limited", `rate limited: gave up after ${retries} retries`);
    this.name = "RateLimitError";
    this.retries = retries;
  }
}

/** The browser could not give a position; `code` is the reason the service is told. */
export class GeolocationError extends SdkError {
  declare readonly code: LocationUnavailableReason;

  constructor(code: LocationUnavailableReason, message: string) {
    super(code, message || code);
    this.name = "GeolocationError";
  }
}
