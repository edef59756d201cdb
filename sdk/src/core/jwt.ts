// Reads a session token's claims. No verification here: the service verifies every use of it.
import type { SessionTokenClaims } from "../protocol.ts";
import { SdkError } from "./errors.ts";

/** Decodes the payload of a JWT (base64url JSON); throws `invalid_token` if it is not one. */
export function decodeClaims(token: string): SessionTokenClaims {
  try {
    const part = token.split(".")[1] ?? "";
    const b64 = part
      .replace(/-/g, "+")
      .replace(/_/g, "/")
      .padEnd(Math.ceil(part.length / 4) * 4, "=");
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))));
    if (typeof claims.sid === "string" && typeof claims.pid === "string") return claims;
  } catch {
    // fall through: one error for every malformed token
  }
  throw new SdkError("invalid_token", "the token is not a session token");
}
