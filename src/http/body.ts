// Reads and validates a JSON request body, reporting the first problem in the contract's order: 413, 415, 400.
import type { z } from "@hono/zod-openapi";
import { HTTP_LIMITS } from "../../lib/config.ts";
import { type Checked, type FieldError, type Problem, problem } from "../problem.ts";
import { EmptyRequest } from "./schemas.ts";

export type BodyResult<T> = Checked<T>;

export interface ReadBodyOptions {
  /** When true, an absent body counts as `{}` (SOS trigger and cancel). */
  optional?: boolean;
}

/**
 * `application/json` and nothing else (no `+json` types), with no parameter but `charset=utf-8`
 * (docs/contract.md, section 7): a body declared in another charset would be read wrongly, so it is refused.
 */
export function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const [type = "", ...parameters] = contentType.split(";");
  if (type.trim().toLowerCase() !== "application/json") return false;
  return parameters.every((parameter) => /^\s*(charset\s*=\s*("utf-8"|utf-8)\s*)?$/i.test(parameter));
}

export async function readJsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
  options: ReadBodyOptions = {},
): Promise<BodyResult<z.infer<S>>> {
  const bytes = await readCappedBytes(request);
  if (bytes === TOO_LARGE) {
    return fail(problem("payload_too_large", `The body must be at most ${HTTP_LIMITS.maxBodyBytes} bytes.`));
  }
  if (bytes === UNREADABLE) {
    return fail(problem("invalid_request", "The request body broke off before its end; send it again."));
  }
  const raw = utf8(bytes);
  if (raw?.trim() === "") {
    if (options.optional) return validate(schema, {});
    return fail(problem("invalid_request", "A JSON request body is required."));
  }
  if (!isJsonMediaType(request.headers.get("Content-Type"))) {
    return fail(
      problem("unsupported_media_type", "Send the body as JSON with Content-Type: application/json."),
    );
  }
  if (raw === null) return fail(problem("invalid_json", "The request body is not UTF-8."));
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return fail(problem("invalid_json", "The request body is not valid JSON."));
  }
  return validate(schema, parsed);
}

/**
 * A body as text, within the size limit: the problem to answer for one over it (413) or one that broke
 * off (400), else the text, or null when the bytes are not UTF-8 (the caller decides how to say so).
 */
export async function readTextBody(request: Request): Promise<BodyResult<string | null>> {
  const bytes = await readCappedBytes(request);
  if (bytes === TOO_LARGE) {
    return fail(problem("payload_too_large", `The body must be at most ${HTTP_LIMITS.maxBodyBytes} bytes.`));
  }
  if (bytes === UNREADABLE) {
    return fail(problem("invalid_request", "The request body broke off before its end; send it again."));
  }
  return { ok: true, value: utf8(bytes) };
}

/**
 * The body of a route that takes none (an end, a new API key, a removal): nothing or `{}`, as the SOS
 * trigger takes, else 413, 415 or 400 like any body. The caller reports the problem only after its own
 * 404 or 410 (the contract's order), and before it changes anything.
 */
export function readNoBody(request: Request): Promise<BodyResult<Record<string, never>>> {
  return readJsonBody(request, EmptyRequest, { optional: true });
}

export function validate<S extends z.ZodType>(schema: S, input: unknown): BodyResult<z.infer<S>> {
  // Each issue keeps the value it found, so a field that is missing is told from one of the wrong type
  // (zod leaves `input` out otherwise). Only the field and zod's message reach the answer, never a value.
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return fail(problemFromIssues(result.error.issues));
}

/** Turns zod issues into one problem: unknown fields are named as such, everything else is `invalid_request`. */
export function problemFromIssues(issues: readonly z.core.$ZodIssue[]): Problem {
  const unknownKeys = issues.flatMap((issue) =>
    issue.code === "unrecognized_keys" ? issue.keys.map((key) => [...issue.path, key].join(".")) : [],
  );
  if (unknownKeys.length > 0) {
    return problem("unknown_field", `Unknown field(s): ${unknownKeys.join(", ")}.`, {
      errors: unknownKeys.map((field) => ({ field, message: "is not a known field" })),
    });
  }
  const errors: FieldError[] = issues.flatMap(flattenIssue);
  const first = errors[0];
  const detail = first ? `${first.field || "body"}: ${first.message}` : "The request is invalid.";
  return problem("invalid_request", detail, { errors });
}

function flattenIssue(issue: z.core.$ZodIssue): FieldError[] {
  // A union (the location body) reports each branch; name the fields of the branch the client meant.
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const branches = issue.errors;
    const best = branches.reduce((a, b) => (b.length < a.length ? b : a));
    return best.flatMap(flattenIssue);
  }
  const field = issue.path.map(String).join(".");
  if (issue.code === "invalid_type" && issue.input === undefined) {
    return [{ field, message: "is required" }];
  }
  return [{ field, message: issue.message }];
}

/** A refused body, as every reader reports one. */
export function fail(value: Problem): { ok: false; problem: Problem } {
  return { ok: false, problem: value };
}

const TOO_LARGE = Symbol("too large");
const UNREADABLE = Symbol("unreadable");

/**
 * The body's bytes; `TOO_LARGE` when they exceed the limit (checked on the header and while reading);
 * `UNREADABLE` when the stream fails mid-read (the client sent less than it declared and hung up): a bad
 * request, not a failure of ours.
 */
async function readCappedBytes(request: Request): Promise<Uint8Array | typeof TOO_LARGE | typeof UNREADABLE> {
  const limit = HTTP_LIMITS.maxBodyBytes;
  const header = request.headers.get("Content-Length");
  const declared = header !== null && /^\s*\d+\s*$/.test(header) ? Number(header) : null;
  if (declared !== null && declared > limit) return TOO_LARGE;
  if (!request.body) return new Uint8Array(0);
  // Chunk by chunk even when a length is declared: a declared length is not a bound on what arrives (a
  // request with both Content-Length and chunked Transfer-Encoding is framed by the chunks), so reading
  // stops at the limit: a body never holds more than the limit and one chunk in memory.
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      return UNREADABLE;
    }
    if (chunk.done) break;
    total += chunk.value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return TOO_LARGE;
    }
    chunks.push(chunk.value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Fatal: bytes that are not UTF-8 throw. Shared: a whole-buffer `decode` keeps no state between calls. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The text, or null when the bytes are not UTF-8 (never silently replaced). */
export function utf8(bytes: Uint8Array): string | null {
  try {
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
}
