// A session's location URIs (docs/contract.md, section 10), kept by its session object: each is recorded with the SOS
// it was made for (the SOS's start time), so a cancel, a new SOS, the end or the expiry kills it with no
// step of its own; and it dies an hour after it was made at the latest. What a dereference answers is
// decided here, in the object's one thread, from the session as it stands at that moment.
//
// The token and the URI are made by the worker (token.ts); the object never holds them, only their ids.

import { HELD_LIMITS, SESSION_LIMITS } from "../../lib/config.ts";
import type { HeldErrorCode, LocationUriMessage, LocationUriResponse } from "../../sdk/src/protocol.ts";
import { type Checked, failure, type Outcome, problem, success } from "../problem.ts";
import type { SessionCaller } from "../session/caller.ts";
import type { SessionFact } from "../session/facts.ts";
import type { BrowserGate } from "../session/gate.ts";
import { noSuchSession, notInSos, sessionOver } from "../session/problems.ts";
import { SlidingWindow } from "../session/rate-window.ts";
import { iso, type SessionRecord } from "../session/record.ts";
import { isFinal } from "../session/transitions.ts";
import type { HeldRefusal } from "./request.ts";
import type { HeldFix } from "./response.ts";

const STORAGE_KEY = "location_uris";
/** The SOS waits for the patient's browser: HELD's way of saying so. */
const NO_FIX_YET = {
  code: "locationUnknown",
  message: "the patient's location has not arrived yet",
} as const;

/** A URI as the session records it. */
interface StoredUri {
  id: string;
  /** The `sos_started_at` of the SOS it was made for: it answers only while that SOS lasts. */
  sos: number;
  created_at: number;
  expires_at: number;
}

/** Who asks for a URI: the platform (API key) or the session's counselor (token). */
export type UriMinter = { role: "platform"; platformId: string } | SessionCaller;

export interface MintCall {
  by: UriMinter;
  /** The request's body (none, or `{}`), as the worker read it: its problem is reported in the contract's order. */
  body: Checked<unknown>;
  uriId: string;
  /** The whole URI, for the counselors' sockets. */
  uri: string;
}

export interface DereferenceCall {
  uriId: string;
  method: "GET" | "POST";
  /** What the worker found wrong with a POSTed body, answered only once the URI is known to be alive. */
  refusal: HeldRefusal | null;
}

/** What a dereference answers. `gone`: the 404 that never says whether the URI was unknown, expired or revoked. */
export type DereferenceOutcome =
  | { kind: "gone" }
  | { kind: "rate_limited"; retryAfter: number }
  | { kind: "error"; code: HeldErrorCode; message: string }
  | { kind: "located"; fix: HeldFix; expiresAt: number };

/** What the URIs need of their session object. */
export interface UriHost {
  /** The session as stored now, its due deadlines run first; null once purged. */
  record(now: number): SessionRecord | null;
  /** Records a fact of the session (its audit event and webhook event). */
  emit(fact: SessionFact): void;
  toCounselors(message: LocationUriMessage): void;
}

export class LocationUris {
  readonly #kv: SyncKvStorage;
  readonly #gate: BrowserGate;
  readonly #host: UriHost;
  /** Dereferences per URI: an exact window in memory (an evicted object forgets at most one window). */
  readonly #reads = new SlidingWindow<string>(
    HELD_LIMITS.dereferencesPerWindow,
    HELD_LIMITS.dereferenceWindowMs,
  );

  constructor(kv: SyncKvStorage, gate: BrowserGate, host: UriHost) {
    this.#kv = kv;
    this.#gate = gate;
    this.#host = host;
  }

  /** A new URI for the SOS under way, told to the counselors; in the contract's order of refusals. */
  mint(call: MintCall, now: number): Outcome<LocationUriResponse> {
    const sos = this.#admit(call, now);
    if (!sos.ok) return sos;
    const record = sos.body;
    const sosStartedAt = record.sos_started_at;
    if (record.state !== "sos" || sosStartedAt === null) {
      return failure(notInSos("A location URI is made only while the session is in SOS."));
    }
    const live = this.#live(record, now);
    if (live.length >= HELD_LIMITS.maxLiveUrisPerSession) {
      return failure(
        problem(
          "location_uri_limit",
          `This SOS has ${HELD_LIMITS.maxLiveUrisPerSession} live location URIs: use one of them.`,
        ),
      );
    }
    // An SOS ends 24 h after it started whatever happens: a URI never outlives it.
    const expiresAt = Math.min(
      now + HELD_LIMITS.uriLifetimeMs,
      sosStartedAt + SESSION_LIMITS.sosMaxDurationMs,
    );
    // Only the live ones are kept: the record of dead URIs would say nothing but that they existed.
    const kept: StoredUri[] = [
      ...live,
      { id: call.uriId, sos: sosStartedAt, created_at: now, expires_at: expiresAt },
    ];
    this.#kv.put(STORAGE_KEY, kept);
    this.#host.toCounselors({
      type: "location_uri",
      session_id: record.session_id,
      uri: call.uri,
      expires_at: iso(expiresAt),
    });
    this.#host.emit({
      type: "location_uri_created",
      by: call.by.role,
      at: now,
      uriId: call.uriId,
      expiresAt,
    });
    return success({ uri: call.uri, expires_at: iso(expiresAt) }, 201);
  }

  /**
   * What URI `uriId` answers now: gone (404) unless its SOS is still the session's and it has not expired;
   * then at most 60 reads a minute; then the request's own fault, or no fix yet, or the fix. Each answer
   * that is not a 404 or a 429 is a fact of the session.
   */
  dereference(call: DereferenceCall, now: number): DereferenceOutcome {
    const record = this.#host.record(now);
    const uri = record ? this.#live(record, now).find((stored) => stored.id === call.uriId) : undefined;
    if (!record || !uri) return { kind: "gone" };
    const rate = this.#reads.take(uri.id, now);
    if (!rate.ok) return { kind: "rate_limited", retryAfter: rate.retryAfterSeconds };
    const refusal = call.refusal ?? (record.location ? null : NO_FIX_YET);
    this.#host.emit({
      type: "location_dereferenced",
      by: "uri_holder",
      at: now,
      uriId: uri.id,
      response: refusal?.code ?? "location",
      method: call.method,
    });
    const location = record.location;
    if (refusal || !location) return { kind: "error", ...(refusal ?? NO_FIX_YET) };
    // Records stored before fixes were dated: the time their PSAPs were computed, as the fix arrived.
    const computedAt = Date.parse(record.latest_result?.computed_at ?? "");
    const at = location.fixed_at ?? (Number.isNaN(computedAt) ? now : computedAt);
    return {
      kind: "located",
      fix: { latitude: location.latitude, longitude: location.longitude, accuracy: location.accuracy, at },
      expiresAt: uri.expires_at,
    };
  }

  /** The session for a mint, once the caller may have it: the platform's own, or the counselor's through the gate. */
  #admit(call: MintCall, now: number): Outcome<SessionRecord> {
    const record = this.#host.record(now);
    if (call.by.role !== "platform") {
      const admitted = this.#gate.admit(record, call.by, call.body, now);
      return admitted.ok ? success(admitted.record) : admitted;
    }
    if (!record || record.platform_id !== call.by.platformId) return failure(noSuchSession());
    if (isFinal(record.state)) return failure(sessionOver(record.state));
    return call.body.ok ? success(record) : failure(call.body.problem);
  }

  /** The URIs that answer now: made for the SOS under way, and not expired. */
  #live(record: SessionRecord, now: number): StoredUri[] {
    if (record.state !== "sos") return [];
    const stored = this.#kv.get<StoredUri[]>(STORAGE_KEY) ?? [];
    return stored.filter((uri) => uri.sos === record.sos_started_at && now < uri.expires_at);
  }
}
