// One delivery attempt: a signed POST, 10 s to answer, no redirect followed, the answer's body never read.
import { WEBHOOK_LIMITS } from "../../lib/config.ts";
import { errorName } from "../error-name.ts";
import { signatureHeader } from "./signing.ts";

/**
 * Why an attempt failed, in the only words a delivery record uses: the platform learns that its
 * receiver did not take the event, never what the network or the target said (which would make the
 * deliveries route a probe of whatever the URL reaches).
 */
export type AttemptError = "refused" | "timeout" | `status ${number}` | "tls" | "connection failed";

export type AttemptResult =
  | { ok: true; statusCode: number }
  | { ok: false; statusCode: number | null; error: AttemptError };

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
  // The answer's body means nothing to us, whatever the status: not read, not waited for.
  await cancelQuietly(response.body);
  if (response.status >= 200 && response.status < 300) return { ok: true, statusCode: response.status };
  return { ok: false, statusCode: response.status, error: `status ${response.status}` };
}

function requestError(error: unknown): AttemptError {
  const name = errorName(error);
  if (name === "TimeoutError" || name === "AbortError") return "timeout";
  const message = error instanceof Error ? error.message : String(error);
  return /\b(tls|ssl|certificate|handshake)\b/i.test(message) ? "tls" : "connection failed";
}

async function cancelQuietly(body: ReadableStream | null): Promise<void> {
  try {
    await body?.cancel();
  } catch {
    // already closed
  }
}
