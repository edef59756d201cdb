// Counselor SDK: session start and end with the API key (server side), SOS and the live socket with the token (browser).
import { safeCall } from "./core/callbacks.ts";
import { type ClientOptions, SessionClient } from "./core/client.ts";
import { SdkError } from "./core/errors.ts";
import { decodeClaims } from "./core/jwt.ts";
import { sessionsPath } from "./core/urls.ts";
import type {
  CounselorUnavailableReason,
  LocationCheckMode,
  LocationUnavailableReason,
  LocationUriResponse,
  PsapResultsMessage,
  ReportedLocation,
  ServerMessage,
  SessionCreateRequest,
  SessionCreateResponse,
  SessionEndResponse,
  SosCancelResponse,
  SosTriggerResponse,
} from "./protocol.ts";

export type { ApiErrorCode } from "./core/errors.ts";
export { ApiError, RateLimitError, SdkError } from "./core/errors.ts";
export type { ConnectionState } from "./core/socket.ts";
export type * from "./protocol.ts";

/**
 * What `onPSAPResults` receives: the PSAPs, the patient's location they were computed for, where that
 * is in words (`area`), what to dial there (`emergency`) and the address on file (or null).
 */
export type CounselorPsapResults = Pick<
  PsapResultsMessage,
  "psaps" | "area" | "emergency" | "result_id" | "computed_at" | "data_version" | "reason"
> & { location: ReportedLocation; patient_address: string | null };

/**
 * What `onLocationCheck` receives: when the check came (`checked_at`) and how it ended (`outcome`). With a
 * fix (`"located"`), the `onPSAPResults` fields for where the patient was then; without one, the
 * browser's reason and no PSAPs.
 */
export type CounselorLocationCheck =
  | (CounselorPsapResults & { outcome: "located"; checked_at: string })
  | { outcome: LocationUnavailableReason; checked_at: string; patient_address: string | null };

export interface CounselorSDKOptions extends ClientOptions {
  /** Platform id, for `startSession` / `endSession` (taken from the token otherwise). */
  platformId?: string;
  /** Secret API key (`sk_live_...`): server side only, never in a browser. */
  secretKey?: string;
  /** Counselor JWT, for `connect`, `trigger`, `cancel` (browser side). */
  sessionToken?: string;
  onPSAPResults?: (results: CounselorPsapResults) => void;
  /**
   * No result is coming: `permission_denied`, `position_unavailable`, `timeout` (the patient's side) or
   * `lookup_failed` (ours). With the address on file for the visit, or null, and the latest location
   * check (where the patient was when it came), or null.
   */
  onLocationUnavailable?: (
    reason: CounselorUnavailableReason,
    patientAddress: string | null,
    lastCheck: CounselorLocationCheck | null,
  ) => void;
  /** Each location check (a session started with `locationCheck: "at_start"`), and the latest on connect. */
  onLocationCheck?: (check: CounselorLocationCheck) => void;
  /**
   * A location URI was made for the SOS (by `requestLocationUri`, another tab, or the platform's backend):
   * the URI and when it expires. It dies sooner when the SOS is cancelled or the session ends.
   */
  onLocationUri?: (uri: LocationUriResponse) => void;
}

export interface StartSessionInput {
  meetingId: string;
  counselorId: string;
  patientId: string;
  expiresInMinutes?: number;
  /** `"at_start"`: the patient's browser is asked for its location when the patient first connects. */
  locationCheck?: LocationCheckMode;
  /** Sent as `Idempotency-Key`: a retry with the same key returns the same session. */
  idempotencyKey?: string;
}

/** Which session a token call acts on; defaults to the token's own session. */
export interface SessionRef {
  sessionId?: string;
}

export class CounselorSDK extends SessionClient {
  private _opts: CounselorSDKOptions;
  private _token: string | undefined;
  /**
   * The address the platform has on file for this visit, as the service last said (null: none, or not
   * told yet). Forgotten when the session ends, as the service erases it then.
   */
  patientAddress: string | null = null;

  constructor(options: CounselorSDKOptions) {
    super(options);
    this._opts = options;
    this._token = options.sessionToken;
  }

  /** Creates a session (API key). Returns the service's answer unchanged, in snake_case. */
  async startSession(input: StartSessionInput): Promise<SessionCreateResponse> {
    const body: SessionCreateRequest = {
      meeting_id: input.meetingId,
      counselor_id: input.counselorId,
      patient_id: input.patientId,
      expires_in_minutes: input.expiresInMinutes,
      location_check: input.locationCheck,
    };
    const headers = this._keyHeaders();
    if (input.idempotencyKey) headers["Idempotency-Key"] = input.idempotencyKey;
    const res = await this._request<SessionCreateResponse>("POST", this._path(), headers, body);
    // Lets one object go on with connect() and trigger() on the session it created.
    this._token ??= res.counselor_token;
    return res;
  }

  /** Ends a session (API key): every socket of it is told and closed. */
  async endSession({ sessionId }: { sessionId: string }): Promise<SessionEndResponse> {
    return this._request("POST", this._path(sessionId, "/end"), this._keyHeaders());
  }

  /** Opens the counselor socket; resolves once open. It reconnects on its own until disconnect() or the session ends. */
  async connect(): Promise<void> {
    this._over = false;
    try {
      await this._open(this._claims().token);
    } catch (err) {
      throw this._fail(err);
    }
  }

  /** Triggers an SOS: the patient is asked for a location; the PSAPs arrive via `onPSAPResults`. */
  trigger(ref: SessionRef = {}): Promise<SosTriggerResponse> {
    return this._tokenCall(ref, "/sos");
  }

  /** Cancels an SOS (a false alarm): back to `active`, the location is erased. */
  cancel(ref: SessionRef = {}): Promise<SosCancelResponse> {
    return this._tokenCall(ref, "/sos/cancel");
  }

  /**
   * Asks for a location URI for the SOS under way (the deployment must serve them: HELD_ENABLED): a URI
   * from which the platform's telephony or the PSAP's equipment reads the patient's latest fix (HELD), to
   * paste into a call or read out. Resolves with `{ uri, expires_at }`; every counselor socket hears it too
   * (`onLocationUri`). At most 3 live per session (409 `location_uri_limit`); only in `sos` (409 `not_in_sos`).
   */
  requestLocationUri(ref: SessionRef = {}): Promise<LocationUriResponse> {
    return this._tokenCall(ref, "/location-uri");
  }

  /** Closes the socket; no reconnect. Safe to call more than once. */
  disconnect(): void {
    this._close();
  }

  protected _onMessage(msg: ServerMessage): void {
    const o = this._opts;
    // Every message but the patient's and the end carries the address on file to counselors.
    if ("patient_address" in msg) {
      this.patientAddress = msg.patient_address ?? null;
    }
    if (msg.type === "location_unavailable") {
      const last = (msg.last_check ?? null) as CounselorLocationCheck | null;
      safeCall(o.onLocationUnavailable, msg.reason, this.patientAddress, last);
    } else if (msg.type === "location_check") {
      const { type, session_id, ...check } = msg;
      safeCall(o.onLocationCheck, check as CounselorLocationCheck);
    } else if (msg.type === "location_uri") {
      safeCall(o.onLocationUri, { uri: msg.uri, expires_at: msg.expires_at });
    } else if (msg.type === "psap_results") {
      const { psaps, area, emergency, result_id, computed_at, data_version, reason } = msg;
      const results: CounselorPsapResults = {
        psaps,
        // The counselor's copy always carries it (only the patient's copy has none).
        location: msg.location as ReportedLocation,
        area,
        emergency,
        patient_address: this.patientAddress,
        result_id,
        computed_at,
        data_version,
      };
      if (reason) results.reason = reason;
      safeCall(o.onPSAPResults, results);
    }
  }

  protected _onEnd(): void {
    this.patientAddress = null;
  }

  private _claims() {
    const token = this._token;
    if (!token) throw this._fail(new SdkError("invalid_options", "sessionToken is required"));
    try {
      return { token, ...decodeClaims(token) };
    } catch (err) {
      throw this._fail(err);
    }
  }

  private async _tokenCall<T>({ sessionId }: SessionRef, suffix: string): Promise<T> {
    const c = this._claims();
    const url = sessionsPath(this._api, c.pid, sessionId ?? c.sid, suffix);
    return this._request<T>("POST", url, { Authorization: `Bearer ${c.token}` }, {});
  }

  private _path(sid?: string, suffix?: string): string {
    const pid = this._opts.platformId ?? (this._token ? decodeClaims(this._token).pid : undefined);
    if (!pid) throw this._fail(new SdkError("invalid_options", "platformId is required"));
    return sessionsPath(this._api, pid, sid, suffix);
  }

  private _keyHeaders(): Record<string, string> {
    const key = this._opts.secretKey;
    if (!key) throw this._fail(new SdkError("invalid_options", "secretKey is required"));
    return { "X-API-Key": key };
  }
}
