// Zod schemas of the platform, session and SOS bodies: they validate requests and produce the OpenAPI
// document. Every enum is a list of the protocol's; every response is checked against the type its
// readers use (`satisfies`), so the document cannot drift from the SDKs.
import { z } from "@hono/zod-openapi";
import { AUDIT_LIMITS, HTTP_LIMITS, SESSION_LIMITS } from "../../lib/config.ts";
import {
  AUDIT_ACTORS,
  AUDIT_EVENT_TYPES,
  type AuditEventsPage,
  LOCATION_CHECK_MODES,
  LOCATION_UNAVAILABLE_REASONS,
  type LocationFix,
  type LocationReceivedBody,
  type LocationUnavailableReport,
  PROBLEM_CODES,
  type ProblemDetails,
  PSAP_EMPTY_REASONS,
  type PsapResultsBody,
  SESSION_STATES,
  type SessionCreateRequest,
  type SessionCreateResponse,
  type SessionEndResponse,
  type SessionView,
  type SosCancelResponse as SosCancelBody,
  type SosTriggerResponse as SosTriggerBody,
} from "../../sdk/src/protocol.ts";
import type { Jwks } from "../auth/jwks.ts";
import type { CreatedApiKey, CreatedPlatform } from "../auth/platforms.ts";
import { isoTimestamp, queryInteger } from "./schema-parts.ts";
import { EmergencyNumbers, PsapArea, PsapRecordSchema } from "./schemas-psaps.ts";

const nullableTimestamp = isoTimestamp.nullable();

const platformIdentifier = (name: string) =>
  z
    .string()
    .min(1, `${name} must not be empty`)
    .max(SESSION_LIMITS.maxIdLength, `${name} must be at most ${SESSION_LIMITS.maxIdLength} characters`);

// ---------------------------------------------------------------------------
// Requests

export const CreatePlatformRequest = z
  .strictObject({
    name: z.string().min(1).max(HTTP_LIMITS.maxPlatformNameLength).openapi({ example: "Acme Telehealth" }),
  })
  .openapi("CreatePlatformRequest");

export const CreateSessionRequest = z
  .strictObject({
    meeting_id: platformIdentifier("meeting_id").openapi({ example: "room-4711" }),
    counselor_id: platformIdentifier("counselor_id").openapi({ example: "counselor-12" }),
    patient_id: platformIdentifier("patient_id").openapi({ example: "patient-345" }),
    expires_in_minutes: z
      .number()
      .int("expires_in_minutes must be a whole number")
      .min(SESSION_LIMITS.minExpiresInMinutes)
      .max(SESSION_LIMITS.maxExpiresInMinutes)
      .optional()
      .openapi({ default: SESSION_LIMITS.defaultExpiresInMinutes }),
    patient_address: z
      .string()
      .min(1, "patient_address must not be empty")
      .max(
        SESSION_LIMITS.maxPatientAddressLength,
        `patient_address must be at most ${SESSION_LIMITS.maxPatientAddressLength} characters`,
      )
      .optional()
      .openapi({
        description:
          "The address on file for this visit: shown to counselors only, never to the patient, erased when the session ends",
        example: "1200 W Harrison St, Chicago, IL 60607",
      }),
    location_check: z.enum(LOCATION_CHECK_MODES).optional().openapi({
      default: "off",
      description:
        "at_start: the patient's browser is asked for its location when the patient first connects, so the counselor sees where the patient is and whom to call before anything happens (POST .../location-check)",
    }),
  })
  .openapi("CreateSessionRequest") satisfies z.ZodType<SessionCreateRequest>;

/** `GET .../events?after=&limit=`. */
export const EventsQuery = z.object({
  after: queryInteger("after", 0, Number.MAX_SAFE_INTEGER)
    .optional()
    .transform((value) => value ?? 0)
    .openapi({
      param: { name: "after", in: "query" },
      description: "return events after this seq",
      example: "0",
    }),
  limit: queryInteger("limit", 1, AUDIT_LIMITS.maxPageSize)
    .optional()
    .transform((value) => value ?? AUDIT_LIMITS.defaultPageSize)
    .openapi({
      param: { name: "limit", in: "query" },
      description: `events per page (default ${AUDIT_LIMITS.defaultPageSize}, at most ${AUDIT_LIMITS.maxPageSize})`,
      example: "100",
    }),
});

/** The body of the SOS trigger and cancel, and of every route that takes none: nothing, or `{}`. */
export const EmptyRequest = z.strictObject({}).openapi("EmptyRequest");

export const LocationFixRequest = z
  .strictObject({
    latitude: z.number().min(-90).max(90).openapi({ example: 41.8781 }),
    longitude: z.number().min(-180).max(180).openapi({ example: -87.6298 }),
    accuracy: z.number().min(0).max(100_000).optional().openapi({ description: "metres (coords.accuracy)" }),
    timestamp: z.number().min(0).optional().openapi({ description: "epoch milliseconds of the fix" }),
  })
  .openapi("LocationFix") satisfies z.ZodType<LocationFix>;

export const LocationUnavailableRequest = z
  .strictObject({ unavailable: z.enum(LOCATION_UNAVAILABLE_REASONS) })
  .openapi("LocationUnavailable") satisfies z.ZodType<LocationUnavailableReport>;

export const LocationSubmissionRequest = z
  .union([LocationFixRequest, LocationUnavailableRequest])
  .openapi("LocationSubmission");

// ---------------------------------------------------------------------------
// Responses

export const ProblemResponse = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(PROBLEM_CODES),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .openapi("Problem") satisfies z.ZodType<ProblemDetails>;

export const CreatePlatformResponse = z
  .object({
    platform_id: z.string(),
    name: z.string(),
    api_key: z.string(),
    api_key_id: z.string(),
    created_at: isoTimestamp,
  })
  .openapi("Platform") satisfies z.ZodType<CreatedPlatform>;

export const CreateApiKeyResponse = z
  .object({ api_key: z.string(), api_key_id: z.string(), created_at: isoTimestamp })
  .openapi("ApiKey") satisfies z.ZodType<CreatedApiKey>;

export const CreateSessionResponse = z
  .object({
    session_id: z.uuid(),
    platform_id: z.string(),
    state: z.literal("active"),
    patient_token: z.string(),
    counselor_token: z.string(),
    expires_at: isoTimestamp,
    created_at: isoTimestamp,
  })
  .openapi("CreatedSession") satisfies z.ZodType<SessionCreateResponse>;

export const SessionViewResponse = z
  .object({
    session_id: z.uuid(),
    platform_id: z.string(),
    state: z.enum(SESSION_STATES),
    created_at: isoTimestamp,
    expires_at: isoTimestamp,
    sos_started_at: nullableTimestamp,
    ended_at: nullableTimestamp,
    patient_connected: z.boolean(),
    counselor_connected: z.boolean(),
    location_check: z.enum(LOCATION_CHECK_MODES),
    location_checked_at: nullableTimestamp.openapi({
      description: "when the latest location check came (kept after the end; the check itself is erased)",
    }),
  })
  .openapi("Session") satisfies z.ZodType<SessionView>;

export const EndSessionResponse = z
  .object({ session_id: z.uuid(), state: z.literal("ended"), ended_at: isoTimestamp })
  .openapi("EndedSession") satisfies z.ZodType<SessionEndResponse>;

export const AuditEventsResponse = z
  .object({
    events: z.array(
      z.object({
        seq: z.number().int(),
        type: z.enum(AUDIT_EVENT_TYPES),
        at: isoTimestamp,
        actor: z.enum(AUDIT_ACTORS),
        data: z
          .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]))
          .optional()
          .openapi({ description: "identifiers, counts and reasons: never a coordinate or the address" }),
      }),
    ),
    next_after: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "pass as ?after= for the next page; null when no more events follow" }),
  })
  .openapi("AuditEvents") satisfies z.ZodType<AuditEventsPage>;

export const SosTriggerResponse = z
  .object({
    session_id: z.uuid(),
    state: z.literal("sos"),
    sos_started_at: isoTimestamp,
    patient_connected: z.boolean(),
  })
  .openapi("SosTriggered") satisfies z.ZodType<SosTriggerBody>;

export const SosCancelResponse = z
  .object({ session_id: z.uuid(), state: z.literal("active"), expires_at: isoTimestamp })
  .openapi("SosCancelled") satisfies z.ZodType<SosCancelBody>;

export const PsapResultsResponse = z
  .object({
    result_id: z.uuid(),
    psaps: z.array(PsapRecordSchema),
    area: PsapArea,
    emergency: EmergencyNumbers,
    computed_at: isoTimestamp,
    data_version: z.string(),
    reason: z.enum(PSAP_EMPTY_REASONS).optional(),
  })
  .openapi("PsapResults") satisfies z.ZodType<PsapResultsBody>;

export const LocationReceivedResponse = z
  .object({ received: z.literal(true) })
  .openapi("LocationReceived") satisfies z.ZodType<LocationReceivedBody>;

export const JwksResponse = z
  .object({
    keys: z.array(
      z.object({
        kty: z.literal("OKP"),
        crv: z.literal("Ed25519"),
        x: z.string(),
        kid: z.string(),
        alg: z.literal("EdDSA"),
        use: z.literal("sig"),
      }),
    ),
  })
  .openapi("JsonWebKeySet") satisfies z.ZodType<Jwks>;
