// One Durable Object per (platform, Idempotency-Key): remembers the first request's body hash and answer for 24 h.

import { DurableObject } from "cloudflare:workers";
import { HTTP_LIMITS } from "../../lib/config.ts";
import type { Env } from "../env.ts";

/** How long a claimed key waits for its answer before another request may take it over (a crashed request). */
const IN_PROGRESS_LEASE_MS = 30_000;

interface StoredAnswer {
  status: number;
  body: string;
}

interface IdempotencyEntry {
  request_hash: string;
  created_at: number;
  lease_until: number;
  answer: StoredAnswer | null;
}

export type ClaimResult =
  | { kind: "claimed" }
  | { kind: "replay"; answer: StoredAnswer }
  | { kind: "mismatch" }
  | { kind: "in_progress"; retryAfterSeconds: number };

const ENTRY_KEY = "entry";

export class IdempotencyObject extends DurableObject<Env> {
  /** Claims the key for a request with this body hash, or says what happened to an earlier one. */
  async claim(requestHash: string): Promise<ClaimResult> {
    const now = Date.now();
    const entry = await this.#live(now);
    if (entry) {
      if (entry.request_hash !== requestHash) return { kind: "mismatch" };
      if (entry.answer) return { kind: "replay", answer: entry.answer };
      if (entry.lease_until > now) {
        return { kind: "in_progress", retryAfterSeconds: Math.ceil((entry.lease_until - now) / 1000) };
      }
    }
    const claimed: IdempotencyEntry = {
      request_hash: requestHash,
      created_at: entry?.created_at ?? now,
      lease_until: now + IN_PROGRESS_LEASE_MS,
      answer: null,
    };
    await this.ctx.storage.put(ENTRY_KEY, claimed);
    await this.ctx.storage.setAlarm(claimed.created_at + HTTP_LIMITS.idempotencyTtlMs);
    return { kind: "claimed" };
  }

  /** Stores the answer to replay. Only successful answers are kept; a failure releases the key. */
  async complete(requestHash: string, answer: StoredAnswer): Promise<void> {
    const entry = await this.#live(Date.now());
    if (!entry || entry.request_hash !== requestHash) return;
    if (answer.status >= 200 && answer.status < 300) {
      await this.ctx.storage.put(ENTRY_KEY, { ...entry, answer });
    } else {
      await this.ctx.storage.deleteAll();
    }
  }

  override async alarm(): Promise<void> {
    const entry = await this.ctx.storage.get<IdempotencyEntry>(ENTRY_KEY);
    if (!entry || entry.created_at + HTTP_LIMITS.idempotencyTtlMs <= Date.now()) {
      await this.ctx.storage.deleteAll();
    }
  }

  async #live(now: number): Promise<IdempotencyEntry | null> {
    const entry = await this.ctx.storage.get<IdempotencyEntry>(ENTRY_KEY);
    if (!entry) return null;
    if (entry.created_at + HTTP_LIMITS.idempotencyTtlMs <= now) {
      await this.ctx.storage.deleteAll();
      return null;
    }
    return entry;
  }
}
