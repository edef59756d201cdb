// Each platform's webhook in D1: set, rotate, remove (admin path), and read by the consumer at delivery time.

import { WEBHOOK_LIMITS } from "../../lib/config.ts";
import type { WebhookEvent, WebhookEventType } from "../../sdk/src/protocol.ts";
import { isWebhookEventType } from "./events.ts";
import { newSigningSecret } from "./signing.ts";

/** What an admin sees: the secret only when it was just made (creation or rotation), else null. */
export interface WebhookSettings {
  url: string;
  /** null: every type, including types added later. */
  events: WebhookEventType[] | null;
  secret: string | null;
  updated_at: string;
}

/** What the consumer needs to deliver one event. */
export interface WebhookTarget {
  url: string;
  events: WebhookEventType[] | null;
  /** Every secret that signs now: the current one first, the previous one during a rotation's overlap. */
  secrets: string[];
  /** Events created before this (ms) are not delivered: they predate the webhook. */
  createdAt: number;
}

interface WebhookRow {
  url: string;
  events: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * Creates or replaces a platform's webhook, keeping its secret when it has one; null when no such
 * platform. One statement checks the platform, inserts or updates, and tells which it did.
 */
export async function putWebhook(
  db: D1Database,
  platformId: string,
  url: string,
  events: WebhookEventType[] | null,
): Promise<WebhookSettings | null> {
  const now = new Date().toISOString();
  const fresh = newSigningSecret();
  const row = await db
    .prepare(
      `INSERT INTO platform_webhooks (platform_id, url, events, secret, created_at, updated_at)
       SELECT id, ?, ?, ?, ?, ? FROM platforms WHERE id = ?
       ON CONFLICT (platform_id) DO UPDATE SET url = excluded.url, events = excluded.events, updated_at = excluded.updated_at
       RETURNING url, events, secret, updated_at`,
    )
    .bind(url, events === null ? null : JSON.stringify(events), fresh, now, now, platformId)
    .first<Pick<WebhookRow, "url" | "events" | "secret" | "updated_at">>();
  if (!row) return null;
  return {
    url: row.url,
    events: parseEvents(row.events),
    // Shown once: only the PUT that created the webhook (and so its secret) shows it.
    secret: row.secret === fresh ? fresh : null,
    updated_at: row.updated_at,
  };
}

/** A new secret; the old one keeps signing for the overlap. null when the platform has no webhook. */
export async function rotateWebhookSecret(db: D1Database, platformId: string): Promise<string | null> {
  const now = Date.now();
  const fresh = newSigningSecret();
  const row = await db
    .prepare(
      `UPDATE platform_webhooks SET previous_secret = secret, previous_secret_until = ?, secret = ?, updated_at = ?
       WHERE platform_id = ? RETURNING secret`,
    )
    .bind(
      new Date(now + WEBHOOK_LIMITS.rotationOverlapMs).toISOString(),
      fresh,
      new Date(now).toISOString(),
      platformId,
    )
    .first<{ secret: string }>();
  return row ? row.secret : null;
}

/** Whether the platform has a webhook now. */
export async function hasWebhook(db: D1Database, platformId: string): Promise<boolean> {
  const row = await db
    .prepare("SELECT 1 AS found FROM platform_webhooks WHERE platform_id = ?")
    .bind(platformId)
    .first();
  return row !== null;
}

/** Removes the webhook (nothing created after this is delivered); true if there was one. */
export async function deleteWebhook(db: D1Database, platformId: string): Promise<boolean> {
  const result = await db
    .prepare("DELETE FROM platform_webhooks WHERE platform_id = ?")
    .bind(platformId)
    .run();
  return result.meta.changes > 0;
}

/** The webhooks of these platforms as they are now (absent: none), read fresh so a removal applies at once. */
export async function webhookTargets(
  db: D1Database,
  platformIds: readonly string[],
  now: number,
): Promise<Map<string, WebhookTarget>> {
  const targets = new Map<string, WebhookTarget>();
  if (platformIds.length === 0) return targets;
  const placeholders = platformIds.map(() => "?").join(", ");
  const { results } = await db
    .prepare(
      `SELECT platform_id, url, events, secret, previous_secret, previous_secret_until, created_at
       FROM platform_webhooks WHERE platform_id IN (${placeholders})`,
    )
    .bind(...platformIds)
    .all<WebhookRow & { platform_id: string }>();
  for (const row of results) {
    const secrets = [row.secret];
    if (row.previous_secret && row.previous_secret_until && Date.parse(row.previous_secret_until) > now) {
      secrets.push(row.previous_secret);
    }
    targets.set(row.platform_id, {
      url: row.url,
      events: parseEvents(row.events),
      secrets,
      createdAt: Date.parse(row.created_at),
    });
  }
  return targets;
}

/**
 * Whether the webhook takes this event: created after the webhook was, and of a type it asked for. The
 * one rule, applied twice: by the session object before the queue, and by the consumer at delivery.
 */
export function takesEvent(target: WebhookTarget, event: WebhookEvent): boolean {
  if (Date.parse(event.created_at) < target.createdAt) return false;
  return target.events === null || target.events.includes(event.type);
}

function parseEvents(stored: string | null): WebhookEventType[] | null {
  if (stored === null) return null;
  const parsed: unknown = JSON.parse(stored);
  return Array.isArray(parsed)
    ? parsed.filter((t): t is WebhookEventType => typeof t === "string" && isWebhookEventType(t))
    : null;
}
