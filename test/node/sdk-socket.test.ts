// The reconnecting socket: backoff with jitter and a cap, heartbeat, and the two ways it stops for good.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SdkError } from "../../sdk/src/core/errors.ts";
import { type ConnectionState, ReconnectingSocket, SOCKET_DEFAULTS } from "../../sdk/src/core/socket.ts";
import type { ServerMessage } from "../../sdk/src/protocol.ts";
import { FakeWebSocket, fakeFetch, flush, problem } from "./sdk-fakes.ts";

let http: ReturnType<typeof fakeFetch>;
let states: ConnectionState[];
let messages: ServerMessage[];
let stops: SdkError[];

function start(probe: () => Response | Promise<Response> = () => problem(426, "upgrade_required")) {
  http = fakeFetch([["/ws?", probe]]);
  vi.stubGlobal("fetch", http.fn);
  return new ReconnectingSocket({
    url: () => "wss://sos.test/ws?token=t",
    probeUrl: () => "https://sos.test/ws?token=t",
    onMessage: (m) => messages.push(m),
    onState: (s) => states.push(s),
    onStop: (e) => stops.push(e),
  });
}

/** Fake-time gaps between successive WebSocket constructions. */
async function gapsBetweenAttempts(count: number): Promise<number[]> {
  const times: number[] = [];
  let seen = FakeWebSocket.instances.length;
  const t0 = Date.now();
  while (times.length < count) {
    FakeWebSocket.last.serverClose(1006);
    await vi.advanceTimersByTimeAsync(10);
    while (FakeWebSocket.instances.length === seen) await vi.advanceTimersByTimeAsync(10);
    seen = FakeWebSocket.instances.length;
    times.push(Date.now() - t0);
  }
  return times.map((t, i) => t - (i ? (times[i - 1] as number) : 0));
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.stubGlobal("WebSocket", FakeWebSocket);
  FakeWebSocket.instances = [];
  states = [];
  messages = [];
  stops = [];
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("ReconnectingSocket", () => {
  it("opens, reports its state and passes on JSON messages", () => {
    start();
    FakeWebSocket.last.open();
    FakeWebSocket.last.receive({ type: "session_state", state: "active" });
    FakeWebSocket.last.receive("not json");
    FakeWebSocket.last.receive(42);
    expect(states).toEqual(["connecting", "open"]);
    expect(messages).toEqual([{ type: "session_state", state: "active" }]);
    expect(FakeWebSocket.last.url).toBe("wss://sos.test/ws?token=t");
  });

  it("backs off exponentially up to the cap, with jitter in the upper half", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.999);
    start();
    const gaps = await gapsBetweenAttempts(7);
    // 500, 1000, 2000, 4000, 8000, 10000 (cap), 10000: each plus up to 10 ms of polling.
    const caps = [500, 1000, 2000, 4000, 8000, 10_000, 10_000];
    gaps.forEach((g, i) => {
      expect(g).toBeGreaterThanOrEqual((caps[i] as number) * 0.99);
      expect(g).toBeLessThanOrEqual((caps[i] as number) + 20);
    });
  });

  it("spreads reconnects: the lowest jitter waits half the step", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0);
    start();
    const gaps = await gapsBetweenAttempts(3);
    expect(gaps.map((g) => Math.round(g / 50) * 50)).toEqual([250, 500, 1000]);
  });

  it("resets the backoff only after a connection stayed open long enough", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.999);
    start();
    await gapsBetweenAttempts(3); // now at step 4 (4000 ms)
    // A connection that opens and drops at once does not reset the counter...
    FakeWebSocket.last.open();
    await vi.advanceTimersByTimeAsync(1000);
    let gaps = await gapsBetweenAttempts(1);
    expect(gaps[0]).toBeGreaterThanOrEqual(3990);
    // ...one that stayed open past stableAfter does.
    FakeWebSocket.last.open();
    await vi.advanceTimersByTimeAsync(SOCKET_DEFAULTS.stableAfter + 10);
    gaps = await gapsBetweenAttempts(1);
    expect(gaps[0]).toBeLessThanOrEqual(520);
  });

  it("abandons a connection that does not open in time and tries again", async () => {
    start();
    const first = FakeWebSocket.last;
    await vi.advanceTimersByTimeAsync(SOCKET_DEFAULTS.connectTimeout + SOCKET_DEFAULTS.maxDelay);
    expect(first.closedWith).toBe(1000);
    expect(FakeWebSocket.instances.length).toBeGreaterThan(1);
    expect(states).toContain("reconnecting");
  });

  it("sends a ping when idle and reconnects when no pong comes", async () => {
    start();
    const ws = FakeWebSocket.last;
    ws.open();
    await vi.advanceTimersByTimeAsync(SOCKET_DEFAULTS.pingInterval);
    expect(ws.sent).toEqual(["ping"]);
    ws.receive("pong");
    await vi.advanceTimersByTimeAsync(SOCKET_DEFAULTS.pongTimeout + 1);
    expect(FakeWebSocket.instances).toHaveLength(1); // answered: still the same socket
    await vi.advanceTimersByTimeAsync(SOCKET_DEFAULTS.pingInterval - SOCKET_DEFAULTS.pongTimeout);
    expect(ws.sent).toEqual(["ping", "ping"]);
    await vi.advanceTimersByTimeAsync(SOCKET_DEFAULTS.pongTimeout + SOCKET_DEFAULTS.maxDelay);
    expect(ws.closedWith).toBe(1000);
    expect(FakeWebSocket.instances.length).toBe(2);
    expect(messages).toEqual([]); // "pong" is not a message
  });

  it("reconnects after a drop when the probe says the session is live (426)", async () => {
    start();
    FakeWebSocket.last.open();
    FakeWebSocket.last.serverClose(1012); // a deploy
    await vi.advanceTimersByTimeAsync(SOCKET_DEFAULTS.maxDelay);
    expect(http.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["GET https://sos.test/ws?token=t"]);
    expect(FakeWebSocket.instances).toHaveLength(2);
    FakeWebSocket.last.open();
    expect(states).toEqual(["connecting", "open", "reconnecting", "open"]);
    expect(stops).toEqual([]);
  });

  it("keeps trying while the probe cannot reach the service (offline)", async () => {
    start(() => {
      throw new TypeError("Failed to fetch");
    });
    FakeWebSocket.last.serverClose(1006);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(FakeWebSocket.instances.length).toBeGreaterThan(4);
    expect(stops).toEqual([]);
  });

  it("never reconnects after close code 4000 (session over)", async () => {
    start();
    FakeWebSocket.last.open();
    FakeWebSocket.last.serverClose(4000, "session ended");
    await vi.advanceTimersByTimeAsync(120_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(http.requests).toHaveLength(0);
    expect(stops.map((e) => e.code)).toEqual(["session_over"]);
    expect(states.at(-1)).toBe("closed");
  });

  it.each([
    [401, "invalid_token"],
    [410, "session_ended"],
    [410, "session_expired"],
  ])("stops for good when the probe answers %i %s", async (status, code) => {
    start(() => problem(status, code));
    FakeWebSocket.last.serverClose(1006);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(http.requests).toHaveLength(1);
    expect(stops).toHaveLength(1);
    expect(stops[0]).toMatchObject({ name: "ApiError", status, code });
    expect(states).toEqual(["connecting", "reconnecting", "closed"]);
  });

  it("does not reconnect after close(), and close() is idempotent", async () => {
    const s = start();
    FakeWebSocket.last.open();
    s.close();
    s.close();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(FakeWebSocket.last.closedWith).toBe(1000);
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(states).toEqual(["connecting", "open", "closed"]);
  });

  it("reconnects at once when the browser reports the network is back", async () => {
    const win = new EventTarget();
    vi.stubGlobal("window", win);
    vi.spyOn(Math, "random").mockReturnValue(0.999);
    start();
    await gapsBetweenAttempts(4); // the next wait is 8 s
    FakeWebSocket.last.serverClose(1006);
    await vi.advanceTimersByTimeAsync(100);
    expect(FakeWebSocket.instances).toHaveLength(5);
    win.dispatchEvent(new Event("online"));
    expect(FakeWebSocket.instances).toHaveLength(6);
  });

  it("checks an open link at once when the page becomes visible again", async () => {
    const doc = Object.assign(new EventTarget(), { hidden: false });
    vi.stubGlobal("document", doc);
    start();
    const ws = FakeWebSocket.last;
    ws.open();
    doc.dispatchEvent(new Event("visibilitychange"));
    expect(ws.sent).toEqual(["ping"]);
    await vi.advanceTimersByTimeAsync(SOCKET_DEFAULTS.pongTimeout + SOCKET_DEFAULTS.maxDelay);
    expect(ws.closedWith).toBe(1000); // no pong: treated as dead, replaced
    expect(FakeWebSocket.instances).toHaveLength(2);
  });

  it("stops listening to the page once closed", () => {
    const win = new EventTarget();
    vi.stubGlobal("window", win);
    const s = start();
    s.close();
    win.dispatchEvent(new Event("online"));
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it("does not reconnect when closed while the probe is in flight", async () => {
    let answer: (r: Response) => void = () => {};
    const s = start(() => new Promise<Response>((resolve) => (answer = resolve)));
    FakeWebSocket.last.serverClose(1006);
    await flush();
    s.close();
    answer(problem(426, "upgrade_required"));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it("aborts a probe in flight when closed: no request and no timer outlives close()", async () => {
    let signal: AbortSignal | undefined;
    const s = start();
    vi.stubGlobal(
      "fetch",
      vi.fn((_url: string, init: RequestInit = {}) => {
        signal = init.signal ?? undefined;
        // A probe that never answers by itself (a network that swallows it).
        return new Promise<Response>((_resolve, reject) =>
          signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
        );
      }),
    );
    FakeWebSocket.last.serverClose(1006);
    await flush();
    expect(signal?.aborted).toBe(false);
    s.close();
    await flush();
    expect(signal?.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it("holds no timer once the session is over (close code 4000)", async () => {
    start();
    FakeWebSocket.last.open();
    expect(vi.getTimerCount()).toBeGreaterThan(0); // the heartbeat
    FakeWebSocket.last.serverClose(4000, "session ended");
    expect(vi.getTimerCount()).toBe(0);
  });
});
