// Worker entry: the HTTP app, the webhook queue consumer, and the Durable Object classes the runtime instantiates.
import type { Env } from "./env.ts";
import { createApp } from "./http/app.ts";
import { consumeWebhookBatch } from "./webhooks/consumer.ts";

export { IdempotencyObject } from "./idempotency/idempotency-object.ts";
export { LostUsageObject } from "./lost/usage-object.ts";
export { SessionObject } from "./session/session-object.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => consumeWebhookBatch(batch, env),
} satisfies ExportedHandler<Env>;
