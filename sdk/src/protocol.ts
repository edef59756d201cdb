// The wire contract between the service and the SDKs: every WebSocket message and record shape.
// The worker imports these types too, so this file is the one place they are defined.

/** The two browser roles a session token can carry (`aud` claim). */
export type Role = "patient" | "counselor";

/** States of a session (SPEC section 6). `ended` and `expired` are final. */
export type SessionState = "active" | "sos" | "ended" | "expired";

/** Why the patient cannot give a fix (mirrors the browser's GeolocationPositionError codes), or the 30 s clock. */
export type LocationUnavailableReason = "permission_denied" | "position_unavailable" | "timeout";

/** Why a session stopped. */
export type SessionEndReason = "ended" | "expired";

/** Why a PSAP record was chosen. */
export type PsapMatch = "boundary" | "county" | "nearest";

/** What a PSAP's coordinates stand for. */
export type LocationPrecision = "building" | "city" | "county";

/** One 911 call centre, as delivered to both SDKs (SPEC section 4). */
export interface PsapRecord {
  id: string;
  name: string;
  type: "primary" | "secondary";
  state: string;
  county: string | null;
  city: string | null;
  /** E.164 admin line, or null when the data has none. */
  phone: string | null;
  latitude: number;
  longitude: number;
  location_precision: LocationPrecision;
  /** Haversine distance from the patient, km, one decimal. */
  distance_km: number;
  match: PsapMatch;
}

/** Why `psaps` is empty. */
export type PsapEmptyReason = "outside_coverage";

/** The patient's fix as the counselor sees it (never sent to the patient, never logged). */
export interface ReportedLocation {
  latitude: number;
  longitude: number;
  accuracy: number | null;
}

/** Body of a location submission: a fix... */
export interface LocationFix {
  latitude: number;
  longitude: number;
  accuracy?: number;
  timestamp?: number;
}

/** ...or the reason there is none. */
export interface LocationUnavailableReport {
  unavailable: LocationUnavailableReason;
}

export type LocationSubmission = LocationFix | LocationUnavailableReport;

/** HTTP answer to a location submission with a fix (the patient's copy: no location). */
export interface PsapResultsBody {
  result_id: string;
  psaps: PsapRecord[];
  computed_at: string;
  data_version: string;
  reason?: PsapEmptyReason;
}

// ---------------------------------------------------------------------------
// WebSocket messages (server to client). Text frames, one JSON object with a `type`.

export interface SessionStateMessage {
  type: "session_state";
  session_id: string;
  role: Role;
  state: SessionState;
  expires_at: string;
}

export interface LocationRequestMessage {
  type: "location_request";
  session_id: string;
  requested_at: string;
}

/** The patient's copy has no `location` field at all. */
export interface PsapResultsMessage extends PsapResultsBody {
  type: "psap_results";
  session_id: string;
  location?: ReportedLocation;
}

export interface LocationUnavailableMessage {
  type: "location_unavailable";
  session_id: string;
  reason: LocationUnavailableReason;
}

export interface SessionEndedMessage {
  type: "session_ended";
  session_id: string;
  reason: SessionEndReason;
}

export interface ErrorMessage {
  type: "error";
  code: string;
  message: string;
}

export type ServerMessage =
  | SessionStateMessage
  | LocationRequestMessage
  | PsapResultsMessage
  | LocationUnavailableMessage
  | SessionEndedMessage
  | ErrorMessage;

export type ServerMessageType = ServerMessage["type"];

/** Heartbeat: the client sends this text frame, the service answers `pong` (even while hibernated). */
export const HEARTBEAT_PING = "ping";
export const HEARTBEAT_PONG = "pong";

/** Close code sent when a session is over: clients must not reconnect after it. */
export const CLOSE_SESSION_OVER = 4000;

// ---------------------------------------------------------------------------
// HTTP bodies the SDKs read.

export interface SessionCreateRequest {
  meeting_id: string;
  counselor_id: string;
  patient_id: string;
  expires_in_minutes?: number;
}

export interface SessionCreateResponse {
  session_id: string;
  platform_id: string;
  state: "active";
  patient_token: string;
  counselor_token: string;
  expires_at: string;
  created_at: string;
}

export interface SosTriggerResponse {
  session_id: string;
  state: "sos";
  sos_started_at: string;
  patient_connected: boolean;
}

export interface SosCancelResponse {
  session_id: string;
  state: "active";
  expires_at: string;
}

export interface SessionEndResponse {
  session_id: string;
  state: "ended";
  ended_at: string;
}

/** RFC 9457 problem details, as every error answer carries. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: { field: string; message: string }[];
}

/** Claims of a session token (SPEC section 1). */
export interface SessionTokenClaims {
  iss: string;
  aud: Role;
  sub: string;
  sid: string;
  pid: string;
  iat: number;
  exp: number;
  jti: string;
}
