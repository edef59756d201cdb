// The session's story, told once: every fact of it, and what each fact becomes, an event of the audit
// trail (which the platform reads, GET .../events) and, for most, a webhook event (which it is sent).
// The session object applies a transition and emits the fact; this table writes both events from it,
// so the two vocabularies cannot drift apart. Socket bookkeeping (socket_connected, socket_disconnected)
// is the socket hub's own.
//
// Built from identifiers, times, counts and reasons only: no fact carries a coordinate or the address on
// file (and the audit log refuses such keys as a last line of defence).
import type {
  AuditActor,
  AuditData,
  AuditEventType,
  CounselorUnavailableReason,
  HeldResponseKind,
  LocationCheckOutcome,
  LocationRequestPurpose,
  PsapArea,
  PsapResultsBody,
  WebhookEventData,
  WebhookEventType,
} from "../../sdk/src/protocol.ts";
import type { WebhookEventDraft } from "../webhooks/events.ts";
import { endedAt, iso, type SessionRecord } from "./record.ts";

/** One fact: what happened (`type`), when, and who caused it, with what only the moment knows. */
export type SessionFact = { at: number; by: AuditActor } & (
  | { type: "session_created" }
  /** `repeat`: the SOS was under way already, and the patient is asked for a fresh fix. */
  | { type: "sos_triggered"; repeat: boolean }
  | { type: "sos_cancelled" }
  /**
   * The patient's browser was asked for its fix, for the SOS or for the location check: on this many
   * sockets, or on the one that just connected.
   */
  | { type: "location_requested"; on: number | "new_socket"; purpose: LocationRequestPurpose }
  /** A fix came (metres of accuracy, as the browser gave them). */
  | { type: "location_received"; accuracy: number | undefined }
  | { type: "location_unavailable"; reason: CounselorUnavailableReason }
  /** `late`: the lookup had been reported failed (timed out), then answered after all. */
  | { type: "psaps_delivered"; result: PsapResultsBody; late: boolean }
  /** A location check came: how it ended, and with a fix, its area (of which only country and state are told). */
  | { type: "location_checked"; outcome: LocationCheckOutcome; area: PsapArea | null }
  /** A location URI was made for the SOS (docs/contract.md, section 10): its id and expiry, never the URI itself. */
  | { type: "location_uri_created"; uriId: string; expiresAt: number }
  /** A location URI was read: what it answered (the fix, or which HELD error), never where the patient is. */
  | { type: "location_dereferenced"; uriId: string; response: HeldResponseKind; method: "GET" | "POST" }
  | { type: "session_ended" }
  | { type: "session_expired" }
);

export type SessionFactType = SessionFact["type"];

type FactOf<T extends SessionFactType> = Extract<SessionFact, { type: T }>;

/** What a fact becomes, given the fact and the session as it stands after the fact's transition. */
interface FactEvents<F extends SessionFact> {
  audit: AuditEventType;
  /** The audit event's data (none when left out). */
  auditData?(fact: F, record: SessionRecord): AuditData;
  /** The webhook event (none when left out): its type and its data. */
  webhook?: WebhookRow<F>;
}

type WebhookRow<F extends SessionFact> = {
  [W in WebhookEventType]: { type: W; data(fact: F, record: SessionRecord): WebhookEventData[W] };
}[WebhookEventType];

/** The table: each fact, its audit event and its webhook event. */
export const SESSION_FACTS: { [T in SessionFactType]: FactEvents<FactOf<T>> } = {
  session_created: {
    audit: "session_created",
    auditData: (_, r) => ({ meeting_id: r.meeting_id, expires_at: iso(r.expires_at) }),
    webhook: {
      type: "session.created",
      data: (_, r) => ({ meeting_id: r.meeting_id, expires_at: iso(r.expires_at) }),
    },
  },
  sos_triggered: {
    audit: "sos_triggered",
    auditData: (f) => ({ repeat: f.repeat }),
    webhook: {
      type: "session.sos_triggered",
      data: (f, r) => ({ sos_started_at: iso(r.sos_started_at ?? f.at), repeat: f.repeat }),
    },
  },
  sos_cancelled: {
    audit: "sos_cancelled",
    webhook: { type: "session.sos_cancelled", data: (_, r) => ({ expires_at: iso(r.expires_at) }) },
  },
  location_requested: {
    audit: "location_requested",
    auditData: (f): AuditData =>
      f.on === "new_socket"
        ? { on_connect: true, purpose: f.purpose }
        : { sockets: f.on, purpose: f.purpose },
  },
  location_received: {
    audit: "location_received",
    // Whole metres: how good the fix was, never where it is.
    auditData: (f) => ({ accuracy_m: f.accuracy === undefined ? null : Math.round(f.accuracy) }),
  },
  location_unavailable: {
    audit: "location_unavailable",
    auditData: (f) => ({ reason: f.reason }),
    webhook: { type: "session.location_unavailable", data: (f) => ({ reason: f.reason }) },
  },
  psaps_delivered: {
    audit: "psaps_delivered",
    auditData: ({ result, late }) => ({
      result_id: result.result_id,
      psap_ids: result.psaps.map((psap) => psap.id),
      data_version: result.data_version,
      ...(late ? { after_lookup_failed: true } : {}),
    }),
    webhook: { type: "session.psaps_delivered", data: (f) => psapsDeliveredData(f.result) },
  },
  location_checked: {
    audit: "location_checked",
    auditData: (f) => locationCheckedData(f),
    webhook: { type: "session.location_checked", data: (f) => locationCheckedData(f) },
  },
  location_uri_created: {
    audit: "location_uri_created",
    auditData: (f) => ({ uri_id: f.uriId, expires_at: iso(f.expiresAt) }),
  },
  location_dereferenced: {
    audit: "location_dereferenced",
    auditData: (f) => ({ uri_id: f.uriId, response: f.response, method: f.method }),
    webhook: {
      type: "session.location_dereferenced",
      data: (f) => ({ uri_id: f.uriId, response: f.response }),
    },
  },
  session_ended: {
    audit: "session_ended",
    webhook: { type: "session.ended", data: (f, r) => ({ ended_at: iso(endedAt(r) ?? f.at) }) },
  },
  session_expired: {
    audit: "session_expired",
    webhook: { type: "session.expired", data: (f) => ({ expired_at: iso(f.at) }) },
  },
};

/** The events `fact` becomes: the audit event, and the webhook event (or null). */
export function eventsOf(
  fact: SessionFact,
  record: SessionRecord,
): { audit: { type: AuditEventType; data: AuditData | undefined }; webhook: WebhookEventDraft | null } {
  // The table's row for this fact's type (TypeScript cannot pair a union's member with its row itself).
  const row = SESSION_FACTS[fact.type] as FactEvents<SessionFact>;
  const webhook = row.webhook
    ? ({ type: row.webhook.type, at: fact.at, data: row.webhook.data(fact, record) } as WebhookEventDraft)
    : null;
  return { audit: { type: row.audit, data: row.auditData?.(fact, record) }, webhook };
}

/** A check as the trail and the platform hear of it: the outcome, the country and the state, never nearer. */
function locationCheckedData(fact: FactOf<"location_checked">): WebhookEventData["session.location_checked"] {
  return { outcome: fact.outcome, country: fact.area?.country ?? null, state: fact.area?.state ?? null };
}

/** The `session.psaps_delivered` data of a lookup result: ids, names and numbers, the area in words. */
export function psapsDeliveredData(result: PsapResultsBody): WebhookEventData["session.psaps_delivered"] {
  return {
    result_id: result.result_id,
    psaps: result.psaps.map((psap) => ({ id: psap.id, name: psap.name, phone: psap.phone })),
    area: {
      country: result.area.country,
      state: result.area.state,
      county: result.area.county,
      place: result.area.place,
      place_kind: result.area.place_kind,
    },
    data_version: result.data_version,
    reason: result.reason ?? null,
  };
}
