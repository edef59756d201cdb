// Who calls a session object's browser methods or opens its socket, as the worker verified from the token.
// For a socket, the worker passes it in headers it sets itself (only the worker can reach the object).
import { ROLES, type Role } from "../../sdk/src/protocol.ts";

export interface SessionCaller {
  role: Role;
  /** The token's subject (patient_id or counselor_id) and id. */
  sub: string;
  jti: string;
}

const HEADERS = {
  role: "X-Session-Role",
  sub: "X-Session-Sub",
  jti: "X-Session-Jti",
} as const;

/** The upgrade request to forward to the object, naming `caller` (whatever a client put in these headers is replaced). */
export function withCaller(request: Request, caller: SessionCaller): Request {
  const forwarded = new Request(request);
  forwarded.headers.set(HEADERS.role, caller.role);
  forwarded.headers.set(HEADERS.sub, caller.sub);
  forwarded.headers.set(HEADERS.jti, caller.jti);
  return forwarded;
}

export function callerOf(request: Request): SessionCaller | null {
  const role = ROLES.find((known) => known === request.headers.get(HEADERS.role));
  if (role === undefined) return null;
  return { role, sub: request.headers.get(HEADERS.sub) ?? "", jti: request.headers.get(HEADERS.jti) ?? "" };
}
