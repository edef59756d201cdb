// Builders for the socket messages a session sends; shapes come from the SDK's protocol module.
import type {
  LocationRequestMessage,
  LocationUnavailableMessage,
  LocationUnavailableReason,
  PsapResultsMessage,
  Role,
  SessionEndedMessage,
  SessionEndReason,
  SessionStateMessage,
} from "../../sdk/src/protocol.ts";
import { iso, type SessionRecord } from "./record.ts";

export function sessionStateMessage(record: SessionRecord, role: Role): SessionStateMessage {
  return {
    type: "session_state",
    session_id: record.session_id,
    role,
    state: record.state,
    expires_at: iso(record.expires_at),
  } satisfies SessionStateMessage;
}

export function locationRequestMessage(record: SessionRecord, now: number): LocationRequestMessage {
  return { type: "location_request", session_id: record.session_id, requested_at: iso(now) };
}

/** The latest results for a role: counselors see where the patient is, patients get no `location` field at all. */
export function psapResultsMessage(record: SessionRecord, role: Role): PsapResultsMessage | null {
  const result = record.latest_result;
  if (!result) return null;
  const message: PsapResultsMessage = { type: "psap_results", session_id: record.session_id, ...result };
  if (role === "counselor" && record.location) message.location = { ...record.location };
  return message;
}

export function locationUnavailableMessage(
  record: SessionRecord,
  reason: LocationUnavailableReason,
): LocationUnavailableMessage {
  return { type: "location_unavailable", session_id: record.session_id, reason, patient_address: null };
}

export function sessionEndedMessage(record: SessionRecord, reason: SessionEndReason): SessionEndedMessage {
  return { type: "session_ended", session_id: record.session_id, reason };
}
