// The wire contract between the service and the SDKs: every WebSocket message and record shape.
// The worker imports these types too, so this file is the one place they are defined.

/** The two browser roles a session token can carry (`aud` claim). */
export type Role = "patient" | "counselor";

/** States of a session (SPEC section 6). `ended` and `expired` are final. */
export type SessionState = "active" | "sos" | "ended" | "expired";

/** Why the patient cannot give a fix (mirrors the browser's GeolocationPositionError codes), or the 30 s clock. */
export type LocationUnavailableReason = "permission_denied" | "position_unavailable" | "timeout";

/** What a counselor is told when no result is coming: the patient's reason, or our PSAP lookup failed. */
export type CounselorUnavailableReason = LocationUnavailableReason | "lookup_failed";

/** Why a session stopped. */
export type SessionEndReason = "ended" | "expired";

/** Why a PSAP record was chosen (SPEC section 4): operator boundary, city limits, county, or distance alone. */
export type PsapMatch = "boundary" | "city" | "county" | "nearest";

/** What a PSAP serves: one city or town, a county, several of them, a whole state, or a special site. */
export type PsapJurisdiction = "municipal" | "county" | "regional" | "state" | "special";

/** `emergency`: a 10-digit line that rings the 911 floor; `administrative`: the centre's business line. */
export type PhoneKind = "emergency" | "administrative";

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
  /** E.164, or null when no number is on file. */
  phone: string | null;
  phone_kind: PhoneKind | null;
  jurisdiction: PsapJurisdiction;
  /** A secondary's primary (FCC id), from the registry; else null. */
  handled_by: string | null;
  latitude: number;
  longitude: number;
  location_precision: LocationPrecision;
  /** Haversine distance from the patient, km, one decimal. */
  distance_km: number;
  match: PsapMatch;
}

/** Why `psaps` is empty. */
export type PsapEmptyReason = "outside_coverage";

/**
 * Where the fix is, in a dispatcher's words. `country` is ISO 3166-1 alpha-2 (US territories count
 * as "US" with their own `state` code); outside the US only `country` is set; null where none applies.
 */
export interface PsapArea {
  country: string | null;
  state: string | null;
  county: string | null;
  place: string | null;
  /**
   * `city`: an incorporated place (city, town, village, borough); `town`: a town or township that is a
   * county subdivision with its own government (New England, NJ, NY, PA, MI, WI, MN); `community`:
   * census-designated, unincorporated (named only where no municipality contains the fix).
   */
  place_kind: "city" | "town" | "community" | null;
}

export type EmergencyService = "all" | "police" | "ambulance" | "fire" | "crisis";

/** What the patient (or someone with them) can dial where they are; the first number is the one to dial first. */
export interface EmergencyNumbers {
  country: string | null;
  numbers: { number: string; service: EmergencyService }[];
}

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
  area: PsapArea;
  emergency: EmergencyNumbers;
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
  /** Counselors only: the address the platform has on file for this visit (or null). Never sent to a patient. */
  patient_address?: string | null;
}

export interface LocationRequestMessage {
  type: "location_request";
  session_id: string;
  requested_at: string;
}

/** The patient's copy has no `location` and no `patient_address` field at all. */
export interface PsapResultsMessage extends PsapResultsBody {
  type: "psap_results";
  session_id: string;
  location?: ReportedLocation;
  patient_address?: string | null;
}

/** Counselors only. */
export interface LocationUnavailableMessage {
  type: "location_unavailable";
  session_id: string;
  reason: CounselorUnavailableReason;
  patient_address: string | null;
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
  /** The address the platform has on file for this visit: shown to counselors only, erased at the end. */
  patient_address?: string;
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
