// Lookups show the directory's numbers over the imported ones, seen through an isolate cache refreshed
// every 30 s (so a change shows within the SPEC's 60 s). A directory that cannot be read never fails a
// lookup: the imported numbers are served, and the next lookup tries again.
import type { PhoneKind, PsapRecord } from "../../sdk/src/protocol.ts";
import { CONTACT_LIMITS } from "../config.ts";
import { errorName } from "../error-name.ts";

export type ContactNumbers = ReadonlyMap<string, { phone: string; phone_kind: PhoneKind }>;

/** Where the current numbers come from: a D1 database, or anything that lists them (tests). */
export interface ContactSource {
  list(): Promise<{ psap_id: string; phone: string; phone_kind: PhoneKind }[]>;
}

interface Cached {
  numbers: ContactNumbers;
  readAt: number;
}

let cached: Cached | null = null;
let refreshing: Promise<ContactNumbers> | null = null;

async function refresh(source: ContactSource): Promise<ContactNumbers> {
  const rows = await source.list();
  const numbers = new Map(rows.map((r) => [r.psap_id, { phone: r.phone, phone_kind: r.phone_kind }]));
  cached = { numbers, readAt: Date.now() };
  return numbers;
}

/**
 * The current numbers: fresh ones when the cache is younger than its TTL; a stale cache is served at
 * once while it refreshes in the background (`waitUntil` keeps that refresh alive); only the first read
 * of an isolate waits. An unreadable directory gives the last numbers known, or none.
 */
export function currentContacts(
  source: ContactSource,
  waitUntil?: (p: Promise<unknown>) => void,
): ContactNumbers | Promise<ContactNumbers> {
  const now = Date.now();
  if (cached && now - cached.readAt < CONTACT_LIMITS.cacheMs) return cached.numbers;
  if (!refreshing) {
    refreshing = refresh(source).finally(() => {
      refreshing = null;
    });
  }
  const pending = refreshing;
  if (cached) {
    const kept = pending.catch((error: unknown) => {
      console.error(`contact directory refresh failed: ${errorName(error)}`);
    });
    waitUntil?.(kept);
    return cached.numbers;
  }
  return pending.catch((error: unknown) => {
    console.error(`contact directory unreadable: ${errorName(error)}`);
    return new Map();
  });
}

/** Forgets the cached numbers (tests). */
export function resetContactCache(): void {
  cached = null;
  refreshing = null;
}

/** The records with the directory's number (and its kind) wherever one is set. */
export function withContacts<T extends Pick<PsapRecord, "id" | "phone" | "phone_kind">>(
  records: readonly T[],
  numbers: ContactNumbers,
): T[] {
  return records.map((r) => {
    const c = numbers.get(r.id);
    return c ? { ...r, phone: c.phone, phone_kind: c.phone_kind } : r;
  });
}
