// Builders for the socket messages a session sends; shapes come from the SDK's protocol module.
// Only counselors ever see where the patient is: the fix and the address on file.
import type {
  CounselorUnavailableReason,
  LocationCheck,
  LocationCheckMessage,
  LocationRequestMessage,
  LocationRequestPurpose,
  LocationUnavailableMessage,
  PsapResultsMessage,
  Role,
  ServerMessage,
  SessionEndedMessage,
  SessionEndReason,
  SessionStateMessage,
} from "../../sdk/src/protocol.ts";
import { checksLocation, counselorLocation, iso, latestCheck, type SessionRecord } from "./record.ts";

export function sessionStateMessage(record: SessionRecord, role: Role): SessionStateMessage {
  const message: SessionStateMessage = {
    type: "session_state",
    session_id: record.session_id,
    role,
    state: record.state,
    expires_at: iso(record.expires_at),
  };
  if (role === "counselor") message.patient_address = addressOf(record);
  return message;
}

/**
 * What a socket hears as it connects: the session's state; a patient, while an SOS waits for a fix, the
 * location request (or, in a session that checks the location and has no check yet, the check's); a
 * counselor, until the SOS has a fix of its own, the latest check; then the latest results, if any
 * (each role its own copy).
 */
export function greetingMessages(record: SessionRecord, role: Role, now: number): ServerMessage[] {
  const greeting: ServerMessage[] = [sessionStateMessage(record, role)];
  if (role === "patient") {
    if (record.state === "sos" && record.location === null) {
      greeting.push(locationRequestMessage(record, now, "sos"));
    } else if (record.state === "active" && checksLocation(record) && !latestCheck(record)) {
      greeting.push(locationRequestMessage(record, now, "check"));
    }
  }
  const check = role === "counselor" && !record.latest_result ? locationCheckMessage(record, role) : null;
  if (check) greeting.push(check);
  const latest = psapResultsMessage(record, role);
  if (latest) greeting.push(latest);
  return greeting;
}

export function locationRequestMessage(
  record: SessionRecord,
  now: number,
  purpose: LocationRequestPurpose,
): LocationRequestMessage {
  return { type: "location_request", session_id: record.session_id, requested_at: iso(now), purpose };
}

/** The latest results for a role: counselors see where the patient is, patients get no `location` or `patient_address` field at all. */
export function psapResultsMessage(record: SessionRecord, role: Role): PsapResultsMessage | null {
  const result = record.latest_result;
  if (!result) return null;
  const message: PsapResultsMessage = { type: "psap_results", session_id: record.session_id, ...result };
  if (role === "counselor") {
    if (record.location) message.location = counselorLocation(record.location);
    message.patient_address = addressOf(record);
  }
  return message;
}

/**
 * The latest location check for a role (null when there is none): counselors see where the patient was
 * and the address on file; patients get a check with a fix without them, and none without a fix.
 */
export function locationCheckMessage(record: SessionRecord, role: Role): LocationCheckMessage | null {
  const check = role === "counselor" ? counselorCheck(record) : patientCheck(record);
  return check && { type: "location_check", session_id: record.session_id, ...check };
}

/** The latest check as counselors see it, or null. */
function counselorCheck(record: SessionRecord): LocationCheck | null {
  const check = latestCheck(record);
  if (!check) return null;
  const checked_at = iso(check.at);
  const patient_address = addressOf(record);
  if (check.outcome !== "located") return { checked_at, outcome: check.outcome, patient_address };
  return {
    checked_at,
    outcome: "located",
    ...check.result,
    location: counselorLocation(check.location),
    patient_address,
  };
}

/** The patient's copy: a check with a fix, without `location` and `patient_address` fields at all. */
function patientCheck(record: SessionRecord): LocationCheck | null {
  const check = latestCheck(record);
  if (check?.outcome !== "located") return null;
  return { checked_at: iso(check.at), outcome: "located", ...check.result };
}

/** Counselors only: with the latest check, where the patient was before (or null). */
export function locationUnavailableMessage(
  record: SessionRecord,
  reason: CounselorUnavailableReason,
): LocationUnavailableMessage {
  return {
    type: "location_unavailable",
    session_id: record.session_id,
    reason,
    patient_address: addressOf(record),
    last_check: counselorCheck(record),
  };
}

export function sessionEndedMessage(record: SessionRecord, reason: SessionEndReason): SessionEndedMessage {
  return { type: "session_ended", session_id: record.session_id, reason };
}

/** Records stored before the address existed have no field: null, as for a session created without one. */
function addressOf(record: SessionRecord): string | null {
  return record.patient_address ?? null;
}
