// RFC 9457 problem details and method outcomes: the one shape of every error, shared by http/ and session/.
import type { ProblemCode, ProblemDetails } from "../sdk/src/protocol.ts";

export type { ProblemCode };

export const PROBLEM_CONTENT_TYPE = "application/problem+json";
/** The base of every problem's `type` URL: the deployment's own (PROBLEM_TYPE_BASE), set from its env. */
let typeBase = "https://sos.localhost/errors/";

/** Sets the base of `type` URLs from the environment (the worker and each session object call it). */
export function setProblemTypeBase(base: string | undefined): void {
  if (base && /^https?:\/\/\S+\/$/.test(base)) typeBase = base;
}

/** Every error code the service answers (protocol.ts names them), with its status and title. */
export const PROBLEMS = {
  invalid_json: { status: 400, title: "Request body is not valid JSON" },
  invalid_request: { status: 400, title: "Request is invalid" },
  unknown_field: { status: 400, title: "Request has an unknown field" },
  missing_credentials: { status: 401, title: "Credentials are missing" },
  invalid_api_key: { status: 401, title: "API key is not valid" },
  invalid_token: { status: 401, title: "Token is not valid" },
  invalid_admin_token: { status: 401, title: "Admin token is not valid" },
  forbidden: { status: 403, title: "Not allowed" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  not_in_sos: { status: 409, title: "Session is not in SOS" },
  location_check_off: { status: 409, title: "Session does not check the location" },
  location_uri_limit: { status: 409, title: "Too many live location URIs" },
  idempotency_key_in_use: { status: 409, title: "A request with this Idempotency-Key is in progress" },
  session_ended: { status: 410, title: "Session has ended" },
  session_expired: { status: 410, title: "Session has expired" },
  payload_too_large: { status: 413, title: "Request body is too large" },
  unsupported_media_type: { status: 415, title: "Request body must be JSON" },
  idempotency_key_reused: { status: 422, title: "Idempotency-Key was used with another request" },
  upgrade_required: { status: 426, title: "WebSocket upgrade required" },
  rate_limited: { status: 429, title: "Too many requests" },
  internal_error: { status: 500, title: "Internal error" },
  psap_lookup_failed: { status: 503, title: "PSAP data could not be read" },
  psap_index_unavailable: { status: 503, title: "PSAP data is not loaded" },
} as const satisfies Record<ProblemCode, { status: number; title: string }>;

export interface FieldError {
  field: string;
  message: string;
}

/** A problem as plain data: crosses the Durable Object RPC boundary unchanged. */
export interface Problem {
  code: ProblemCode;
  detail: string;
  errors?: FieldError[];
  /** Seconds, for 429, 503 (and the in-progress idempotency conflict). */
  retryAfter?: number;
  /** The `WWW-Authenticate` challenge of a 401. */
  challenge?: string;
}

export function problem(
  code: ProblemCode,
  detail: string,
  extra: Omit<Problem, "code" | "detail"> = {},
): Problem {
  return { code, detail, ...extra };
}

/** A request refused for one field: the detail `field: message.`, and the field named in `errors`. */
export function fieldProblem(field: string, message: string): Problem {
  return problem("invalid_request", `${field}: ${message}.`, { errors: [{ field, message }] });
}

/** Thrown anywhere in a request; the app's error handler turns it into the answer. */
export class ProblemError extends Error {
  readonly problem: Problem;
  constructor(value: Problem) {
    super(value.detail);
    this.name = "ProblemError";
    this.problem = value;
  }
}

export function statusOf(value: Problem): number {
  return PROBLEMS[value.code].status;
}

export function problemBody(value: Problem): ProblemDetails {
  const { status, title } = PROBLEMS[value.code];
  const body: ProblemDetails = {
    type: `${typeBase}${value.code}`,
    title,
    status,
    detail: value.detail,
    code: value.code,
  };
  if (value.errors?.length) body.errors = value.errors;
  return body;
}

export function problemResponse(value: Problem, headers: Record<string, string> = {}): Response {
  const response = new Response(JSON.stringify(problemBody(value)), {
    status: statusOf(value),
    headers: { "Content-Type": PROBLEM_CONTENT_TYPE, ...headers },
  });
  if (value.retryAfter !== undefined) response.headers.set("Retry-After", String(value.retryAfter));
  if (value.challenge !== undefined) response.headers.set("WWW-Authenticate", value.challenge);
  return response;
}

/** What a session object's method answers: a status and body for the route to send, or a problem. */
export type Outcome<T> = { ok: true; status: number; body: T } | { ok: false; problem: Problem };

/** A value the worker read and checked (a body, a query), or the problem it found, for the object to report in the contract's order. */
export type Checked<T> = { ok: true; value: T } | { ok: false; problem: Problem };

export function success<T>(body: T, status = 200): Outcome<T> {
  return { ok: true, status, body };
}

export function failure<T = never>(value: Problem): Outcome<T> {
  return { ok: false, problem: value };
}
