// The handshake a /ws upgrade must carry (RFC 6455 section 4.1), checked in the worker: a request the
// runtime would refuse after the session object accepted it never reaches the object, so its audit trail
// never shows a socket that did not open.
import { type Problem, problem } from "../problem.ts";

/** The only version of the protocol (RFC 6455); a refusal names it in Sec-WebSocket-Version (section 4.4). */
export const WEBSOCKET_VERSION = "13";

/** Base64 of 16 bytes: 22 characters and two of padding. */
const NONCE = /^[A-Za-z0-9+/]{22}==$/;

/** Whether the request asks to become a WebSocket (without it, `/ws` is the probe the object answers). */
export function asksForUpgrade(headers: Headers): boolean {
  return headers.get("Upgrade")?.trim().toLowerCase() === "websocket";
}

/** Why an upgrade's handshake is not one the runtime completes, or null when it is. */
export function handshakeProblem(headers: Headers): Problem | null {
  const key = headers.get("Sec-WebSocket-Key")?.trim() ?? "";
  if (!NONCE.test(key)) {
    return refusal("Sec-WebSocket-Key", "must be the base64 of 16 random bytes (RFC 6455)");
  }
  const version = headers.get("Sec-WebSocket-Version")?.trim() ?? "";
  if (version !== WEBSOCKET_VERSION) {
    return refusal("Sec-WebSocket-Version", `must be ${WEBSOCKET_VERSION} (RFC 6455)`);
  }
  return null;
}

function refusal(field: string, message: string): Problem {
  return problem("invalid_request", `Not a WebSocket handshake: ${field} ${message}.`, {
    errors: [{ field, message }],
  });
}
