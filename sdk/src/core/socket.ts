// A WebSocket that reconnects with capped, jittered backoff and knows when to stop for good.
import { CLOSE_SESSION_OVER, HEARTBEAT_PING, HEARTBEAT_PONG, type ServerMessage } from "../protocol.ts";
import { type ApiError, SdkError } from "./errors.ts";
import { problemError } from "./http.ts";

/** Connection state as `onStateChange` reports it. */
export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed";

/** Timings, in milliseconds. */
export const SOCKET_DEFAULTS = {
  /** First reconnect delay; doubles per failure up to `maxDelay`, each randomised to 50..100 %. */
  minDelay: 500,
  maxDelay: 10_000,
  /** A socket that does not open within this is abandoned and retried. */
  connectTimeout: 10_000,
  /** The backoff restarts from `minDelay` only after a connection stayed open this long. */
  stableAfter: 5_000,
  /** A `ping` goes out after this long without a frame; none within `pongTimeout` means a dead link. */
  pingInterval: 20_000,
  pongTimeout: 10_000,
};

export interface SocketOptions {
  /** `{ws}/ws?token=...`, read again before each attempt. */
  url: () => string;
  /** `{api}/ws?token=...`: a plain GET that answers 401/410 (stop) or 426 (live session). */
  probeUrl: () => string;
  onMessage: (msg: ServerMessage) => void;
  onState: (state: ConnectionState) => void;
  /** The socket stopped for good: the session is over (close 4000) or the probe said 401/410. */
  onStop: (err: ApiError | SdkError) => void;
}

/** Node's diagnostics channels (browsers have no `process`). */
interface Channels {
  subscribe(name: string, fn: (message: never) => void): void;
  unsubscribe(name: string, fn: (message: never) => void): void;
}
/** undici's channel for each request it writes, with the TCP socket it goes out on (documented by undici). */
const SENT = "undici:client:sendHeaders";
const channels = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => Channels | undefined } }
).process?.getBuiltinModule?.("node:diagnostics_channel");

/**
 * Node only: finds the TCP socket that carries `ws` (the upgrade request's) and returns a function that
 * lets go of it: unref, so that it no longer keeps Node alive. After a server's close frame, Node's
 * WebSocket waits for the server to end the TCP connection (`wrangler dev`'s workerd takes 10 s), and
 * that wait would hold the process; the close handshake itself still ends normally.
 */
function tcpOf(ws: WebSocket): () => void {
  if (!channels) return () => {};
  let tcp: { unref(): void } | undefined;
  const sent = ({
    request,
    socket,
  }: {
    request: { upgrade?: unknown; path: string };
    socket: typeof tcp;
  }) => {
    if (request.upgrade && ws.url.endsWith(request.path)) {
      tcp = socket;
      channels.unsubscribe(SENT, sent);
    }
  };
  channels.subscribe(SENT, sent);
  return () => {
    channels.unsubscribe(SENT, sent);
    tcp?.unref();
  };
}

export class ReconnectingSocket {
  private _ws: WebSocket | null = null;
  /** Lets go of the current WebSocket's TCP connection (Node), once it is dropped. */
  private _release = () => {};
  /** The probe in flight, if any: aborted by close() so that no request or timer outlives it. */
  private _probing: AbortController | undefined;
  /** Failed attempts since the last stable connection: the backoff exponent. */
  private _failures = 0;
  private _openedAt = 0;
  /** The one pending clock: connect timeout, heartbeat, or reconnect wait. */
  private _timer: ReturnType<typeof setTimeout> | undefined;
  private _waiting = false;
  private _done = false;
  private _opts: SocketOptions;
  /**
   * The network is back or the page is visible again (a phone waking up): reconnect now instead of
   * at the end of the wait, or check an open link at once instead of at the next ping.
   */
  private _wake = () => {
    if (typeof document === "object" && document.hidden) return;
    if (this._waiting) this._connect();
    else if (this._ws?.readyState === 1) this._ping();
  };

  constructor(opts: SocketOptions) {
    this._opts = opts;
    this._listen(true);
    opts.onState("connecting");
    this._connect();
  }

  /** Closes for good (no reconnect) and reports `closed`. Safe to call more than once. */
  close(): void {
    if (this._done) return;
    this._done = true;
    this._probing?.abort();
    this._drop();
    this._listen(false);
    this._opts.onState("closed");
  }

  private _listen(on: boolean): void {
    const method = on ? "addEventListener" : "removeEventListener";
    if (typeof window === "object") window[method]("online", this._wake);
    if (typeof document === "object") document[method]("visibilitychange", this._wake);
  }

  private _after(ms: number, fn: () => void): void {
    clearTimeout(this._timer);
    this._timer = setTimeout(fn, ms);
  }

  /** Detaches and closes the current socket, and stops the clock. */
  private _drop(): void {
    clearTimeout(this._timer);
    this._waiting = false;
    const ws = this._ws;
    this._ws = null;
    if (!ws) return;
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
    try {
      ws.close(1000);
    } catch {
      // already closed
    }
    this._release();
  }

  private _connect(): void {
    if (this._done) return;
    this._drop();
    let ws: WebSocket;
    try {
      ws = new WebSocket(this._opts.url());
      this._release = tcpOf(ws);
    } catch (err) {
      this._opts.onStop(new SdkError("invalid_url", "the WebSocket address is not valid", err));
      this.close();
      return;
    }
    this._ws = ws;
    this._after(SOCKET_DEFAULTS.connectTimeout, () => this._lost());
    ws.onopen = () => {
      this._openedAt = Date.now();
      this._opts.onState("open");
      this._heartbeat();
    };
    ws.onmessage = (ev: MessageEvent) => {
      this._heartbeat();
      if (ev.data === HEARTBEAT_PONG) return;
      let msg: unknown;
      try {
        msg = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      if (msg && typeof msg === "object" && "type" in msg) this._opts.onMessage(msg as ServerMessage);
    };
    ws.onclose = (ev: CloseEvent) => {
      if (ev.code !== CLOSE_SESSION_OVER) return void this._lost();
      this._opts.onStop(new SdkError("session_over", ev.reason || "the session is over"));
      this.close();
    };
  }

  /** Any frame proves the link alive: restart the ping clock, then expect an answer to the ping. */
  private _heartbeat(): void {
    this._after(SOCKET_DEFAULTS.pingInterval, () => this._ping());
  }

  private _ping(): void {
    try {
      this._ws?.send(HEARTBEAT_PING);
    } catch {
      // closing: onclose follows
    }
    this._after(SOCKET_DEFAULTS.pongTimeout, () => this._lost());
  }

  /** The link failed or died: ask the probe whether to come back, then wait and reconnect. */
  private async _lost(): Promise<void> {
    if (this._openedAt && Date.now() - this._openedAt >= SOCKET_DEFAULTS.stableAfter) this._failures = 0;
    this._openedAt = 0;
    this._drop();
    this._opts.onState("reconnecting");
    const stop = await this._probe();
    if (this._done) return;
    if (stop) {
      this._opts.onStop(stop);
      this.close();
      return;
    }
    const cap = Math.min(SOCKET_DEFAULTS.maxDelay, SOCKET_DEFAULTS.minDelay * 2 ** this._failures++);
    this._waiting = true;
    this._after(cap / 2 + (Math.random() * cap) / 2, () => this._connect());
  }

  /** The browser hides why an upgrade failed, so ask plainly: 401 or 410 means stop for good. */
  private async _probe(): Promise<ApiError | null> {
    const ctl = new AbortController();
    this._probing = ctl;
    const timer = setTimeout(() => ctl.abort(), SOCKET_DEFAULTS.connectTimeout);
    try {
      const res = await fetch(this._opts.probeUrl(), { signal: ctl.signal });
      if (res.status === 401 || res.status === 410) {
        return problemError(res.status, await res.json().catch(() => undefined));
      }
    } catch {
      // offline, refused or too slow: keep trying
    } finally {
      clearTimeout(timer);
    }
    return null;
  }
}
