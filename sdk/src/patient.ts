// Patient SDK: keeps a private live fix, answers the service's location requests (for an SOS, or the
// session's location check), delivers PSAPs.
import { safeCall } from "./core/callbacks.ts";
import { type ClientOptions, SessionClient } from "./core/client.ts";
import { type ApiError, GeolocationError, SdkError } from "./core/errors.ts";
import { requestJson } from "./core/http.ts";
import { decodeClaims } from "./core/jwt.ts";
import { sessionsPath } from "./core/urls.ts";
import type {
  EmergencyNumbers,
  LocationAnswer,
  LocationFix,
  LocationSubmission,
  LocationUnavailableReason,
  PsapRecord,
  PsapResultsBody,
  ServerMessage,
} from "./protocol.ts";

export type { ApiErrorCode } from "./core/errors.ts";
export { ApiError, GeolocationError, RateLimitError, SdkError } from "./core/errors.ts";
export type { ConnectionState } from "./core/socket.ts";
export type * from "./protocol.ts";

export interface PatientSDKOptions extends ClientOptions {
  /** The patient JWT. When absent, the one this tab kept in `sessionStorage` is used (a reload). */
  token?: string;
  /** The nearest PSAPs, best first (empty when none is within reach: call 911). */
  onPSAPResults?: (psaps: PsapRecord[]) => void;
  /**
   * What the patient (or someone with them) can dial where they are, first number first: with every
   * result, also when `psaps` is empty (a patient abroad gets their country's numbers).
   */
  onEmergencyNumbers?: (emergency: EmergencyNumbers) => void;
}

/** The `sessionStorage` key; its value holds the token and the session identifiers, nothing else. */
export const STORAGE_KEY = "sos-sdk:patient";

/** A location request waits this long for a first fix before answering `unavailable`. */
const FIRST_FIX_WAIT_MS = 10_000;
/** While in `sos`, a new fix is sent again when it moved this far... */
const RESUBMIT_METRES = 100;
/** ...or its accuracy halved, but no more often than this. */
const RESUBMIT_INTERVAL_MS = 10_000;

const GEO_REASONS: Record<number, LocationUnavailableReason> = {
  1: "permission_denied",
  2: "position_unavailable",
  3: "timeout",
};

type Fix = Required<LocationFix>;

/**
 * Coordinates live only here, out of reach of the instance's properties: the latest fix and the
 * last one sent. Never in storage, a URL, a log or an error.
 */
const fixes = new WeakMap<PatientSDK, { fix?: Fix; sent?: Fix }>();

/** Great-circle distance in metres. */
function metres(a: Fix, b: Fix): number {
  const r = Math.PI / 180;
  const h =
    Math.sin(((b.latitude - a.latitude) * r) / 2) ** 2 +
    Math.cos(a.latitude * r) *
      Math.cos(b.latitude * r) *
      Math.sin(((b.longitude - a.longitude) * r) / 2) ** 2;
  return 12_742_018 * Math.asin(Math.sqrt(Math.min(1, h)));
}

/** The token this tab kept, if any. */
function storedToken(): string | undefined {
  try {
    return JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? "{}").token;
  } catch {
    return undefined;
  }
}

export class PatientSDK extends SessionClient {
  private _opts: PatientSDKOptions;
  private _token = "";
  private _sid = "";
  private _pid = "";
  private _inSos = false;
  private _watch: number | null = null;
  private _geoError: GeolocationError | null = null;
  /** A location request is waiting for the first fix. */
  private _pending: ReturnType<typeof setTimeout> | null = null;
  private _throttle: ReturnType<typeof setTimeout> | null = null;
  private _sentAt = 0;
  private _ready: Promise<void> | null = null;
  private _destroyed = false;

  constructor(options: PatientSDKOptions) {
    super(options);
    this._opts = options;
  }

  /**
   * Reads the token, keeps it and the session identifiers in `sessionStorage`, starts watching the
   * position and opens the socket. Resolves once the socket is open (it keeps reconnecting after).
   */
  init(): Promise<void> {
    if (this._destroyed) return Promise.reject(new SdkError("destroyed", "this PatientSDK was destroyed"));
    this._ready ??= this._start();
    return this._ready;
  }

  /** Stops the watch, forgets the location, closes the socket, clears the storage. Idempotent. */
  destroy(): void {
    this._destroyed = true;
    this._onEnd();
    this._close();
  }

  private async _start(): Promise<void> {
    try {
      const token = String(this._opts.token ?? storedToken());
      const claims = decodeClaims(token);
      this._token = token;
      this._sid = claims.sid;
      this._pid = claims.pid;
      fixes.set(this, {});
      try {
        sessionStorage.setItem(
          STORAGE_KEY,
          JSON.stringify({ token, session_id: claims.sid, platform_id: claims.pid }),
        );
      } catch {
        // storage disabled: a reload will need the token again
      }
      this._watchStart();
      await this._open(token);
    } catch (err) {
      throw this._fail(err);
    }
  }

  private _watchStart(): void {
    const geo = typeof navigator === "object" ? navigator.geolocation : undefined;
    if (this._watch !== null) geo?.clearWatch(this._watch);
    this._watch = null;
    if (geo) {
      this._watch = geo.watchPosition(
        (p) => this._onFix(p.coords, p.timestamp),
        (e) => this._onGeoError(e),
        { enableHighAccuracy: true, maximumAge: 10_000 },
      );
    } else this._onGeoError({ code: 2, message: "geolocation is not available here" });
  }

  private _onFix(c: GeolocationCoordinates, timestamp: number): void {
    const store = fixes.get(this);
    if (!store || this._over) return;
    const fix: Fix = { latitude: c.latitude, longitude: c.longitude, accuracy: c.accuracy, timestamp };
    store.fix = fix;
    this._geoError = null;
    // Outside an SOS only a request waiting for its first fix (the location check) is answered.
    if (!this._inSos && !this._pending) return;
    const sent = store.sent;
    if (this._pending || !sent) this._submit();
    else if (metres(sent, fix) >= RESUBMIT_METRES || fix.accuracy <= sent.accuracy / 2) {
      this._throttle ??= setTimeout(
        () => {
          this._throttle = null;
          if (this._inSos) this._submit();
        },
        Math.max(0, this._sentAt + RESUBMIT_INTERVAL_MS - Date.now()),
      );
    }
  }

  private _onGeoError(e: { code: number; message: string }): void {
    const reason = GEO_REASONS[e.code] ?? "position_unavailable";
    const known = this._geoError?.code === reason;
    this._geoError = new GeolocationError(reason, e.message);
    if (!known) this._fail(this._geoError);
    if (this._pending) void this._send({ unavailable: reason });
  }

  protected _onMessage(msg: ServerMessage): void {
    if (msg.type === "session_state") {
      this._inSos = msg.state === "sos";
      if (!this._inSos) this._reset();
    } else if (msg.type === "location_request") {
      // The check is answered once, at `.../location-check`; an SOS request (or one without a purpose) starts the SOS's.
      if (msg.purpose !== "check") this._inSos = true;
      if (fixes.get(this)?.fix) this._submit();
      else if (this._geoError) {
        // Tell the counselor now; a fix that comes later is still sent at once.
        const reason = this._geoError.code;
        // The person may have allowed location since: ask the browser again.
        if (reason === "permission_denied") this._watchStart();
        void this._send({ unavailable: reason });
      } else if (this._pending === null) {
        this._pending = setTimeout(
          () => void this._send({ unavailable: this._geoError?.code ?? "timeout" }),
          FIRST_FIX_WAIT_MS,
        );
      }
    } else if (msg.type === "psap_results") this._deliver(msg);
  }

  /** One result (deduped by the caller): what to dial first, then the PSAPs. */
  private _deliver(res: PsapResultsBody): void {
    if (res.emergency) safeCall(this._opts.onEmergencyNumbers, res.emergency);
    safeCall(this._opts.onPSAPResults, res.psaps);
  }

  /** Back to `active` (a cancel): forget what was sent and stop the clocks. */
  private _reset(): void {
    const store = fixes.get(this);
    if (store) store.sent = undefined;
    if (this._pending) clearTimeout(this._pending);
    if (this._throttle) clearTimeout(this._throttle);
    this._pending = this._throttle = null;
  }

  /** Sends the latest fix now. */
  private _submit(): void {
    const store = fixes.get(this);
    if (!store?.fix) return;
    store.sent = store.fix;
    void this._send(store.fix);
  }

  private async _send(body: LocationSubmission): Promise<void> {
    if (this._pending) clearTimeout(this._pending);
    this._pending = null;
    this._sentAt = Date.now();
    // Outside an SOS, the only request is the location check's.
    const url = sessionsPath(
      this._api,
      this._pid,
      this._sid,
      this._inSos ? "/sos/location" : "/location-check",
    );
    try {
      const res = await requestJson<LocationAnswer>(
        this._http,
        "POST",
        url,
        { Authorization: `Bearer ${this._token}` },
        body,
      );
      if (!this._over && "result_id" in res && this._fresh(res.result_id)) this._deliver(res);
    } catch (err) {
      if (this._over) return;
      // Not sent: the next fix goes out at once (and a reconnect brings a fresh location request).
      const store = fixes.get(this);
      if (store && "latitude" in body) store.sent = undefined;
      const e = err as ApiError;
      // 409: the SOS was cancelled meanwhile (or the session checks no location), nothing to tell. 410: over.
      if (e.status === 410) this._end(e.code === "session_expired" ? "expired" : "ended");
      else if (e.status !== 409) {
        this._fail(err);
        // A check our side could not take (503, no answer) records nothing: it is sent again, at most every 10 s.
        if (!this._inSos && (e.status === 503 || e.status === 0)) {
          this._throttle ??= setTimeout(() => {
            this._throttle = null;
            if (!this._inSos) this._submit();
          }, RESUBMIT_INTERVAL_MS);
        }
      }
    }
  }

  protected _onEnd(): void {
    this._over = true;
    this._reset();
    if (this._watch !== null && typeof navigator === "object") navigator.geolocation?.clearWatch(this._watch);
    this._watch = null;
    fixes.delete(this);
    try {
      sessionStorage.removeItem(STORAGE_KEY);
    } catch {
      // storage disabled: nothing was kept
    }
  }
}
