// One Durable Object per session: its state machine, sockets, deadlines, rate limits and audit trail.
//
// Durability without waiting: every change is written with synchronous storage calls (the record in
// `storage.kv`, the trail in SQL) that commit together, and the runtime's output gate holds every
// answer and socket message until that write is confirmed. So nothing on the SOS path awaits storage,
// and nothing anyone hears can be lost by a crash. The only await on that path is the PSAP lookup.
// Webhook events go the same way: into an outbox in the same commit, then to the queue in the background.
//
// Each change reads the same way: apply the transition (transitions.ts), emit the fact (facts.ts: its
// audit event and its webhook event), tell the sockets (messages.ts).

import { DurableObject } from "cloudflare:workers";
import type {
  AuditEventsPage,
  CounselorUnavailableReason,
  LocationAnswer,
  LocationSubmission,
  SessionEndResponse,
  SessionView,
  SosCancelResponse,
  SosTriggerResponse,
} from "../../sdk/src/protocol.ts";
import { d1Contacts } from "../contacts/store.ts";
import type { Env } from "../env.ts";
import { type DereferenceCall, LocationUris, type MintCall } from "../held/location-uris.ts";
import {
  type Checked,
  failure,
  type Outcome,
  problem,
  problemResponse,
  setProblemTypeBase,
  success,
} from "../problem.ts";
import { WebhookOutbox } from "../webhooks/outbox.ts";
import { EarliestAlarm } from "./alarm.ts";
import { AuditLog, type AuditPageQuery } from "./audit-log.ts";
import { SessionBroadcasts } from "./broadcasts.ts";
import { callerOf, type SessionCaller } from "./caller.ts";
import { dueDeadlines, nextAlarmAt } from "./deadlines.ts";
import { eventsOf, type SessionFact } from "./facts.ts";
import { FixDelivery } from "./fix-delivery.ts";
import { BrowserGate } from "./gate.ts";
import { locationCheckOff, noSuchSession, notInSos, sessionOver } from "./problems.ts";
import {
  checksLocation,
  type NewSessionInput,
  newRecord,
  type SessionRecord,
  type StoredCheck,
  sessionEndView,
  sessionView,
  sosCancelView,
  sosTriggerView,
} from "./record.ts";
import { LookupTurns, lookupForSession } from "./session-lookup.ts";
import { SocketHub } from "./sockets.ts";
import { type SessionEvent, startsSos, transition } from "./transitions.ts";

const RECORD_KEY = "session";

export class SessionObject extends DurableObject<Env> {
  #record: SessionRecord | null;
  readonly #alarm: EarliestAlarm;
  readonly #audit: AuditLog;
  readonly #sockets: SocketHub;
  /** What the sockets hear of each change. */
  readonly #tell: SessionBroadcasts;
  readonly #webhooks: WebhookOutbox;
  /** 410, 429 and the body's problem, in that order, for every browser call. */
  readonly #gate = new BrowserGate();
  readonly #lookups = new LookupTurns();
  readonly #fixes = new FixDelivery({
    lookups: this.#lookups,
    gate: this.#gate,
    record: (now) => this.#runDueDeadlines(now),
    apply: (event, beforeStoring) => this.#apply(event, beforeStoring),
    emit: (fact) => this.#emit(fact),
    tell: () => this.#tell,
    noLocation: (record, reason, by, at) => this.#noLocation(record, reason, by, at),
    lookup: (location) =>
      lookupForSession(this.env.PSAP_INDEX, location, { contacts: d1Contacts(this.env.DB) }),
    waitUntil: (promise) => this.ctx.waitUntil(promise),
  });
  readonly #uris = new LocationUris(this.ctx.storage.kv, this.#gate, {
    record: (now) => this.#runDueDeadlines(now),
    emit: (fact) => this.#emit(fact),
    toCounselors: (message) => this.#sockets.broadcast("counselor", message),
  });

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    setProblemTypeBase(env.PROBLEM_TYPE_BASE);
    this.#alarm = new EarliestAlarm(ctx.storage);
    this.#audit = new AuditLog(ctx.storage.sql);
    this.#sockets = new SocketHub(ctx, this.#audit);
    this.#tell = new SessionBroadcasts(this.#sockets);
    this.#webhooks = new WebhookOutbox(
      ctx,
      { queue: () => this.env.WEBHOOK_QUEUE, webhooks: () => this.env.DB },
      () => this.#syncAlarm(),
    );
    this.#record = ctx.storage.kv.get<SessionRecord>(RECORD_KEY) ?? null;
    // On every wake: the trail never shows a socket connected that is gone.
    if (this.#record) this.#sockets.reconcile(Date.now());
    // Events a failed send (or an eviction mid-send) left behind go out now.
    if (this.#webhooks.hasPending()) this.#webhooks.flush();
    ctx.blockConcurrencyWhile(() => this.#alarm.load());
  }

  // -------------------------------------------------------------------------
  // Platform (API key) methods

  async create(input: NewSessionInput): Promise<Outcome<SessionView>> {
    if (this.#record) return failure(problem("internal_error", "Session id collision; retry the request."));
    const record = newRecord(input);
    this.#store(record);
    this.#emit({ type: "session_created", by: "platform", at: input.created_at });
    return success(sessionView(record, this.#sockets.connected()), 201);
  }

  async read(platformId: string): Promise<Outcome<SessionView>> {
    const record = this.#platformRecord(platformId);
    return record ? success(sessionView(record, this.#sockets.connected())) : failure(noSuchSession());
  }

  async events(platformId: string, page: Checked<AuditPageQuery>): Promise<Outcome<AuditEventsPage>> {
    if (!this.#platformRecord(platformId)) return failure(noSuchSession());
    if (!page.ok) return failure(page.problem);
    return success(this.#audit.page(page.value.after, page.value.limit));
  }

  async end(platformId: string, body: Checked<unknown>): Promise<Outcome<SessionEndResponse>> {
    const now = Date.now();
    const record = this.#platformRecord(platformId, now);
    if (!record) return failure(noSuchSession());
    if (record.state === "expired") return failure(sessionOver(record.state));
    if (!body.ok) return failure(body.problem);
    const ended = this.#apply({ type: "end", at: now });
    // Ending an ended session answers the same again, and records nothing.
    if (ended && ended !== record) {
      this.#emit({ type: "session_ended", by: "platform", at: now });
      this.#tell.over(ended, "ended");
    }
    return success(sessionEndView(ended ?? record, now));
  }

  // -------------------------------------------------------------------------
  // Browser (token) methods: each passes the gate first, so each is rate limited unless exempt.

  async trigger(caller: SessionCaller, body: Checked<unknown>): Promise<Outcome<SosTriggerResponse>> {
    const now = Date.now();
    // The trigger that starts an SOS is never refused for rate; repeats are.
    const admitted = this.#gate.admit(this.#runDueDeadlines(now), caller, body, now, startsSos);
    if (!admitted.ok) return admitted;
    const starts = startsSos(admitted.record);
    // The messages go before the write, which would hold them until stored: the patient's browser is
    // asked for its fix at once. Should the write fail, the trigger fails and is retried. The request
    // is the patient socket's first message: a socket writes one message per turn, and locally the
    // commit (with its disk sync) runs between the first and the second, so a session_state sent first
    // held the request back by that sync (about 2 ms, traced). The SDK needs no order between the two.
    let asked = 0;
    const record = this.#apply({ type: "trigger", at: now }, (next) => {
      asked = this.#tell.locationRequest(next, now);
      if (starts) this.#tell.state(next);
    });
    if (!record) return failure(notInSos("This session cannot start an SOS."));
    this.#emit({ type: "sos_triggered", by: caller.role, at: now, repeat: !starts });
    if (asked > 0)
      this.#emit({ type: "location_requested", by: "system", at: now, on: asked, purpose: "sos" });
    return success(sosTriggerView(record, now, this.#sockets.isConnected("patient")), starts ? 202 : 200);
  }

  async cancel(caller: SessionCaller, body: Checked<unknown>): Promise<Outcome<SosCancelResponse>> {
    const now = Date.now();
    const admitted = this.#gate.admit(this.#runDueDeadlines(now), caller, body, now);
    if (!admitted.ok) return admitted;
    const record = this.#apply({ type: "cancel", at: now });
    if (!record) return failure(notInSos("There is no SOS to cancel."));
    this.#emit({ type: "sos_cancelled", by: caller.role, at: now });
    this.#tell.state(record);
    return success(sosCancelView(record));
  }

  /** The location check (docs/contract.md, section 4): in `active` and `sos`, for a session that checks the location. */
  async checkLocation(
    caller: SessionCaller,
    body: Checked<LocationSubmission>,
  ): Promise<Outcome<LocationAnswer>> {
    const now = Date.now();
    const admitted = this.#gate.admit(this.#runDueDeadlines(now), caller, body, now);
    if (!admitted.ok) return admitted;
    if (!checksLocation(admitted.record)) return failure(locationCheckOff());
    const submission = admitted.value;
    if (!("unavailable" in submission)) return this.#fixes.locate("check", caller, submission, now);
    const check: StoredCheck = { at: now, outcome: submission.unavailable, location: null, result: null };
    this.#fixes.recordCheck(check, caller.role);
    return success({ received: true });
  }

  async submitLocation(
    caller: SessionCaller,
    body: Checked<LocationSubmission>,
  ): Promise<Outcome<LocationAnswer>> {
    const now = Date.now();
    const admitted = this.#gate.admit(this.#runDueDeadlines(now), caller, body, now);
    if (!admitted.ok) return admitted;
    if (admitted.record.state !== "sos") return failure(notInSos("No SOS is waiting for a location."));
    const submission = admitted.value;
    if (!("unavailable" in submission)) return this.#fixes.locate("sos", caller, submission, now);
    const record = this.#apply({ type: "unavailable", at: now }) ?? admitted.record;
    this.#noLocation(record, submission.unavailable, caller.role, now);
    return success({ received: true });
  }

  // Location URIs (docs/contract.md, section 10): the SOS's, recorded and answered by src/held/.
  async mintLocationUri(call: MintCall) {
    return this.#uris.mint(call, Date.now());
  }
  async dereferenceLocationUri(call: DereferenceCall) {
    return this.#uris.dereference(call, Date.now());
  }

  // -------------------------------------------------------------------------
  // Sockets and the alarm

  /** `/ws`, after the worker checked the token: the upgrade, or the probe without `Upgrade` (docs/contract.md, section 5). */
  override async fetch(request: Request): Promise<Response> {
    const now = Date.now();
    const live = this.#gate.live(this.#runDueDeadlines(now));
    if (!live.ok) return problemResponse(live.problem);
    const caller = callerOf(request);
    if (!caller) return problemResponse(problem("invalid_token", "The socket has no verified role."));
    const refused = this.#sockets.refusal(caller.role, request, now);
    if (refused) return problemResponse(refused);
    const { client, askedFor: purpose } = this.#tell.open(live.record, caller, now);
    if (purpose) this.#emit({ type: "location_requested", by: "system", at: now, on: "new_socket", purpose });
    return new Response(null, { status: 101, webSocket: client });
  }

  // The runtime's socket handlers: each never throws, and a close is always answered (sockets.ts).

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    this.#sockets.received(ws, message);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.#sockets.closed(ws, code, reason, this.#record !== null);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.#sockets.failed(ws, this.#record !== null);
  }

  override async alarm(): Promise<void> {
    // The runtime clears an alarm as it fires it; safe to run twice (nothing is due the second time).
    this.#alarm.fired();
    // The outbox is sent below; a failed send sets its retry again.
    this.#webhooks.retryDue();
    this.#runDueDeadlines(Date.now());
    this.#syncAlarm();
    if (this.#record && this.#webhooks.hasPending()) this.#webhooks.flush();
  }

  // -------------------------------------------------------------------------
  // Internals

  /** No fix is coming for this SOS (the patient's reason, our lookup failed, or the 30 s clock): counselors hear why. */
  #noLocation(record: SessionRecord, reason: CounselorUnavailableReason, by: SessionFact["by"], at: number) {
    this.#emit({ type: "location_unavailable", by, at, reason });
    this.#tell.noLocation(record, reason);
  }

  /**
   * Runs every deadline already due (expiry, the 30 s clock, the purge: an alarm may lag behind them),
   * then returns the session as stored: null once purged.
   */
  #runDueDeadlines(now = Date.now()): SessionRecord | null {
    let record = this.#record;
    if (!record) return null;
    for (const deadline of dueDeadlines(record, now)) {
      if (deadline.kind === "purge") {
        this.#purge();
        return null;
      }
      const next = this.#apply({ type: deadline.kind === "expire" ? "expire" : "location_timeout", at: now });
      if (!next) continue;
      record = next;
      if (deadline.kind === "expire") {
        this.#emit({ type: "session_expired", by: "system", at: now });
        this.#tell.over(next, "expired");
      } else {
        this.#noLocation(next, "timeout", "system", now);
      }
    }
    return record;
  }

  #platformRecord(platformId: string, now = Date.now()): SessionRecord | null {
    const record = this.#runDueDeadlines(now);
    return record && record.platform_id === platformId ? record : null;
  }

  /** Applies `event` through the state machine and stores the result; null (and nothing stored) when the state refuses it. */
  #apply(event: SessionEvent, beforeStoring?: (next: SessionRecord) => void): SessionRecord | null {
    const current = this.#record;
    const next = current && transition(current, event);
    if (!current || !next) return null;
    if (next.state !== current.state) this.#lookups.stateChanged();
    if (next !== current) this.#record = next;
    beforeStoring?.(next);
    if (next === current) return current;
    this.#store(next);
    return next;
  }

  /** Writes the record and its alarm without waiting: the output gate holds every answer until both are stored. */
  #store(record: SessionRecord): void {
    this.#record = record;
    this.ctx.storage.kv.put(RECORD_KEY, record);
    this.#syncAlarm();
  }

  /**
   * A fact of the session's story, in the commit of the change that made it: its audit event, and its
   * webhook event into the outbox (sent to the queue in the background: the answer never waits for the
   * queue, and a queue failure never fails the call). The one place every fact passes through.
   */
  #emit(fact: SessionFact): void {
    if (!this.#record) return;
    const { audit, webhook } = eventsOf(fact, this.#record);
    this.#audit.append(audit.type, fact.by, fact.at, audit.data);
    if (webhook) this.#webhooks.publish(this.#record, webhook);
  }

  /** 30 days after the end: the object forgets the session entirely. */
  #purge(): void {
    this.#record = null;
    this.#alarm.clear();
    void this.ctx.storage.deleteAll();
  }

  /** The alarm at the earliest deadline or outbox retry (none once the session is forgotten). */
  #syncAlarm(): void {
    if (this.#record) this.#alarm.want(nextAlarmAt(this.#record), this.#webhooks.retryAt);
  }
}
