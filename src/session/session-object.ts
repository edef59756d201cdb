// One Durable Object per session: its state machine, sockets, deadlines and audit trail.

import { DurableObject } from "cloudflare:workers";
import type {
  LocationFix,
  LocationUnavailableReason,
  PsapResultsBody,
  Role,
  SessionEndResponse,
  SosCancelResponse,
  SosTriggerResponse,
} from "../../sdk/src/protocol.ts";
import { HEARTBEAT_PING, HEARTBEAT_PONG } from "../../sdk/src/protocol.ts";
import { PSAP_LIMITS, SESSION_LIMITS } from "../config.ts";
import { d1Contacts } from "../contacts/store.ts";
import type { Env } from "../env.ts";
import { type Problem, problem, problemResponse } from "../http/problem.ts";
import { sessionRateProblem } from "../http/rate-limit.ts";
import { lookupPsaps, PsapIndexUnavailableError } from "../psap/lookup.ts";
import { type AuditEvent, AuditLog } from "./audit-log.ts";
import { dueDeadlines, nextAlarmAt } from "./deadlines.ts";
import {
  locationRequestMessage,
  locationUnavailableMessage,
  psapResultsMessage,
  sessionEndedMessage,
  sessionStateMessage,
} from "./messages.ts";
import { failure, type Outcome, success } from "./outcome.ts";
import {
  iso,
  isoOrNull,
  type NewSessionInput,
  newRecord,
  type SessionRecord,
  type SessionViewBody,
} from "./record.ts";
import { SocketHub } from "./sockets.ts";
import { isFinal, nextState } from "./transitions.ts";

const RECORD_KEY = "session";

/** Who calls a browser method, as the worker verified from the token. */
export interface SessionCaller {
  role: Role;
  sub: string;
  jti: string;
}

/** A body the worker read: the value, or the problem it found (reported only after 404/410, per the error order). */
export type CheckedBody<T> = { ok: true; value: T } | { ok: false; problem: Problem };

/** Headers by which the worker hands the verified identity of a socket to the object. */
export const SOCKET_IDENTITY_HEADERS = {
  role: "X-Session-Role",
  sub: "X-Session-Sub",
  jti: "X-Session-Jti",
} as const;

export class SessionObject extends DurableObject<Env> {
  #record: SessionRecord | null = null;
  /** The alarm as last set (undefined: not read yet), so a save costs no alarm read. */
  #alarmAt: number | null | undefined;
  readonly #audit: AuditLog;
  readonly #sockets: SocketHub;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#audit = new AuditLog(ctx.storage.sql);
    this.#sockets = new SocketHub(ctx);
    // Answered by the runtime without waking the object: heartbeats cost nothing while hibernated.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(HEARTBEAT_PING, HEARTBEAT_PONG));
    ctx.blockConcurrencyWhile(async () => {
      this.#record = (await ctx.storage.get<SessionRecord>(RECORD_KEY)) ?? null;
    });
  }

  // -------------------------------------------------------------------------
  // Platform (API key) methods

  async create(input: NewSessionInput): Promise<Outcome<SessionViewBody>> {
    if (this.#record) return failure(problem("internal_error", "Session id collision; retry the request."));
    const record = newRecord(input);
    this.#record = record;
    this.#audit.append("session_created", "platform", input.created_at, {
      meeting_id: input.meeting_id,
      expires_at: iso(input.expires_at),
    });
    await this.#save();
    return success(this.#view(record), 201);
  }

  async read(platformId: string): Promise<Outcome<SessionViewBody>> {
    const record = await this.#platformRecord(platformId);
    if (!record) return failure(notFound());
    return success(this.#view(record));
  }

  async events(platformId: string): Promise<Outcome<{ events: AuditEvent[] }>> {
    const record = await this.#platformRecord(platformId);
    if (!record) return failure(notFound());
    return success({ events: this.#audit.list() });
  }

  async end(platformId: string): Promise<Outcome<SessionEndResponse>> {
    const record = await this.#platformRecord(platformId);
    if (!record) return failure(notFound());
    if (record.state === "expired") return failure(overProblem(record));
    if (record.state !== "ended") {
      const now = Date.now();
      this.#finish(record, "ended", now);
      record.ended_at = now;
      this.#audit.append("session_ended", "platform", now);
      await this.#save();
      this.#closeAll(record, "ended");
    }
    return success({
      session_id: record.session_id,
      state: "ended",
      ended_at: iso(record.ended_at ?? Date.now()),
    });
  }

  // -------------------------------------------------------------------------
  // Browser (token) methods

  async trigger(
    caller: SessionCaller,
    body: CheckedBody<unknown>,
    options: { rateLimited: boolean },
  ): Promise<Outcome<SosTriggerResponse>> {
    const checked = await this.#liveRecord(body);
    if (!checked.ok) return checked;
    const record = checked.record;
    const next = nextState(record.state, "trigger");
    if (next === null)
      return failure(problem("not_in_sos", `A session in state ${record.state} cannot start an SOS.`));
    const starts = record.state === "active";
    // The first trigger of an SOS is never refused for rate; repeats are.
    if (!starts && options.rateLimited) return failure(sessionRateProblem());
    const now = Date.now();
    if (starts) {
      record.state = next;
      record.sos_started_at = now;
      record.location = null;
      record.latest_result = null;
    }
    record.location_deadline_at = now + SESSION_LIMITS.locationDeadlineMs;
    this.#audit.append("sos_triggered", caller.role, now, { repeat: !starts });
    await this.#save();
    if (starts) this.#broadcastState(record);
    this.#requestLocation(record, now);
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

  async cancel(caller: SessionCaller, body: CheckedBody<unknown>): Promise<Outcome<SosCancelResponse>> {
    const checked = await this.#liveRecord(body);
    if (!checked.ok) return checked;
    const record = checked.record;
    const next = nextState(record.state, "cancel");
    if (next === null) return failure(problem("not_in_sos", "There is no SOS to cancel."));
    const now = Date.now();
    record.state = next;
    record.location = null;
    record.latest_result = null;
    record.location_deadline_at = null;
    record.expires_at = Math.max(record.expires_at, now + SESSION_LIMITS.cancelGraceMs);
    this.#audit.append("sos_cancelled", caller.role, now);
    await this.#save();
    this.#broadcastState(record);
    return success({ session_id: record.session_id, state: "active", expires_at: iso(record.expires_at) });
  }

  async submitLocation(
    caller: SessionCaller,
    body: CheckedBody<LocationFix | { unavailable: LocationUnavailableReason }>,
  ): Promise<Outcome<PsapResultsBody | { received: true }>> {
    const checked = await this.#liveRecord(body);
    if (!checked.ok) return checked;
    const record = checked.record;
    if (record.state !== "sos") return failure(problem("not_in_sos", "No SOS is waiting for a location."));
    if (!body.ok) return failure(body.problem); // unreachable: #liveRecord reported it
    const submission = body.value;
    const now = Date.now();
    if ("unavailable" in submission) {
      record.location_deadline_at = null;
      this.#audit.append("location_unavailable", caller.role, now, { reason: submission.unavailable });
      await this.#save();
      this.#sockets.broadcast("counselor", locationUnavailableMessage(record, submission.unavailable));
      return success({ received: true });
    }
    return this.#locate(record, submission, caller, now);
  }

  // -------------------------------------------------------------------------
  // Sockets

  override async fetch(request: Request): Promise<Response> {
    const record = await this.#current();
    if (!record) return problemResponse(problem("session_expired", "This session is no longer stored."));
    if (isFinal(record.state)) return problemResponse(overProblem(record));
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return problemResponse(problem("upgrade_required", "Open this URL as a WebSocket."));
    }
    const role = request.headers.get(SOCKET_IDENTITY_HEADERS.role);
    if (role !== "patient" && role !== "counselor") {
      return problemResponse(problem("invalid_token", "The socket has no verified role."));
    }
    const now = Date.now();
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.#sockets.accept(server, {
      role,
      sub: request.headers.get(SOCKET_IDENTITY_HEADERS.sub) ?? "",
      jti: request.headers.get(SOCKET_IDENTITY_HEADERS.jti) ?? "",
      connected_at: now,
    });
    this.#audit.append("socket_connected", role, now);
    this.#sockets.send(server, sessionStateMessage(record, role));
    if (role === "patient" && record.state === "sos" && record.location === null) {
      this.#sockets.send(server, locationRequestMessage(record, now));
      this.#audit.append("location_requested", "system", now, { on_connect: true });
    }
    const latest = psapResultsMessage(record, role);
    if (latest) this.#sockets.send(server, latest);
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    // Exact `ping` frames are answered by the auto-response; this catches padded ones.
    if (typeof message === "string" && message.trim() === HEARTBEAT_PING) {
      ws.send(HEARTBEAT_PONG);
      return;
    }
    this.#sockets.send(ws, {
      type: "error",
      code: "unsupported_message",
      message:
        "This socket only carries heartbeats (send the text frame ping); use the HTTP API for actions.",
    });
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.#disconnected(ws);
    try {
      // Answer the client's close frame so it sees a clean close, not 1006.
      ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      // Already closed.
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.#disconnected(ws);
  }

  override async alarm(): Promise<void> {
    // The runtime clears an alarm as it fires it.
    this.#alarmAt = null;
    await this.#current();
    await this.#syncAlarm();
  }

  // -------------------------------------------------------------------------
  // Internals

  async #locate(
    record: SessionRecord,
    fix: LocationFix,
    caller: SessionCaller,
    now: number,
  ): Promise<Outcome<PsapResultsBody>> {
    const version = record.location_version + 1;
    record.location_version = version;
    record.location = { latitude: fix.latitude, longitude: fix.longitude, accuracy: fix.accuracy ?? null };
    record.location_deadline_at = null;
    this.#audit.append("location_received", caller.role, now, {
      accuracy_m: fix.accuracy === undefined ? null : Math.round(fix.accuracy),
    });
    // Stored once, with the result: the fix is not worth a write of its own on the emergency path.

    let found: Awaited<ReturnType<typeof lookupPsaps>>;
    try {
      found = await lookupPsaps(
        this.env.PSAP_INDEX,
        { latitude: fix.latitude, longitude: fix.longitude, accuracy: fix.accuracy ?? null },
        {
          limit: PSAP_LIMITS.maxResults,
          contacts: d1Contacts(this.env.DB),
          waitUntil: (promise) => this.ctx.waitUntil(promise),
        },
      );
    } catch (error) {
      if (error instanceof PsapIndexUnavailableError) {
        await this.#save();
        return failure(
          problem("psap_index_unavailable", "No PSAP data is loaded; the operator must import it."),
        );
      }
      throw error;
    }
    const result: PsapResultsBody = {
      result_id: crypto.randomUUID(),
      psaps: found.psaps,
      area: found.area,
      emergency: found.emergency,
      computed_at: iso(Date.now()),
      data_version: found.data_version,
    };
    if (found.reason) result.reason = found.reason;

    // The lookup let other requests in: deliver only if this fix is still the session's latest.
    const current = this.#record;
    if (current?.state !== "sos") {
      return failure(current && isFinal(current.state) ? overProblem(current) : notInSosAnyMore());
    }
    if (current.location_version !== version) return success(result);
    current.latest_result = result;
    this.#audit.append("psaps_delivered", "system", Date.now(), {
      result_id: result.result_id,
      psap_ids: result.psaps.map((psap) => psap.id),
      data_version: result.data_version,
    });
    await this.#save();
    for (const role of ["counselor", "patient"] as const) {
      const message = psapResultsMessage(current, role);
      if (message) this.#sockets.broadcast(role, message);
    }
    return success(result);
  }

  /** The session as stored, after running any deadline that is already due (alarms may lag). */
  async #current(): Promise<SessionRecord | null> {
    const record = this.#record;
    if (!record) return null;
    const now = Date.now();
    const due = dueDeadlines(record, now);
    if (due.length === 0) return record;
    // Tell the sockets only once the new state is stored.
    const afterSave: (() => void)[] = [];
    for (const deadline of due) {
      if (deadline.kind === "purge") {
        await this.ctx.storage.deleteAll();
        this.#record = null;
        this.#alarmAt = null;
        return null;
      }
      if (deadline.kind === "expire" && nextState(record.state, "expire") !== null) {
        this.#finish(record, "expired", now);
        this.#audit.append("session_expired", "system", now);
        afterSave.push(() => this.#closeAll(record, "expired"));
      } else if (deadline.kind === "location_timeout" && record.state === "sos") {
        record.location_deadline_at = null;
        this.#audit.append("location_unavailable", "system", now, { reason: "timeout" });
        afterSave.push(() =>
          this.#sockets.broadcast("counselor", locationUnavailableMessage(record, "timeout")),
        );
      }
    }
    await this.#save();
    for (const effect of afterSave) effect();
    return record;
  }

  async #platformRecord(platformId: string): Promise<SessionRecord | null> {
    const record = await this.#current();
    return record && record.platform_id === platformId ? record : null;
  }

  /** For token methods: 410 when over, then the body's own problem, in the contract's order. */
  async #liveRecord(
    body: CheckedBody<unknown>,
  ): Promise<{ ok: true; record: SessionRecord } | { ok: false; problem: Problem }> {
    const record = await this.#current();
    if (!record)
      return { ok: false, problem: problem("session_expired", "This session is no longer stored.") };
    if (isFinal(record.state)) return { ok: false, problem: overProblem(record) };
    if (!body.ok) return { ok: false, problem: body.problem };
    return { ok: true, record };
  }

  /** Moves to a final state and erases everything that locates the patient. */
  #finish(record: SessionRecord, state: "ended" | "expired", now: number): void {
    record.state = state;
    record.location = null;
    record.latest_result = null;
    record.location_deadline_at = null;
    record.final_at = now;
  }

  #requestLocation(record: SessionRecord, now: number): void {
    const sent = this.#sockets.broadcast("patient", locationRequestMessage(record, now));
    if (sent > 0) this.#audit.append("location_requested", "system", now, { sockets: sent });
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

  #disconnected(ws: WebSocket): void {
    const attachment = SocketHub.attachmentOf(ws);
    if (!attachment || !this.#record) return;
    this.#audit.append("socket_disconnected", attachment.role, Date.now());
  }

  #view(record: SessionRecord): SessionViewBody {
    return {
      session_id: record.session_id,
      platform_id: record.platform_id,
      state: record.state,
      created_at: iso(record.created_at),
      expires_at: iso(record.expires_at),
      sos_started_at: isoOrNull(record.sos_started_at),
      ended_at: isoOrNull(record.ended_at),
      patient_connected: this.#sockets.isConnected("patient"),
      counselor_connected: this.#sockets.isConnected("counselor"),
    };
  }

  async #save(): Promise<void> {
    if (!this.#record) return;
    await this.ctx.storage.put(RECORD_KEY, this.#record);
    await this.#syncAlarm();
  }

  async #syncAlarm(): Promise<void> {
    const wanted = this.#record ? nextAlarmAt(this.#record) : null;
    if (this.#alarmAt === undefined) this.#alarmAt = await this.ctx.storage.getAlarm();
    if (wanted === this.#alarmAt) return;
    if (wanted === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(wanted);
    this.#alarmAt = wanted;
  }
}

function notFound(): Problem {
  return problem("not_found", "No such session for this platform.");
}

function notInSosAnyMore(): Problem {
  return problem("not_in_sos", "The SOS was cancelled while the location was being looked up.");
}

function overProblem(record: SessionRecord): Problem {
  return record.state === "expired"
    ? problem("session_expired", "This session has expired.")
    : problem("session_ended", "This session has ended.");
}
