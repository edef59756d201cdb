// The wire contract between the service, the SDKs and the platforms: every WebSocket message, record
// shape and webhook event, and the vocabulary they are spelled in. The worker imports these too (its zod
// schemas are built from the lists below and checked against the types), so this file is the one place
// each is defined. A list is an `as const` array, its type derived from it: the SDK bundles only what
// it uses, and adding a value here adds it to the OpenAPI document and every check at once.

/** The two browser roles a session token can carry (`aud` claim). */
export const ROLES = ["patient", "counselor"] as const;
export type Role = (typeof ROLES)[number];

/** States of a session (docs/contract.md, section 6). `ended` and `expired` are final. */
export const SESSION_STATES = ["active", "sos", "ended", "expired"] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** Why the patient cannot give a fix (mirrors the browser's GeolocationPositionError codes), or the 30 s clock. */
export const LOCATION_UNAVAILABLE_REASONS = ["permission_denied", "position_unavailable", "timeout"] as const;
export type LocationUnavailableReason = (typeof LOCATION_UNAVAILABLE_REASONS)[number];

/** What a counselor is told when no result is coming: the patient's reason, or our PSAP lookup failed. */
export type CounselorUnavailableReason = LocationUnavailableReason | "lookup_failed";

/** Whether a session checks the patient's location when the patient first connects (docs/contract.md, section 3). */
export const LOCATION_CHECK_MODES = ["off", "at_start"] as const;
export type LocationCheckMode = (typeof LOCATION_CHECK_MODES)[number];

/** What a location request is for: the SOS under way, or the session's location check. */
export const LOCATION_REQUEST_PURPOSES = ["sos", "check"] as const;
export type LocationRequestPurpose = (typeof LOCATION_REQUEST_PURPOSES)[number];

/** How a location check ended: the patient's browser gave a fix (`located`), or why it could not. */
export type LocationCheckOutcome = "located" | LocationUnavailableReason;

/** Why a session stopped. */
export type SessionEndReason = "ended" | "expired";

/** Why a PSAP record was chosen (docs/contract.md, section 4): operator boundary, city limits, county, or distance alone. */
export const PSAP_MATCHES = ["boundary", "city", "county", "nearest"] as const;
export type PsapMatch = (typeof PSAP_MATCHES)[number];

/** What a PSAP serves: one city or town, a county, several of them, a whole state, or a special site. */
export const PSAP_JURISDICTIONS = ["municipal", "county", "regional", "state", "special"] as const;
export type PsapJurisdiction = (typeof PSAP_JURISDICTIONS)[number];

/** A primary answers 911 calls; a secondary takes calls a primary transfers (the registry's `handled_by`). */
export const PSAP_TYPES = ["primary", "secondary"] as const;
export type PsapType = (typeof PSAP_TYPES)[number];

/**
 * What a line is, by what the centre's own publication says, most urgent first (the order lines are
 * listed in): `emergency`, a 10-digit number published as an alternative to 911 that rings the 911
 * floor; `dispatch`, answered by the centre's dispatchers around the clock; `administrative`, any other
 * line (business, records, director), which may go unanswered at night.
 */
export const PHONE_KINDS = ["emergency", "dispatch", "administrative"] as const;
export type PhoneKind = (typeof PHONE_KINDS)[number];

/** Where a line comes from: the open directory shipped with the project, or the deployment's operator. */
export const LINE_ORIGINS = ["directory", "operator"] as const;
export type LineOrigin = (typeof LINE_ORIGINS)[number];

/** One published line of a centre, with where it is published and when a person last read it there. */
export interface PsapLine {
  /** E.164. */
  phone: string;
  kind: PhoneKind;
  /** What the source says the line is for (at most 80 characters). */
  label: string;
  /** Where it is published: a URL or a document's title. */
  source: string;
  /** The day (YYYY-MM-DD) a person last read it there. */
  checked_on: string;
  origin: LineOrigin;
}

/** What a PSAP's coordinates stand for. */
export const LOCATION_PRECISIONS = ["building", "city", "county"] as const;
export type LocationPrecision = (typeof LOCATION_PRECISIONS)[number];

/** Why `psaps` is empty. */
export const PSAP_EMPTY_REASONS = ["outside_coverage"] as const;
export type PsapEmptyReason = (typeof PSAP_EMPTY_REASONS)[number];

/**
 * `city`: an incorporated place (city, town, village, borough); `town`: a town or township that is a
 * county subdivision with its own government (New England, NJ, NY, PA, MI, WI, MN); `community`:
 * census-designated, unincorporated (named only where no municipality contains the fix).
 */
export const PLACE_KINDS = ["city", "town", "community"] as const;
export type PlaceKind = (typeof PLACE_KINDS)[number];

export const EMERGENCY_SERVICES = ["all", "police", "ambulance", "fire", "crisis"] as const;
export type EmergencyService = (typeof EMERGENCY_SERVICES)[number];

/** One 911 call centre, as delivered to both SDKs (docs/contract.md, section 4). */
export interface PsapRecord {
  id: string;
  name: string;
  type: PsapType;
  state: string;
  county: string | null;
  city: string | null;
  /** E.164 of the best line (emergency, else dispatch, else administrative), or null when none is on file. */
  phone: string | null;
  phone_kind: PhoneKind | null;
  /** Every line on file, best first (at most 4); [] when none. */
  lines: PsapLine[];
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

/**
 * Where the fix is, in a dispatcher's words. `country` is ISO 3166-1 alpha-2 (US territories count
 * as "US" with their own `state` code); outside the US only `country` is set; null where none applies.
 */
export interface PsapArea {
  country: string | null;
  state: string | null;
  county: string | null;
  place: string | null;
  place_kind: PlaceKind | null;
}

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

/** HTTP answer to a location submission with `unavailable`. */
export interface LocationReceivedBody {
  received: true;
}

/** HTTP answer to a location submission (for the SOS or the check): the PSAPs for a fix, or the acknowledgement. */
export type LocationAnswer = PsapResultsBody | LocationReceivedBody;

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
  /** `sos`: answer at `.../sos/location`; `check`: at `.../location-check`. */
  purpose: LocationRequestPurpose;
}

/** The patient's copy has no `location` and no `patient_address` field at all. */
export interface PsapResultsMessage extends PsapResultsBody {
  type: "psap_results";
  session_id: string;
  location?: ReportedLocation;
  patient_address?: string | null;
}

/**
 * The latest location check, as a counselor sees it: when, and how it ended; with a fix, the
 * `psap_results` fields for it (its `location` and the address on file, counselors only). Without a
 * fix, the browser's reason as `outcome` and no PSAPs.
 */
export type LocationCheck = { checked_at: string; patient_address?: string | null } & (
  | ({ outcome: "located"; location?: ReportedLocation } & PsapResultsBody)
  | { outcome: LocationUnavailableReason }
);

/** After each location check: counselors get it whole, patients without `location` and `patient_address`. */
export type LocationCheckMessage = { type: "location_check"; session_id: string } & LocationCheck;

/** Counselors only. */
export interface LocationUnavailableMessage {
  type: "location_unavailable";
  session_id: string;
  reason: CounselorUnavailableReason;
  patient_address: string | null;
  /** The latest location check (where the patient was then), or null when there is none. */
  last_check: LocationCheck | null;
}

/** Counselors only: a location URI was made for the SOS (docs/contract.md, section 10), to read out or paste into a call. */
export interface LocationUriMessage {
  type: "location_uri";
  session_id: string;
  uri: string;
  expires_at: string;
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
  | LocationCheckMessage
  | PsapResultsMessage
  | LocationUnavailableMessage
  | LocationUriMessage
  | SessionEndedMessage
  | ErrorMessage;

export type ServerMessageType = ServerMessage["type"];

/** Heartbeat: the client sends this text frame, the service answers `pong` (even while hibernated). */
export const HEARTBEAT_PING = "ping";
export const HEARTBEAT_PONG = "pong";

/** Close code sent when a session is over: clients must not reconnect after it. */
export const CLOSE_SESSION_OVER = 4000;

// ---------------------------------------------------------------------------
// HTTP bodies the SDKs and platforms read.

export interface SessionCreateRequest {
  meeting_id: string;
  counselor_id: string;
  patient_id: string;
  expires_in_minutes?: number;
  /** The address the platform has on file for this visit: shown to counselors only, erased at the end. */
  patient_address?: string;
  /** `at_start`: the patient's browser is asked for its location when the patient first connects. */
  location_check?: LocationCheckMode;
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

/**
 * `POST .../location-uri` (docs/contract.md, section 10): a URI that gives whoever holds it the patient's latest fix as
 * PIDF-LO (HELD, RFC 5985 / 6753) until the SOS ends, or `expires_at`.
 */
export interface LocationUriResponse {
  uri: string;
  expires_at: string;
}

/** `GET .../sessions/{sessionId}`: the session in any state (no location, no address). */
export interface SessionView {
  session_id: string;
  platform_id: string;
  state: SessionState;
  created_at: string;
  expires_at: string;
  sos_started_at: string | null;
  /** Set only for a session that was ended (an expired one has none). */
  ended_at: string | null;
  patient_connected: boolean;
  counselor_connected: boolean;
  location_check: LocationCheckMode;
  /** When the latest location check came (kept after the end, when the check itself is erased). */
  location_checked_at: string | null;
}

/** Every kind of event in a session's audit trail. */
export const AUDIT_EVENT_TYPES = [
  "session_created",
  "socket_connected",
  "socket_disconnected",
  "sos_triggered",
  "sos_cancelled",
  "location_requested",
  "location_received",
  "location_unavailable",
  "psaps_delivered",
  "location_checked",
  "location_uri_created",
  "location_dereferenced",
  "session_ended",
  "session_expired",
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/**
 * Who caused an event: a browser role, the platform's backend, the service itself (timers), or whoever
 * holds a location URI (a SIP server, a PSAP: `uri_holder`).
 */
export const AUDIT_ACTORS = [
  "patient",
  "counselor",
  "platform",
  "system",
  "uri_holder",
] as const satisfies readonly (Role | "platform" | "system" | "uri_holder")[];
export type AuditActor = (typeof AUDIT_ACTORS)[number];

/** Event data: identifiers, counts and reasons only. Typed so a coordinate cannot be put in by accident. */
export type AuditData = Record<string, string | number | boolean | null | string[]>;

export interface AuditEvent {
  seq: number;
  type: AuditEventType;
  at: string;
  actor: AuditActor;
  data?: AuditData;
}

/** `GET .../events`: a page of the audit trail. */
export interface AuditEventsPage {
  events: AuditEvent[];
  /** The last `seq` returned, or null when no more events follow. */
  next_after: number | null;
}

/** Every `code` a problem answer of the service carries (docs/contract.md, section 7). */
export const PROBLEM_CODES = [
  "invalid_json",
  "invalid_request",
  "unknown_field",
  "missing_credentials",
  "invalid_api_key",
  "invalid_token",
  "invalid_admin_token",
  "forbidden",
  "not_found",
  "method_not_allowed",
  "not_in_sos",
  "location_check_off",
  "location_uri_limit",
  "idempotency_key_in_use",
  "session_ended",
  "session_expired",
  "payload_too_large",
  "unsupported_media_type",
  "idempotency_key_reused",
  "upgrade_required",
  "rate_limited",
  "internal_error",
  "psap_lookup_failed",
  "psap_index_unavailable",
] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];

/** RFC 9457 problem details, as every error answer carries. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  errors?: { field: string; message: string }[];
}

/** Claims of a session token (docs/contract.md, section 1). */
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

// ---------------------------------------------------------------------------
// Location by reference (docs/contract.md, section 10): what a dereference of a location URI answered.

/**
 * HELD's error codes this service answers with (RFC 5985 section 4.3): `locationUnknown` before the SOS
 * has a fix, `cannotProvideLiType` for an exact request of a kind other than geodetic, `xmlError` and
 * `unsupportedMessage` for a body that is no locationRequest.
 */
export const HELD_ERROR_CODES = [
  "locationUnknown",
  "cannotProvideLiType",
  "xmlError",
  "unsupportedMessage",
] as const;
export type HeldErrorCode = (typeof HELD_ERROR_CODES)[number];

/** A dereference's answer, as the audit trail and webhooks tell it: the fix (`location`) or the HELD error. */
export const HELD_RESPONSE_KINDS = ["location", ...HELD_ERROR_CODES] as const;
export type HeldResponseKind = (typeof HELD_RESPONSE_KINDS)[number];

// ---------------------------------------------------------------------------
// Webhooks: what the service POSTs to a platform's webhook, and what the platform can list of it.
// Built from identifiers, times, reasons and PSAP names only: a coordinate or the address on file has no field here.

export const WEBHOOK_EVENT_TYPES = [
  "session.created",
  "session.sos_triggered",
  "session.sos_cancelled",
  "session.location_unavailable",
  "session.psaps_delivered",
  "session.location_checked",
  "session.location_dereferenced",
  "session.ended",
  "session.expired",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A PSAP as a webhook names it: who to call, nothing about where it or the patient is. */
export interface WebhookPsap {
  id: string;
  name: string;
  phone: string | null;
}

/** The `data` of each type. */
export interface WebhookEventData {
  "session.created": { meeting_id: string; expires_at: string };
  "session.sos_triggered": { sos_started_at: string; repeat: boolean };
  "session.sos_cancelled": { expires_at: string };
  "session.location_unavailable": { reason: CounselorUnavailableReason };
  "session.psaps_delivered": {
    result_id: string;
    psaps: WebhookPsap[];
    area: PsapArea;
    data_version: string;
    reason: PsapEmptyReason | null;
  };
  /** Where the check found the patient: the country and state only. */
  "session.location_checked": { outcome: LocationCheckOutcome; country: string | null; state: string | null };
  /** Which URI was read and what it answered: never where the patient is. */
  "session.location_dereferenced": { uri_id: string; response: HeldResponseKind };
  "session.ended": { ended_at: string };
  "session.expired": { expired_at: string };
}

/** One event as the platform receives it (the request body). */
export type WebhookEvent = {
  [T in WebhookEventType]: {
    /** The same on every retry. */
    id: string;
    type: T;
    created_at: string;
    platform_id: string;
    session_id: string;
    data: WebhookEventData[T];
  };
}[WebhookEventType];

/** Where a delivery stands in `GET .../webhook/deliveries`. */
export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

// ---------------------------------------------------------------------------
// Admin API vocabulary (operators).

/** What a change to a PSAP's contact number did. */
export const CONTACT_ACTIONS = ["set", "deleted"] as const;
export type ContactAction = (typeof CONTACT_ACTIONS)[number];
