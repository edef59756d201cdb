// What both SDKs share: options, error reporting, the session socket and result dedupe.
import type { ServerMessage, SessionState } from "../protocol.ts";
import { safeCall } from "./callbacks.ts";
import { type ApiError, SdkError } from "./errors.ts";
import { type HttpOptions, requestJson } from "./http.ts";
import { type ConnectionState, ReconnectingSocket } from "./socket.ts";
import { httpBase, trimBase, wsBase } from "./urls.ts";

export interface ClientOptions {
  /** HTTP base, such as `https://sos.example.com` (the SDK adds `/v1/...`). Derived from `wsUrl` when absent. */
  apiBaseUrl?: string;
  /** WebSocket base, such as `wss://sos.example.com` or a bare host (means `wss://`). Derived from `apiBaseUrl` when absent. */
  wsUrl?: string;
  /** Retries of an HTTP 429 before `RateLimitError`; default 3. */
  maxRetryAttempts?: number;
  /** Every failure: `RateLimitError`, `ApiError`, `GeolocationError`, other `SdkError`s. */
  onError?: (err: SdkError) => void;
  /** The socket: `"connecting" | "open" | "reconnecting" | "closed"`. */
  onStateChange?: (state: ConnectionState) => void;
  /** The session: `"active" | "sos" | "ended" | "expired"`. */
  onSessionState?: (state: SessionState) => void;
}

export abstract class SessionClient {
  protected _api: string;
  protected _wsBase: string;
  protected _o: ClientOptions;
  protected _http: HttpOptions;
  protected _socket: ReconnectingSocket | null = null;
  /** The session is over (ended, expired, or the token refused): nothing more will happen. */
  protected _over = false;
  private _conn: ConnectionState | null = null;
  private _seen = new Set<string>();
  /** The session state last reported to `onSessionState`: each change is reported once. */
  private _state: SessionState | null = null;

  constructor(opts: ClientOptions) {
    const api = opts.apiBaseUrl ?? (opts.wsUrl && httpBase(opts.wsUrl));
    if (!api) throw new SdkError("invalid_options", "apiBaseUrl or wsUrl is required");
    this._o = opts;
    this._api = trimBase(api);
    this._wsBase = wsBase(opts.wsUrl ?? api);
    this._http = { maxRetryAttempts: opts.maxRetryAttempts };
  }

  /** Reports a failure to `onError` and hands it back, for `throw this._fail(err)`. */
  protected _fail(err: unknown): SdkError {
    const e = err instanceof SdkError ? err : new SdkError("internal", String(err), err);
    safeCall(this._o.onError, e);
    return e;
  }

  /** An HTTP call whose failure is both reported to `onError` and thrown. */
  protected async _request<T>(method: string, url: string, headers: Record<string, string>, body?: unknown) {
    try {
      return await requestJson<T>(this._http, method, url, headers, body);
    } catch (err) {
      throw this._fail(err);
    }
  }

  /** Opens the session socket; resolves once it is open, rejects if it stops for good first. */
  protected _open(token: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const q = `/ws?token=${encodeURIComponent(token)}`;
      this._socket?.close();
      this._socket = new ReconnectingSocket({
        url: () => this._wsBase + q,
        probeUrl: () => this._api + q,
        onMessage: (msg) => {
          if (msg.type === "session_ended") this._end(msg.reason);
          else if (msg.type === "error") this._fail(new SdkError(msg.code, msg.message));
          else if (msg.type !== "psap_results" || this._fresh(msg.result_id)) {
            // The SDK takes in the message first, so `onSessionState` sees what came with it.
            this._onMessage(msg);
            if (msg.type === "session_state") this._report(msg.state);
          }
        },
        onState: (state) => {
          // "closed" without a stop first is a deliberate close (disconnect or destroy).
          if (state === "open" || state === "closed") resolve();
          if (state === this._conn) return;
          this._conn = state;
          safeCall(this._o.onStateChange, state);
        },
        onStop: (err: ApiError | SdkError) => {
          reject(err);
          if (err.code === "session_expired") this._end("expired");
          else if (err.code === "session_ended" || err.code === "session_over") this._end("ended");
          else this._end(null, err);
        },
      });
    });
  }

  /** Closes the socket for good. Safe to call more than once. */
  protected _close(): void {
    this._socket?.close();
    this._socket = null;
  }

  /** True the first time a `result_id` is seen: each result is delivered once. */
  protected _fresh(resultId: string): boolean {
    const fresh = !this._seen.has(resultId);
    this._seen.add(resultId);
    return fresh;
  }

  /** The session is over (`state`), or the service refused the token (`err`). */
  protected _end(state: SessionState | null, err?: SdkError): void {
    if (this._over) return;
    this._over = true;
    if (err) this._fail(err);
    if (state) this._report(state);
    this._onEnd();
    // Do not wait for the service's close 4000: some stacks are slow to finish the close handshake.
    this._close();
  }

  private _report(state: SessionState): void {
    if (state === this._state) return;
    this._state = state;
    safeCall(this._o.onSessionState, state);
  }

  protected abstract _onMessage(msg: ServerMessage): void;
  protected abstract _onEnd(): void;
}
