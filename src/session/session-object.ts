// One Durable Object per session: its state machine, sockets, deadlines, rate limits and audit trail.
//
// Durability without waiting: every change is written with synchronous storage calls (the record in
// `storage.kv`, the trail in SQL) that commit together, and the runtime's output gate holds every
// answer and socket message until that write is confirmed. So nothing on the SOS path awaits storage,
// and nothing anyone hears can be lost by a crash. The only await on that path is the PSAP lookup.
// Webhook events go the same way: into an outbox in the same commit, then to the queue in the background.

import { DurableObject } from "cloudflare:workers";
import type {
  AuditActor,
  AuditData,
  AuditEventsPage,
  AuditEventType,
  LocationFix,
  LocationSubmission,
  PsapResultsBody,
  ReportedLocation,
  Role,
  SessionEndResponse,
  SessionView,
  SosCancelResponse,
  SosTriggerResponse,
} from "../../sdk/src/protocol.ts";
import { HEARTBEAT_PING, HEARTBEAT_PONG } from "../../sdk/src/protocol.ts";
import { RATE_LIMITS, WEBHOOK_LIMITS } from "../config.ts";
import { d1Contacts } from "../contacts/store.ts";
import type { Env } from "../env.ts";
import { errorSummary } from "../error-name.ts";
import {
  type Checked,
  failure,
  type Outcome,
  type Problem,
  problem,
  problemResponse,
  setProblemTypeBase,
  success,
} from "../problem.ts";
import type { PsapLookupResult } from "../psap/lookup.ts";
import { psapsDeliveredData, type WebhookEventDraft } from "../webhooks/events.ts";
import { WebhookOutbox } from "../webhooks/outbox.ts";
import { AuditLog } from "./audit-log.ts";
import { callerOf, type SessionCaller } from "./caller.ts";
import { dueDeadlines, nextAlarmAt } from "./deadlines.ts";
import {
  locationRequestMessage,
  locationUnavailableMessage,
  psapResultsMessage,
  sessionEndedMessage,
  sessionStateMessage,
} from "./messages.ts";
import { SlidingWindow } from "./rate-window.ts";
import { endedAt, iso, type NewSessionInput, newRecord, type SessionRecord, sessionView } from "./record.ts";
import { lookupForSession, resultOf } from "./session-lookup.ts";
import { closeQuietly, isWebSocketHandshake, SocketHub } from "./sockets.ts";
import { isFinal, type SessionEvent, startsSos, transition } from "./transitions.ts";

const RECORD_KEY = "session";

/** Which SOS and which fix a lookup was started for (their generations then). */
type LookupAsker = { sos: number; fix: number };

/** A browser call let through: the live record and the checked body. */
type Admitted<T> = { ok: true; record: SessionRecord; value: T } | { ok: false; problem: Problem };

export class SessionObject extends DurableObject<Env> {
  #record: SessionRecord | null;
  /** The alarm as last set, so a change costs no alarm read. */
  #alarmAt: number | null = null;
  /** When to send a refused webhook outbox again (in memory: a wake sends the outbox anyway). */
  #webhookRetryAt: number | null = null;
  readonly #audit: AuditLog;
  readonly #sockets: SocketHub;
  readonly #webhooks: WebhookOutbox;
  readonly #requests = new SlidingWindow<Role>(
    RATE_LIMITS.sessionRole.limit,
    RATE_LIMITS.sessionRole.windowMs,
  );
  /** Moves on whenever the state changes (an SOS starts or is cancelled, the session ends): a lookup delivers only to the SOS that asked. */
  #sosGeneration = 0;
  /** Moves on with every fix: only the latest fix's lookup is delivered. */
  #fixGeneration = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    setProblemTypeBase(env.PROBLEM_TYPE_BASE);
    this.#audit = new AuditLog(ctx.storage.sql);
    this.#sockets = new SocketHub(ctx, this.#audit);
    this.#webhooks = new WebhookOutbox(
      ctx,
      { queue: () => this.env.WEBHOOK_QUEUE, webhooks: () => this.env.DB },
      () => this.#retryWebhooksLater(),
    );
    // Answered by the runtime without waking the object: heartbeats cost nothing while hibernated.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(HEARTBEAT_PING, HEARTBEAT_PONG));
    this.#record = ctx.storage.kv.get<SessionRecord>(RECORD_KEY) ?? null;
    // On every wake: the trail never shows a socket connected that is gone.
    if (this.#record) this.#sockets.reconcile(Date.now());
    // Events a failed send (or an eviction mid-send) left behind go out now.
    if (this.#webhooks.hasPending()) this.#webhooks.flush();
    ctx.blockConcurrencyWhile(async () => {
      this.#alarmAt = await ctx.storage.getAlarm();
    });
  }

  // -------------------------------------------------------------------------
  // Platform (API key) methods

  async create(input: NewSessionInput): Promise<Outcome<SessionView>> {
    if (this.#record) return failure(problem("internal_error", "Session id collision; retry the request."));
    const record = newRecord(input);
    this.#store(record);
    this.#recordEvent("session_created", "platform", input.created_at, {
      meeting_id: input.meeting_id,
      expires_at: iso(input.expires_at),
    });
    this.#publish({
      type: "session.created",
      at: input.created_at,
      data: { meeting_id: input.meeting_id, expires_at: iso(input.expires_at) },
    });
    return success(sessionView(record, this.#connected()), 201);
  }

  async read(platformId: string): Promise<Outcome<SessionView>> {
    const record = this.#platformRecord(platformId);
    return record ? success(sessionView(record, this.#connected())) : failure(notFound());
  }

  async events(
    platformId: string,
    page: Checked<{ after: number; limit: number }>,
  ): Promise<Outcome<AuditEventsPage>> {
    if (!this.#platformRecord(platformId)) return failure(notFound());
    if (!page.ok) return failure(page.problem);
    return success(this.#audit.page(page.value.after, page.value.limit));
  }

  async end(platformId: string, body: Checked<unknown>): Promise<Outcome<SessionEndResponse>> {
    const now = Date.now();
    const record = this.#platformRecord(platformId, now);
    if (!record) return failure(notFound());
    if (record.state === "expired") return failure(overProblem(record));
    if (!body.ok) return failure(body.problem);
    const ended = this.#apply({ type: "end", at: now });
    // Ending an ended session answers the same again, and records nothing.
    if (ended && ended !== record) {
      this.#recordEvent("session_ended", "platform", now);
      this.#publish({ type: "session.ended", at: now, data: { ended_at: iso(endedAt(ended) ?? now) } });
      this.#closeAll(ended, "ended");
    }
    return success({
      session_id: record.session_id,
      state: "ended",
      ended_at: iso(endedAt(ended ?? record) ?? now),
    });
  }

  // -------------------------------------------------------------------------
  // Browser (token) methods: each passes #admit first, so each is rate limited unless exempt.

  async trigger(caller: SessionCaller, body: Checked<unknown>): Promise<Outcome<SosTriggerResponse>> {
    const now = Date.now();
    // The trigger that starts an SOS is never refused for rate; repeats are.
    const admitted = this.#admit(caller, body, now, startsSos);
    if (!admitted.ok) return admitted;
    const starts = startsSos(admitted.record);
    // The messages go before the write, which would hold them until stored: the patient's browser is
    // asked for its fix at once. Should the write fail, the trigger fails and is retried. The request
    // is the patient socket's first message: a socket writes one message per turn, and locally the
    // commit (with its disk sync) runs between the first and the second, so a session_state sent first
    // held the request back by that sync (about 2 ms, traced). The SDK needs no order between the two.
    let asked = 0;
    const record = this.#apply({ type: "trigger", at: now }, (next) => {
      asked = this.#sockets.broadcast("patient", locationRequestMessage(next, now));
      if (starts) this.#broadcastState(next);
    });
    if (!record) return failure(problem("not_in_sos", "This session cannot start an SOS."));
    this.#recordEvent("sos_triggered", caller.role, now, { repeat: !starts });
    this.#publish({
      type: "session.sos_triggered",
      at: now,
      data: { sos_started_at: iso(record.sos_started_at ?? now), repeat: !starts },
    });
    this.#locationRequested(asked, now);
    return success(
      {
        session_id: record.session_id,
        state: "sos",
        sos_started_at: iso(record.sos_started_at ?? now),
        patient_connected: this.#sockets.isConnected("patient"),
      },
      starts ? 202 : 200,
    );
  }

  async cancel(caller: SessionCaller, body: Checked<unknown>): Promise<Outcome<SosCancelResponse>> {
    const now = Date.now();
    const admitted = this.#admit(caller, body, now);
    if (!admitted.ok) return admitted;
    const record = this.#apply({ type: "cancel", at: now });
    if (!record) return failure(problem("not_in_sos", "There is no SOS to cancel."));
    this.#recordEvent("sos_cancelled", caller.role, now);
    this.#publish({ type: "session.sos_cancelled", at: now, data: { expires_at: iso(record.expires_at) } });
    this.#broadcastState(record);
    return success({ session_id: record.session_id, state: "active", expires_at: iso(record.expires_at) });
  }

  async submitLocation(
    caller: SessionCaller,
    body: Checked<LocationSubmission>,
  ): Promise<Outcome<PsapResultsBody | { received: true }>> {
    const now = Date.now();
    const admitted = this.#admit(caller, body, now);
    if (!admitted.ok) return admitted;
    if (admitted.record.state !== "sos") return failure(notInSos("No SOS is waiting for a location."));
    const submission = admitted.value;
    if ("unavailable" in submission) {
      const record = this.#apply({ type: "unavailable", at: now }) ?? admitted.record;
      this.#recordEvent("location_unavailable", caller.role, now, { reason: submission.unavailable });
      this.#publish({
        type: "session.location_unavailable",
        at: now,
        data: { reason: submission.unavailable },
      });
      this.#sockets.broadcast("counselor", locationUnavailableMessage(record, submission.unavailable));
      return success({ received: true });
    }
    return this.#locate(caller, submission, now);
  }

  // -------------------------------------------------------------------------
  // Sockets

  /** `/ws`, after the worker checked the token: the upgrade, or the probe without `Upgrade` (SPEC section 5). */
  override async fetch(request: Request): Promise<Response> {
    const now = Date.now();
    const record = this.#current(now);
    if (!record) return problemResponse(notStored());
    if (isFinal(record.state)) return problemResponse(overProblem(record));
    const caller = callerOf(request);
    if (!caller) return problemResponse(problem("invalid_token", "The socket has no verified role."));
    const refused = this.#sockets.refusal(caller.role, now);
    if (refused) return problemResponse(refused);
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return problemResponse(problem("upgrade_required", "Open this URL as a WebSocket."));
    }
    // A handshake the runtime would refuse after we answer: refuse it first, and record nothing.
    if (!isWebSocketHandshake(request)) {
      return problemResponse(problem("invalid_request", "A WebSocket handshake needs a Sec-WebSocket-Key."));
    }
    const { client, server } = this.#sockets.connect(caller, now);
    this.#sockets.send(server, sessionStateMessage(record, caller.role));
    if (caller.role === "patient" && record.state === "sos" && record.location === null) {
      this.#sockets.send(server, locationRequestMessage(record, now));
      this.#recordEvent("location_requested", "system", now, { on_connect: true });
    }
    const latest = psapResultsMessage(record, caller.role);
    if (latest) this.#sockets.send(server, latest);
    return new Response(null, { status: 101, webSocket: client });
  }

  // Socket handlers never throw: a failure is logged, and a close is always answered.

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    try {
      // Exact `ping` frames are answered by the auto-response; this catches padded ones.
      if (typeof message === "string" && message.trim() === HEARTBEAT_PING) {
        this.#sockets.send(ws, HEARTBEAT_PONG);
        return;
      }
      this.#sockets.send(ws, {
        type: "error",
        code: "unsupported_message",
        message:
          "This socket only carries heartbeats (send the text frame ping); use the HTTP API for actions.",
      });
    } catch (error) {
      logFailure("webSocketMessage", error);
    }
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    try {
      if (this.#record) this.#sockets.disconnected(ws, Date.now(), { code });
    } catch (error) {
      logFailure("webSocketClose", error);
    } finally {
      // Answer the client's close frame so it sees a clean close, not 1006 (never a reserved code).
      closeQuietly(ws, code, reason);
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    try {
      if (this.#record) this.#sockets.disconnected(ws, Date.now(), { error: true });
    } catch (error) {
      logFailure("webSocketError", error);
    }
  }

  override async alarm(): Promise<void> {
    // The runtime clears an alarm as it fires it; safe to run twice (nothing is due the second time).
    this.#alarmAt = null;
    // The outbox is sent below; a failed send sets the retry again.
    this.#webhookRetryAt = null;
    this.#current(Date.now());
    this.#syncAlarm();
    if (this.#record && this.#webhooks.hasPending()) this.#webhooks.flush();
  }

  /** The queue refused a send: wake a little later and send the outbox again (the session may stay quiet). */
  #retryWebhooksLater(): void {
    if (!this.#record) return;
    this.#webhookRetryAt = Date.now() + WEBHOOK_LIMITS.outboxRetryMs;
    this.#syncAlarm();
  }

  // -------------------------------------------------------------------------
  // Internals

  /**
   * The gate of every browser method, in the contract's order: 410 when over, 429 when over the
   * rate (refused unless `exempt` says this call may not be), then the body's own problem.
   */
  #admit<T>(
    caller: SessionCaller,
    body: Checked<T>,
    now: number,
    exempt?: (record: SessionRecord) => boolean,
  ): Admitted<T> {
    const record = this.#current(now);
    if (!record) return { ok: false, problem: notStored() };
    if (isFinal(record.state)) return { ok: false, problem: overProblem(record) };
    const rate = this.#requests.take(caller.role, now, body.ok && exempt?.(record) === true);
    if (!rate.ok) {
      return {
        ok: false,
        problem: problem("rate_limited", "Too many requests for this session; retry later.", {
          retryAfter: rate.retryAfterSeconds,
        }),
      };
    }
    if (!body.ok) return { ok: false, problem: body.problem };
    return { ok: true, record, value: body.value };
  }

  /** Looks up the PSAPs for a fix and delivers them, if the SOS and fix that asked are still current. */
  async #locate(caller: SessionCaller, fix: LocationFix, now: number): Promise<Outcome<PsapResultsBody>> {
    const asked: LookupAsker = { sos: this.#sosGeneration, fix: ++this.#fixGeneration };
    const location: ReportedLocation = {
      latitude: fix.latitude,
      longitude: fix.longitude,
      accuracy: fix.accuracy ?? null,
    };
    const lookup = await lookupForSession(this.env.PSAP_INDEX, location, {
      contacts: d1Contacts(this.env.DB),
      waitUntil: (promise) => this.ctx.waitUntil(promise),
    });

    // The lookup let other requests in: a cancel, a new SOS or the end makes this fix answer nothing.
    const at = Date.now();
    const record = this.#current(at);
    if (!record) return failure(notStored());
    if (isFinal(record.state)) return failure(overProblem(record));
    if (!this.#stillAsked(record, asked)) {
      return failure(notInSos("The SOS was cancelled while the location was being looked up."));
    }
    const received = () =>
      this.#recordEvent("location_received", caller.role, now, {
        accuracy_m: fix.accuracy === undefined ? null : Math.round(fix.accuracy),
      });
    const latest = asked.fix === this.#fixGeneration;
    if (!lookup.ok || !latest) received();
    if (!lookup.ok) {
      // A failure of ours, never "no PSAP nearby": counselors hear it at once, the 30 s clock runs on.
      if (latest) {
        this.#recordEvent("location_unavailable", "system", at, { reason: "lookup_failed" });
        this.#publish({ type: "session.location_unavailable", at, data: { reason: "lookup_failed" } });
        this.#sockets.broadcast("counselor", locationUnavailableMessage(record, "lookup_failed"));
        // Only slow (timed out, still running): if it answers after all, both sockets get its PSAPs.
        if (lookup.late) this.ctx.waitUntil(this.#deliverLate(lookup.late, location, asked));
      }
      return failure(lookup.problem);
    }
    const result = resultOf(lookup.found, at);
    // A newer fix is being looked up: its result is the one delivered.
    if (latest) this.#deliver(record, location, result, at, false, received);
    return success(result);
  }

  /** A timed-out lookup that answered after all: delivered if its SOS and fix are still the current ones. */
  async #deliverLate(late: Promise<PsapLookupResult | null>, location: ReportedLocation, asked: LookupAsker) {
    const found = await late;
    if (!found) return;
    const at = Date.now();
    const record = this.#current(at);
    if (!record || !this.#stillAsked(record, asked) || asked.fix !== this.#fixGeneration) return;
    this.#deliver(record, location, resultOf(found, at), at, true);
  }

  /** Whether the SOS that asked for a lookup is still the one under way. */
  #stillAsked(record: SessionRecord, asked: LookupAsker): boolean {
    return record.state === "sos" && asked.sos === this.#sosGeneration;
  }

  /**
   * The fix and its PSAPs become the session's latest: sent to every socket first (a write would hold
   * the messages until it is stored), then stored, recorded (`beforeEvents` first) and published.
   */
  #deliver(
    record: SessionRecord,
    location: ReportedLocation,
    result: PsapResultsBody,
    at: number,
    late: boolean,
    beforeEvents?: () => void,
  ): void {
    let sent = false;
    const send = (located: SessionRecord) => {
      sent = true;
      for (const role of ["counselor", "patient"] as const) {
        const message = psapResultsMessage(located, role);
        if (message) this.#sockets.broadcast(role, message);
      }
    };
    const located = this.#apply({ type: "located", at, location, result }, send) ?? record;
    if (!sent) send(located);
    beforeEvents?.();
    this.#recordEvent("psaps_delivered", "system", at, {
      result_id: result.result_id,
      psap_ids: result.psaps.map((psap) => psap.id),
      data_version: result.data_version,
      ...(late ? { after_lookup_failed: true } : {}),
    });
    this.#publish({ type: "session.psaps_delivered", at, data: psapsDeliveredData(result) });
  }

  /** The session as stored, after running every deadline already due (an alarm may lag). */
  #current(now = Date.now()): SessionRecord | null {
    let record = this.#record;
    if (!record) return null;
    for (const deadline of dueDeadlines(record, now)) {
      if (deadline.kind === "purge") {
        this.#purge();
        return null;
      }
      if (deadline.kind === "expire") {
        const expired = this.#apply({ type: "expire", at: now });
        if (!expired) continue;
        record = expired;
        this.#recordEvent("session_expired", "system", now);
        this.#publish({ type: "session.expired", at: now, data: { expired_at: iso(now) } });
        this.#closeAll(expired, "expired");
      } else {
        const timedOut = this.#apply({ type: "location_timeout", at: now });
        if (!timedOut) continue;
        record = timedOut;
        this.#recordEvent("location_unavailable", "system", now, { reason: "timeout" });
        this.#publish({ type: "session.location_unavailable", at: now, data: { reason: "timeout" } });
        this.#sockets.broadcast("counselor", locationUnavailableMessage(timedOut, "timeout"));
      }
    }
    return record;
  }

  #platformRecord(platformId: string, now = Date.now()): SessionRecord | null {
    const record = this.#current(now);
    return record && record.platform_id === platformId ? record : null;
  }

  /** Applies `event` through the state machine and stores the result; null (and nothing stored) when the state refuses it. */
  #apply(event: SessionEvent, beforeStoring?: (next: SessionRecord) => void): SessionRecord | null {
    const current = this.#record;
    const next = current && transition(current, event);
    if (!current || !next) return null;
    if (next.state !== current.state) this.#sosGeneration++;
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

  /** Every event of the session's story is recorded here (socket bookkeeping aside): the one place to hook onto. */
  #recordEvent(type: AuditEventType, actor: AuditActor, at: number, data?: AuditData): void {
    this.#audit.append(type, actor, at, data);
  }

  /**
   * A webhook event for the platform: into the outbox with this change, to the queue in the background.
   * The answer never waits for the queue, and a queue failure never fails the call.
   */
  #publish(draft: WebhookEventDraft): void {
    if (this.#record) this.#webhooks.publish(this.#record, draft);
  }

  #locationRequested(sockets: number, now: number): void {
    if (sockets > 0) this.#recordEvent("location_requested", "system", now, { sockets });
  }

  /** The final state, then `session_ended`, then close 4000 (no SDK reconnects after it). */
  #closeAll(record: SessionRecord, reason: "ended" | "expired"): void {
    this.#broadcastState(record);
    this.#sockets.closeAll(sessionEndedMessage(record, reason), `session ${reason}`);
  }

  #broadcastState(record: SessionRecord): void {
    for (const role of ["patient", "counselor"] as const) {
      this.#sockets.broadcast(role, sessionStateMessage(record, role));
    }
  }

  #connected(): Record<Role, boolean> {
    return {
      patient: this.#sockets.isConnected("patient"),
      counselor: this.#sockets.isConnected("counselor"),
    };
  }

  /** 30 days after the end: the object forgets the session entirely. */
  #purge(): void {
    this.#record = null;
    this.#alarmAt = null;
    void this.ctx.storage.deleteAlarm();
    void this.ctx.storage.deleteAll();
  }

  #syncAlarm(): void {
    const deadline = this.#record ? nextAlarmAt(this.#record) : null;
    const retry = this.#record ? this.#webhookRetryAt : null;
    const wanted = deadline === null ? retry : retry === null ? deadline : Math.min(deadline, retry);
    if (wanted === this.#alarmAt) return;
    // Only an earlier alarm is set at once. Moving one later (the fix arrived: the 30 s clock stops) can
    // wait: the early alarm finds nothing due and sets the right time then. So an SOS costs one alarm
    // write, not two, and none after its PSAPs are delivered (each is a write of its own, locally synced).
    if (this.#alarmAt !== null && (wanted === null || wanted > this.#alarmAt)) return;
    if (wanted === null) void this.ctx.storage.deleteAlarm();
    else void this.ctx.storage.setAlarm(wanted);
    this.#alarmAt = wanted;
  }
}

function notFound(): Problem {
  return problem("not_found", "No such session for this platform.");
}

function notStored(): Problem {
  return problem("session_expired", "This session is no longer stored.");
}

function notInSos(detail: string): Problem {
  return problem("not_in_sos", detail);
}

function overProblem(record: SessionRecord): Problem {
  return record.state === "expired"
    ? problem("session_expired", "This session has expired.")
    : problem("session_ended", "This session has ended.");
}

/** The kind of failure only: a message here never holds a coordinate or the address. */
function logFailure(where: string, error: unknown): void {
  console.error(`session object ${where} failed: ${errorSummary(error)}`);
}
