// A fake platform receiver for worker tests: stubs the outbound fetch of the queue consumer (it runs in the
// tests' isolate), keeps every request, answers as told, and verifies signatures with `standardwebhooks`.
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { type MockInstance, vi } from "vitest";
import type { WebhookEvent } from "../../sdk/src/protocol.ts";
import { ADMIN_HEADERS, call } from "./helpers.ts";

export const RECEIVER = "https://receiver.test";

export interface ReceivedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  redirect: RequestInit["redirect"];
  signal: AbortSignal | null | undefined;
}

type Answer = (request: ReceivedRequest) => Response | Promise<Response>;

export class FakeReceiver {
  readonly received: ReceivedRequest[] = [];
  /** Every URL fetched while installed, the receiver's or not (those others go out for real). */
  readonly fetched: string[] = [];
  /** Answers for the next requests, in order; after them, `respond`'s. */
  readonly answers: Answer[] = [];
  /** The answer to every request with no answer of its own queued: `200` unless set. */
  respond: Answer = () => new Response("ok");
  #spy: MockInstance<typeof fetch> | null = null;

  install(): this {
    const original = globalThis.fetch.bind(globalThis);
    this.#spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      this.fetched.push(request.url);
      if (!request.url.startsWith(RECEIVER)) return original(input, init);
      const received: ReceivedRequest = {
        url: request.url,
        method: request.method,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
        redirect: init?.redirect,
        signal: init?.signal,
      };
      this.received.push(received);
      const answer = this.answers.shift();
      return (answer ?? this.respond)(received);
    });
    return this;
  }

  restore(): void {
    this.#spy?.mockRestore();
    this.#spy = null;
  }

  events(): WebhookEvent[] {
    return this.received.map((r) => JSON.parse(r.body) as WebhookEvent);
  }

  async waitFor(count: number, timeoutMs = 8_000): Promise<ReceivedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) {
        const seen = this.events().map((e) => e.type);
        throw new Error(`timed out waiting for ${count} webhook requests; got ${JSON.stringify(seen)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.received;
  }
}

/** Verifies a received request as a platform would; throws when any signature check fails. */
export function verify(secret: string, request: ReceivedRequest): unknown {
  return new Webhook(secret).verify(request.body, {
    "webhook-id": request.headers["webhook-id"] ?? "",
    "webhook-timestamp": request.headers["webhook-timestamp"] ?? "",
    "webhook-signature": request.headers["webhook-signature"] ?? "",
  });
}

export async function setWebhook(
  platformId: string,
  body: { url: string; events?: string[] },
): Promise<{ secret: string | null }> {
  const res = await call(`/v1/admin/platforms/${platformId}/webhook`, {
    method: "PUT",
    headers: { ...ADMIN_HEADERS, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`webhook PUT failed: ${res.status} ${await res.text()}`);
  return res.json();
}

export async function deliveryRows(platformId: string): Promise<Record<string, unknown>[]> {
  const { results } = await env.DB.prepare(
    "SELECT * FROM webhook_deliveries WHERE platform_id = ? ORDER BY event_created_at, event_id",
  )
    .bind(platformId)
    .all();
  return results;
}
