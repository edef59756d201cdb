// Test doubles for the browser SDKs: WebSocket, fetch, geolocation, sessionStorage and session tokens.
import { vi } from "vitest";

/** A WebSocket the test drives by hand: `open()`, `receive(msg)`, `serverClose(code)`. */
export class FakeWebSocket {
  static instances: FakeWebSocket[] = [];
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;

  readonly url: string;
  readyState = 0;
  sent: string[] = [];
  closedWith: number | undefined;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;

  constructor(url: string) {
    this.url = url;
    FakeWebSocket.instances.push(this);
  }

  static get last(): FakeWebSocket {
    const ws = FakeWebSocket.instances.at(-1);
    if (!ws) throw new Error("no WebSocket was opened");
    return ws;
  }

  send(data: string): void {
    this.sent.push(data);
  }

  close(code = 1005): void {
    this.closedWith = code;
    this.readyState = 3;
  }

  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }

  receive(msg: unknown): void {
    this.onmessage?.({ data: typeof msg === "string" ? msg : JSON.stringify(msg) });
  }

  serverClose(code: number, reason = ""): void {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

type Handler = (req: SeenRequest) => Response | Promise<Response>;

/**
 * A fetch that records every request and answers with the first route whose pattern is in the URL
 * (and method, when given). The `/ws` probe answers 426 (a live session) unless a route says otherwise.
 */
export function fakeFetch(routes: [string, Handler][] = []) {
  const requests: SeenRequest[] = [];
  const fn = vi.fn(async (input: string | URL | Request, init: RequestInit = {}) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const req: SeenRequest = {
      method: init.method ?? "GET",
      url: String(input),
      headers,
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
    };
    requests.push(req);
    for (const [pattern, handler] of routes) {
      const [method, path] = pattern.includes(" ") ? pattern.split(" ") : [undefined, pattern];
      if ((!method || method === req.method) && path && req.url.includes(path)) return handler(req);
    }
    if (req.url.includes("/ws?")) return problem(426, "upgrade_required");
    return problem(404, "not_found");
  });
  return { fn, requests };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

export function problem(status: number, code: string, headers: Record<string, string> = {}): Response {
  return new Response(
    JSON.stringify({
      type: `https://sos.test/errors/${code}`,
      title: code,
      status,
      detail: `detail of ${code}`,
      code,
    }),
    { status, headers: { "Content-Type": "application/problem+json", ...headers } },
  );
}

/** A `Storage` that also remembers every value ever written to it. */
export class FakeStorage {
  private map = new Map<string, string>();
  written: string[] = [];
  get length(): number {
    return this.map.size;
  }
  key(i: number): string | null {
    return [...this.map.keys()][i] ?? null;
  }
  getItem(k: string): string | null {
    return this.map.get(k) ?? null;
  }
  setItem(k: string, v: string): void {
    this.written.push(`${k}=${v}`);
    this.map.set(k, String(v));
  }
  removeItem(k: string): void {
    this.map.delete(k);
  }
  clear(): void {
    this.map.clear();
  }
}

/** `navigator.geolocation` driven by the test: `fix(lat, lon, accuracy)`, `fail(code)`. */
export class FakeGeolocation {
  watches = new Map<number, { ok: PositionCallback; err?: PositionErrorCallback | null }>();
  options: PositionOptions | undefined;
  private next = 1;

  watchPosition(ok: PositionCallback, err?: PositionErrorCallback | null, options?: PositionOptions): number {
    this.options = options;
    const id = this.next++;
    this.watches.set(id, { ok, err });
    return id;
  }

  clearWatch(id: number): void {
    this.watches.delete(id);
  }

  getCurrentPosition(): void {
    throw new Error("the SDK should watch, not poll");
  }

  fix(latitude: number, longitude: number, accuracy = 10): void {
    const coords = { latitude, longitude, accuracy } as GeolocationCoordinates;
    for (const w of this.watches.values()) w.ok({ coords, timestamp: Date.now() } as GeolocationPosition);
  }

  fail(code: 1 | 2 | 3, message = "denied by test"): void {
    const err = { code, message, PERMISSION_DENIED: 1, POSITION_UNAVAILABLE: 2, TIMEOUT: 3 };
    for (const w of this.watches.values()) w.err?.(err as GeolocationPositionError);
  }
}

const b64url = (s: string) => Buffer.from(s).toString("base64url");

/** An unsigned token with the service's claims (the SDK only reads them). */
export function makeToken(aud: "patient" | "counselor", sid = "sess-1", pid = "plt_test"): string {
  const claims = { iss: "https://sos.test", aud, sub: `${aud}-1`, sid, pid, iat: 1, exp: 4e9, jti: "j" };
  return `${b64url(JSON.stringify({ alg: "EdDSA", kid: "k1" }))}.${b64url(JSON.stringify(claims))}.sig`;
}

/** Installs the fakes as globals, with fake timers; returns them for the test to drive. */
export function installBrowserFakes(routes: [string, Handler][] = []) {
  vi.useFakeTimers();
  FakeWebSocket.instances = [];
  const http = fakeFetch(routes);
  const storage = new FakeStorage();
  const geo = new FakeGeolocation();
  vi.stubGlobal("WebSocket", FakeWebSocket);
  vi.stubGlobal("fetch", http.fn);
  vi.stubGlobal("sessionStorage", storage);
  vi.stubGlobal("navigator", { geolocation: geo });
  return { http, storage, geo };
}

export function restoreBrowserFakes(): void {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
}

/** Lets pending promise callbacks (fetch answers, JSON bodies) run. */
export async function flush(): Promise<void> {
  await vi.advanceTimersByTimeAsync(0);
}
