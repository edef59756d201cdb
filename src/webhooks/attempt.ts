// One delivery attempt: a signed POST, 10 s to answer, no redirect followed, at most 64 KiB of a failed answer read.
import { WEBHOOK_LIMITS } from "../config.ts";
import { signatureHeader } from "./signing.ts";

export type AttemptResult =
  | { ok: true; statusCode: number }
  | { ok: false; statusCode: number | null; error: string };

const USER_AGENT = "sos-psap-service-webhooks/1";

/**
 * POSTs `body` (the event's JSON) to `url`, signed with every secret and a timestamp taken now (fresh on
 * every attempt). Only a 2xx within the timeout counts; a 3xx is a failure, not a hop to follow.
 */
export async function attemptDelivery(
  url: string,
  eventId: string,
  body: string,
  secrets: readonly string[],
  now: number,
): Promise<AttemptResult> {
  const timestamp = Math.floor(now / 1000);
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": USER_AGENT,
    "webhook-id": eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signatureHeader(secrets, eventId, timestamp, body),
  };
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(WEBHOOK_LIMITS.timeoutMs),
    });
  } catch (error) {
    return { ok: false, statusCode: null, error: requestError(error) };
  }
  if (response.status >= 200 && response.status < 300) {
    // The answer's body means nothing to us: not read, not waited for.
    await cancelQuietly(response.body);
    return { ok: true, statusCode: response.status };
  }
  const excerpt = await readCapped(response.body, WEBHOOK_LIMITS.maxResponseBytes);
  const where = response.status >= 300 && response.status < 400 ? " (redirects are not followed)" : "";
  const error = `HTTP ${response.status}${where}${excerpt ? `: ${excerpt}` : ""}`;
  return { ok: false, statusCode: response.status, error: error.slice(0, WEBHOOK_LIMITS.maxErrorChars) };
}

function requestError(error: unknown): string {
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError") {
    return `no answer within ${WEBHOOK_LIMITS.timeoutMs / 1000} s`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `request failed: ${message}`.slice(0, WEBHOOK_LIMITS.maxErrorChars);
}

/** At most `limit` bytes of the body as text (the rest is never read), or "" when it cannot be read in time. */
async function readCapped(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = limit - total;
      chunks.push(value.byteLength > room ? value.subarray(0, room) : value);
      total += Math.min(value.byteLength, room);
    }
  } catch {
    // A body that breaks off (or outlasts the timeout) leaves what was read.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes).trim();
}

async function cancelQuietly(body: ReadableStream | null): Promise<void> {
  try {
    await body?.cancel();
  } catch {
    // already closed
  }
}
