// The session's story told once: each fact becomes its audit event and its webhook event from one table,
// the webhook events are what the OpenAPI document promises, and neither ever holds a position. The
// object's one alarm is written only when it must move earlier.
import { describe, expect, it } from "vitest";
import {
  AUDIT_EVENT_TYPES,
  type PsapResultsBody,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from "../../sdk/src/protocol.ts";
import { WebhookEvent } from "../../src/http/schemas-webhooks.ts";
import { EarliestAlarm } from "../../src/session/alarm.ts";
import { eventsOf, SESSION_FACTS, type SessionFact } from "../../src/session/facts.ts";
import { newRecord, type SessionRecord } from "../../src/session/record.ts";
import { transition } from "../../src/session/transitions.ts";

const T0 = Date.UTC(2026, 10, 24, 12);
const RESULT: PsapResultsBody = {
  result_id: "6f1c1c5e-8d1c-4c59-9d43-1b7c8a3f7a11",
  psaps: [
    {
      id: "8927",
      name: "Southland Dispatch Center",
      type: "primary",
      state: "IL",
      county: "Cook",
      city: "Homewood",
      phone: "+17085551234",
      phone_kind: "emergency",
      lines: [],
      jurisdiction: "regional",
      handled_by: null,
      latitude: 41.55,
      longitude: -87.66,
      location_precision: "building",
      distance_km: 3.2,
      match: "city",
    },
  ],
  area: { country: "US", state: "IL", county: "Cook", place: "Homewood", place_kind: "city" },
  emergency: { country: "US", numbers: [{ number: "911", service: "all" }] },
  computed_at: new Date(T0).toISOString(),
  data_version: "v1",
};

/** A session in SOS with a fix, a location check and the address on file: everything a fact could leak. */
function sos(): SessionRecord {
  const created = newRecord({
    session_id: "0b9e8c1a-4f2d-4e3b-9a6c-7d8e9f0a1b2c",
    platform_id: "plt_x",
    meeting_id: "room-1",
    counselor_id: "c",
    patient_id: "p",
    patient_address: "1200 W Harrison St, Chicago, IL 60607",
    location_check: "at_start",
    created_at: T0,
    expires_at: T0 + 3_600_000,
  });
  const checked = transition(created, {
    type: "checked",
    at: T0 + 500,
    check: {
      at: T0 + 500,
      outcome: "located",
      location: { latitude: 41.8712, longitude: -87.6499, accuracy: 8.4 },
      result: RESULT,
    },
  });
  const triggered = checked && transition(checked, { type: "trigger", at: T0 + 1_000 });
  const located =
    triggered &&
    transition(triggered, {
      type: "located",
      at: T0 + 2_000,
      location: { latitude: 41.8781, longitude: -87.6298, accuracy: 12.6 },
      result: RESULT,
    });
  if (!located) throw new Error("setup failed");
  return located;
}

/** One fact of each type. */
const FACTS: SessionFact[] = [
  { type: "session_created", by: "platform", at: T0 },
  { type: "sos_triggered", by: "counselor", at: T0 + 1_000, repeat: false },
  { type: "sos_cancelled", by: "counselor", at: T0 + 1_500 },
  { type: "location_requested", by: "system", at: T0 + 1_000, on: 2, purpose: "sos" },
  { type: "location_requested", by: "system", at: T0 + 1_000, on: "new_socket", purpose: "check" },
  { type: "location_checked", by: "patient", at: T0 + 500, outcome: "located", area: RESULT.area },
  { type: "location_checked", by: "patient", at: T0 + 500, outcome: "permission_denied", area: null },
  { type: "location_received", by: "patient", at: T0 + 2_000, accuracy: 12.6 },
  { type: "location_unavailable", by: "system", at: T0 + 31_000, reason: "timeout" },
  { type: "psaps_delivered", by: "system", at: T0 + 2_000, result: RESULT, late: true },
  {
    type: "location_uri_created",
    by: "counselor",
    at: T0 + 2_500,
    uriId: "luri_AAAAAAAAAAAAAAAAAAAAAA",
    expiresAt: T0 + 3_602_500,
  },
  {
    type: "location_dereferenced",
    by: "uri_holder",
    at: T0 + 3_000,
    uriId: "luri_AAAAAAAAAAAAAAAAAAAAAA",
    response: "location",
    method: "POST",
  },
  { type: "session_ended", by: "platform", at: T0 + 60_000 },
  { type: "session_expired", by: "system", at: T0 + 60_000 },
];

describe("the session facts", () => {
  it("tells every fact once: each audit event type but the sockets' own, and every webhook event type", () => {
    const told = FACTS.map((fact) => eventsOf(fact, sos()));
    const audited = new Set(told.map((events) => events.audit.type));
    const socketBookkeeping = ["socket_connected", "socket_disconnected"];
    expect([...audited].sort()).toEqual(
      AUDIT_EVENT_TYPES.filter((t) => !socketBookkeeping.includes(t)).sort(),
    );
    const pushed = told.flatMap((events) => (events.webhook ? [events.webhook.type] : []));
    expect(new Set(pushed)).toEqual(new Set<WebhookEventType>(WEBHOOK_EVENT_TYPES));
    expect(Object.keys(SESSION_FACTS).sort()).toEqual([...new Set(FACTS.map((fact) => fact.type))].sort());
  });

  it("sends webhook events exactly as the OpenAPI document describes them", () => {
    for (const fact of FACTS) {
      const webhook = eventsOf(fact, sos()).webhook;
      if (!webhook) continue;
      const event = {
        id: "evt_3f1c9a0e5b7d4c2a9e8f7a6b5c4d3e2f",
        type: webhook.type,
        created_at: new Date(webhook.at).toISOString(),
        platform_id: "plt_x",
        session_id: "0b9e8c1a-4f2d-4e3b-9a6c-7d8e9f0a1b2c",
        data: webhook.data,
      };
      const parsed = WebhookEvent.safeParse(event);
      expect(parsed.success, `${fact.type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      // Nothing beyond the document: the parse keeps only described fields, and they are all there is.
      expect(parsed.data).toEqual(event);
    }
  });

  it("never puts a coordinate or the address on file in an audit or a webhook event", () => {
    const record = sos();
    for (const fact of FACTS) {
      const { audit, webhook } = eventsOf(fact, record);
      const text = JSON.stringify({ audit, webhook });
      for (const secret of ["41.87", "-87.62", "-87.64", "Harrison", "latitude", "longitude", "address"]) {
        expect(text, fact.type).not.toContain(secret);
      }
    }
  });

  it("writes what the moment of the fact knows and what the session says after it", () => {
    const record = sos();
    const triggered = eventsOf(
      { type: "sos_triggered", by: "counselor", at: T0 + 5_000, repeat: true },
      record,
    );
    expect(triggered.audit).toEqual({ type: "sos_triggered", data: { repeat: true } });
    expect(triggered.webhook?.data).toEqual({
      sos_started_at: new Date(T0 + 1_000).toISOString(),
      repeat: true,
    });
    const delivered = eventsOf(
      { type: "psaps_delivered", by: "system", at: T0, result: RESULT, late: false },
      record,
    );
    expect(delivered.audit.data).toEqual({
      result_id: RESULT.result_id,
      psap_ids: ["8927"],
      data_version: "v1",
    });
    const received = eventsOf(
      { type: "location_received", by: "patient", at: T0, accuracy: undefined },
      record,
    );
    expect(received.audit.data).toEqual({ accuracy_m: null });
  });

  it("tells of a location check its outcome, country and state only, nearer than that nothing", () => {
    const record = sos();
    const located = eventsOf(
      { type: "location_checked", by: "patient", at: T0 + 500, outcome: "located", area: RESULT.area },
      record,
    );
    expect(located.audit).toEqual({
      type: "location_checked",
      data: { outcome: "located", country: "US", state: "IL" },
    });
    expect(located.webhook).toEqual({
      type: "session.location_checked",
      at: T0 + 500,
      data: { outcome: "located", country: "US", state: "IL" },
    });
    const refused = eventsOf(
      { type: "location_checked", by: "patient", at: T0 + 500, outcome: "timeout", area: null },
      record,
    );
    expect(refused.audit.data).toEqual({ outcome: "timeout", country: null, state: null });
    expect(refused.webhook?.data).toEqual({ outcome: "timeout", country: null, state: null });
    const requested = eventsOf(
      { type: "location_requested", by: "system", at: T0, on: "new_socket", purpose: "check" },
      record,
    );
    expect(requested.audit.data).toEqual({ on_connect: true, purpose: "check" });
  });
});

describe("the object's one alarm", () => {
  function storage(stored: number | null = null) {
    const writes: (number | "deleted")[] = [];
    return {
      writes,
      getAlarm: async () => stored,
      setAlarm: async (at: number | Date) => {
        writes.push(Number(at));
      },
      deleteAlarm: async () => {
        writes.push("deleted");
      },
    };
  }

  it("is written at once when it must move earlier, and only then", async () => {
    const store = storage(T0 + 30_000);
    const alarm = new EarliestAlarm(store);
    await alarm.load();
    alarm.want(T0 + 40_000, null);
    alarm.want(T0 + 30_000);
    expect(store.writes).toEqual([]);
    alarm.want(T0 + 60_000, T0 + 10_000);
    expect(store.writes).toEqual([T0 + 10_000]);
  });

  it("is set again after it fired, and cleared when the session is forgotten", async () => {
    const store = storage();
    const alarm = new EarliestAlarm(store);
    await alarm.load();
    alarm.want(null, null);
    expect(store.writes).toEqual([]);
    alarm.want(T0);
    alarm.fired();
    alarm.want(T0 + 1_000);
    alarm.clear();
    expect(store.writes).toEqual([T0, T0 + 1_000, "deleted"]);
  });
});
