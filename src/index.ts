// Worker entry: the HTTP app, and the Durable Object classes the runtime instantiates.
import type { Env } from "./env.ts";
import { createApp } from "./http/app.ts";

export { IdempotencyObject } from "./idempotency/idempotency-object.ts";
export { SessionObject } from "./session/session-object.ts";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
