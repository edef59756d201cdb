// Builders for the socket messages a session sends; shapes come from the SDK's protocol module.
// Only counselors ever see where the patient is: the fix and the address on file.
import type {
  CounselorUnavailableReason,
  LocationRequestMessage,
  LocationUnavailableMessage,
  PsapResultsMessage,
  Role,
  ServerMessage,
  SessionEndedMessage,
  SessionEndReason,
  SessionStateMessage,
} from "../../sdk/src/protocol.ts";
import { iso, type SessionRecord } from "./record.ts";

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
 * location request; then the latest results, if any (each role its own copy).
 */
export function greetingMessages(record: SessionRecord, role: Role, now: number): ServerMessage[] {
  const greeting: ServerMessage[] = [sessionStateMessage(record, role)];
  if (role === "patient" && record.state === "sos" && record.location === null) {
    greeting.push(locationRequestMessage(record, now));
  }
  const latest = psapResultsMessage(record, role);
  if (latest) greeting.push(latest);
  return greeting;
}

export function locationRequestMessage(record: SessionRecord, now: number): LocationRequestMessage {
  return { type: "location_request", session_id: record.session_id, requested_at: iso(now) };
}

/** The latest results for a role: counselors see where the patient is, patients get no `location` or `patient_address` field at all. */
export function psapResultsMessage(record: SessionRecord, role: Role): PsapResultsMessage | null {
  const result = record.latest_result;
  if (!result) return null;
  const message: PsapResultsMessage = { type: "psap_results", session_id: record.session_id, ...result };
  if (role === "counselor") {
    if (record.location) message.location = { ...record.location };
    message.patient_address = addressOf(record);
  }
  return message;
}

/** Counselors only. */
export function locationUnavailableMessage(
  record: SessionRecord,
  reason: CounselorUnavailableReason,
): LocationUnavailableMessage {
  return {
    type: "location_unavailable",
    session_id: record.session_id,
    reason,
    patient_address: addressOf(record),
  };
}

export function sessionEndedMessage(record: SessionRecord, reason: SessionEndReason): SessionEndedMessage {
  return { type: "session_ended", session_id: record.session_id, reason };
}

/** Records stored before the address existed have no field: null, as for a session created without one. */
function addressOf(record: SessionRecord): string | null {
  return record.patient_address ?? null;
}
