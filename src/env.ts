// Bindings and secrets of the worker (wrangler.toml, .dev.vars, Workers secrets).
import type { IdempotencyObject } from "./idempotency/idempotency-object.ts";
import type { SessionObject } from "./session/session-object.ts";

/** The worker's bindings; declared once, globally, so `cloudflare:workers` `env` is typed too. */
export type Env = Cloudflare.Env;

declare global {
  namespace Cloudflare {
    /** Types `exports` from `cloudflare:workers` (used by tests to call the worker). */
    interface GlobalProps {
      mainModule: typeof import("./index.ts");
    }
    interface Env {
      SESSIONS: DurableObjectNamespace<SessionObject>;
      IDEMPOTENCY: DurableObjectNamespace<IdempotencyObject>;
      DB: D1Database;
      PSAP_INDEX: KVNamespace;
      API_KEY_LIMITER: RateLimit;
      SESSION_LIMITER: RateLimit;
      ASSETS: Fetcher;
      ADMIN_TOKEN: string;
      JWT_SIGNING_KEY: string;
      JWT_PREVIOUS_PUBLIC_KEYS?: string;
      JWT_ISSUER: string;
      SESSION_JURISDICTION?: string;
    }
  }
}
