// The session's timed duties (expiry, the 30 s location clock, the 30-day purge) and the one alarm that serves them.
import { SESSION_LIMITS } from "../../lib/config.ts";
import type { SessionRecord } from "./record.ts";

export type DeadlineKind = "expire" | "location_timeout" | "purge";

export interface Deadline {
  kind: DeadlineKind;
  at: number;
}

/** When the session stops being live: `expires_at` while `active`, 24 h after the SOS while in `sos`. */
export function expiryAt(record: SessionRecord): number | null {
  if (record.state === "active") return record.expires_at;
  if (record.state === "sos" && record.sos_started_at !== null) {
    return record.sos_started_at + SESSION_LIMITS.sosMaxDurationMs;
  }
  return null;
}

/** Every pending deadline of the record, earliest first. */
export function pendingDeadlines(record: SessionRecord): Deadline[] {
  const deadlines: Deadline[] = [];
  const expiry = expiryAt(record);
  if (expiry !== null) deadlines.push({ kind: "expire", at: expiry });
  if (record.state === "sos" && record.location_deadline_at !== null) {
    deadlines.push({ kind: "location_timeout", at: record.location_deadline_at });
  }
  if (record.final_at !== null) {
    deadlines.push({ kind: "purge", at: record.final_at + SESSION_LIMITS.auditRetentionMs });
  }
  return deadlines.sort((a, b) => a.at - b.at);
}

export function nextAlarmAt(record: SessionRecord): number | null {
  return pendingDeadlines(record)[0]?.at ?? null;
}

export function dueDeadlines(record: SessionRecord, now: number): Deadline[] {
  return pendingDeadlines(record).filter((deadline) => deadline.at <= now);
}
