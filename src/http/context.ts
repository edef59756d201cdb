// The Hono environment of every route: bindings plus the identity that the auth middleware verified.

import type { SessionTokenClaims } from "../../sdk/src/protocol.ts";
import type { Env } from "../env.ts";

export interface AppVariables {
  /** Set by the API-key middleware. */
  apiKey: { platformId: string; apiKeyId: string };
  /** Set by the session-token middleware. */
  claims: SessionTokenClaims;
}

export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}
