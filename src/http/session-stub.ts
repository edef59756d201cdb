// Finds the Durable Object of a session: one per session id, pinned to a jurisdiction when configured.
import type { Env } from "../env.ts";

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function isSessionId(value: string): boolean {
  return UUID_PATTERN.test(value);
}

export function sessionStub(env: Env, sessionId: string) {
  // Jurisdictions exist only on Cloudflare's network (workerd refuses them), so they are a deploy-time setting.
  const namespace = env.SESSION_JURISDICTION
    ? env.SESSIONS.jurisdiction(env.SESSION_JURISDICTION as DurableObjectJurisdiction)
    : env.SESSIONS;
  return namespace.get(namespace.idFromName(sessionId));
}
