// Idempotency-Key on session creation: the same key and body within 24 h gives the same session.

import { HTTP_LIMITS } from "../../lib/config.ts";
import type { Env } from "../env.ts";
import { ProblemError, problem } from "../problem.ts";

export interface IdempotentAnswer {
  status: number;
  body: unknown;
}

export async function withIdempotency(
  env: Env,
  platformId: string,
  key: string | undefined,
  request: unknown,
  perform: () => Promise<IdempotentAnswer>,
): Promise<Response> {
  if (key === undefined) return toResponse(await perform());
  if (key.length < 1 || key.length > HTTP_LIMITS.maxIdempotencyKeyLength) {
    throw new ProblemError(
      problem(
        "invalid_request",
        `Idempotency-Key must be 1 to ${HTTP_LIMITS.maxIdempotencyKeyLength} characters.`,
        {
          errors: [{ field: "Idempotency-Key", message: "has an invalid length" }],
        },
      ),
    );
  }
  const stub = env.IDEMPOTENCY.get(env.IDEMPOTENCY.idFromName(`${platformId}\n${key}`));
  const requestHash = await sha256Hex(canonicalJson(request));
  const claim = await stub.claim(requestHash);
  if (claim.kind === "mismatch") {
    throw new ProblemError(
      problem("idempotency_key_reused", "This Idempotency-Key was used with a different request body."),
    );
  }
  if (claim.kind === "in_progress") {
    throw new ProblemError(
      problem("idempotency_key_in_use", "A request with this Idempotency-Key is still being processed.", {
        retryAfter: claim.retryAfterSeconds,
      }),
    );
  }
  if (claim.kind === "replay") {
    return new Response(claim.answer.body, {
      status: claim.answer.status,
      headers: { "Content-Type": "application/json", "Idempotent-Replayed": "true" },
    });
  }
  let answer: IdempotentAnswer;
  try {
    answer = await perform();
  } catch (error) {
    await stub.complete(requestHash, { status: 500, body: "" });
    throw error;
  }
  await stub.complete(requestHash, { status: answer.status, body: JSON.stringify(answer.body) });
  return toResponse(answer);
}

function toResponse(answer: IdempotentAnswer): Response {
  return Response.json(answer.body, { status: answer.status });
}

/** JSON with sorted keys, so that field order does not make two equal bodies differ. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : inner,
  );
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
