// What a session object stores about its session, and the views of it the API shows.

import { HELD_LIMITS } from "../../lib/config.ts";
import type {
  LocationCheckMode,
  LocationFix,
  LocationUnavailableReason,
  PsapResultsBody,
  ReportedLocation,
  Role,
  SessionEndResponse,
  SessionState,
  SessionView,
  SosCancelResponse,
  SosTriggerResponse,
} from "../../sdk/src/protocol.ts";

export interface SessionRecord {
  session_id: string;
  platform_id: string;
  meeting_id: string;
  counselor_id: string;
  patient_id: string;
  state: SessionState;
  created_at: number;
  /** When an `active` session expires (ms). */
  expires_at: number;
  sos_started_at: number | null;
  /** Set when a trigger is waiting for a fix or an `unavailable` report: the 30 s clock. */
  location_deadline_at: number | null;
  /** The patient's latest fix: erased on cancel, end and expiry. */
  location: StoredLocation | null;
  /** The latest lookup for the current SOS (no coordinates in it). */
  latest_result: PsapResultsBody | null;
  /** The address the platform has on file: shown to counselors only, erased on end and expiry. */
  patient_address: string | null;
  /** Whether the patient's browser is asked for its location when the patient first connects. */
  location_check: LocationCheckMode;
  /** The latest location check (where the patient was, before any SOS): erased on end and expiry, kept through a cancel. */
  check: StoredCheck | null;
  /** When the latest check came (ms): kept after the end, when the check itself is erased. */
  location_checked_at: number | null;
  /** When the session reached a final state (the API's `ended_at` when it ended); the audit trail is purged 30 days later. */
  final_at: number | null;
}

/**
 * A fix as the session keeps it: what counselors see of it, and when it was taken (ms), which a location
 * URI's PIDF-LO states (absent in records stored before location URIs existed).
 */
export type StoredLocation = ReportedLocation & { fixed_at?: number };

/** A location check as the session keeps it: when, how it ended, and with a fix, the fix and its PSAPs. */
export type StoredCheck = { at: number } & (
  | { outcome: "located"; location: ReportedLocation; result: PsapResultsBody }
  | { outcome: LocationUnavailableReason; location: null; result: null }
);

export interface NewSessionInput {
  session_id: string;
  platform_id: string;
  meeting_id: string;
  counselor_id: string;
  patient_id: string;
  patient_address: string | null;
  location_check: LocationCheckMode;
  created_at: number;
  expires_at: number;
}

export function newRecord(input: NewSessionInput): SessionRecord {
  return {
    ...input,
    state: "active",
    sos_started_at: null,
    location_deadline_at: null,
    location: null,
    latest_result: null,
    check: null,
    location_checked_at: null,
    final_at: null,
  };
}

/**
 * Whether the session checks the patient's location. Records stored before the check existed have no
 * field: off, as for a session created without it.
 */
export function checksLocation(record: SessionRecord): boolean {
  return record.location_check === "at_start";
}

/** The latest check, or null (none yet, erased, or a record stored before the check existed). */
export function latestCheck(record: SessionRecord): StoredCheck | null {
  return record.check ?? null;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}

/** The API's `ended_at`: set only for a session that was ended (an expired one has none). */
export function endedAt(record: SessionRecord): number | null {
  return record.state === "ended" ? record.final_at : null;
}

export function sessionView(record: SessionRecord, connected: Record<Role, boolean>): SessionView {
  return {
    session_id: record.session_id,
    platform_id: record.platform_id,
    state: record.state,
    created_at: iso(record.created_at),
    expires_at: iso(record.expires_at),
    sos_started_at: isoOrNull(record.sos_started_at),
    ended_at: isoOrNull(endedAt(record)),
    patient_connected: connected.patient,
    counselor_connected: connected.counselor,
    location_check: checksLocation(record) ? "at_start" : "off",
    location_checked_at: isoOrNull(record.location_checked_at ?? null),
  };
}

export function sosTriggerView(
  record: SessionRecord,
  at: number,
  patientConnected: boolean,
): SosTriggerResponse {
  const sosStartedAt = iso(record.sos_started_at ?? at);
  return {
    session_id: record.session_id,
    state: "sos",
    sos_started_at: sosStartedAt,
    patient_connected: patientConnected,
  };
}

export function sosCancelView(record: SessionRecord): SosCancelResponse {
  return { session_id: record.session_id, state: "active", expires_at: iso(record.expires_at) };
}

/** An end's answer: the same for every repeat (`at` stands in only if the record has no end yet). */
export function sessionEndView(record: SessionRecord, at: number): SessionEndResponse {
  return { session_id: record.session_id, state: "ended", ended_at: iso(endedAt(record) ?? at) };
}

/**
 * A submitted fix as the session keeps it: the position, its accuracy, and when it was taken: the
 * browser's own time of the fix when it gave one that is neither later than its arrival (`now`) nor older
 * than a day (a clock that is wrong must not date it), else its arrival.
 */
export function reportedLocation(fix: LocationFix, now: number): StoredLocation {
  const taken = fix.timestamp;
  const believable = taken !== undefined && taken <= now && taken >= now - HELD_LIMITS.maxFixAgeMs;
  return {
    latitude: fix.latitude,
    longitude: fix.longitude,
    accuracy: fix.accuracy ?? null,
    fixed_at: believable ? taken : now,
  };
}

/** The fix as counselors see it: the position and its accuracy only. */
export function counselorLocation(location: ReportedLocation): ReportedLocation {
  return { latitude: location.latitude, longitude: location.longitude, accuracy: location.accuracy };
}
