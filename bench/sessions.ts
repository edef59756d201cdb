// Black-box clients for the e2e and load benchmarks: platforms, sessions, sockets with an inbox, the
// SOS loop and its floor, and a ledger of every message a socket should receive.
import type {
  ServerMessage,
  ServerMessageType,
  SessionCreateRequest,
  SessionCreateResponse,
} from "../sdk/src/protocol.ts";
import type { QueryPoint } from "./synthetic.ts";

export interface Platform {
  platform_id: string;
  api_key: string;
}

export interface Target {
  baseUrl: string;
  wsUrl: string;
  adminToken: string;
}

/** Runs `fn` over `items` with at most `limit` in flight; results in order. */
export async function pool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** POST JSON, retrying a 429 after its Retry-After (bounded), and failing loudly on anything else. */
export async function postJson<T>(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  expect: readonly number[] = [200, 201, 202],
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status === 429 && attempt < 5) {
      await sleep(Math.min(Number(res.headers.get("Retry-After") ?? "1"), 10) * 1000);
      continue;
    }
    if (!expect.includes(res.status))
      throw new Error(`POST ${new URL(url).pathname}: ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  }
}

export async function createPlatforms(target: Target, count: number): Promise<Platform[]> {
  return pool(Array.from({ length: count }), 4, (_, i) =>
    postJson<Platform>(
      `${target.baseUrl}/v1/admin/platforms`,
      { name: `Bench platform ${i + 1}` },
      { Authorization: `Bearer ${target.adminToken}` },
    ),
  );
}

/**
 * `count` sessions spread round-robin over the platforms (each key stays under its rate limit);
 * `settings` are the create call's optional fields every one of them gets (the location check).
 */
export async function createSessions(
  target: Target,
  platforms: readonly Platform[],
  count: number,
  concurrency = 16,
  settings: Pick<SessionCreateRequest, "location_check"> = {},
): Promise<SessionCreateResponse[]> {
  return pool(Array.from({ length: count }), concurrency, (_, i) => {
    const p = platforms[i % platforms.length] as Platform;
    return postJson<SessionCreateResponse>(
      `${target.baseUrl}/v1/platforms/${p.platform_id}/sessions`,
      {
        meeting_id: `bench-meeting-${i}`,
        counselor_id: `bench-counselor-${i}`,
        patient_id: `bench-patient-${i}`,
        ...settings,
      },
      { "X-API-Key": p.api_key },
    );
  });
}

/** A client socket that counts what it receives and lets callers wait for a count of a type. */
export class BenchSocket {
  readonly ws: WebSocket;
  readonly counts = new Map<string, number>();
  /** When the latest message of each type arrived (performance.now(), taken in the event handler). */
  readonly arrivedAt = new Map<string, number>();
  /** Messages this socket should have received by now (kept by the caller's actions). */
  readonly expected = new Map<ServerMessageType, number>();
  closed = false;
  #waiters = new Set<() => void>();

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.addEventListener("message", (event) => {
      const at = performance.now();
      const text = typeof event.data === "string" ? event.data : "";
      let type = "non-json";
      if (text.startsWith("{")) {
        try {
          type = (JSON.parse(text) as ServerMessage).type;
        } catch {
          type = "bad-json";
        }
      }
      this.counts.set(type, (this.counts.get(type) ?? 0) + 1);
      this.arrivedAt.set(type, at);
      for (const wake of this.#waiters) wake();
    });
    ws.addEventListener("close", () => {
      this.closed = true;
      for (const wake of this.#waiters) wake();
    });
  }

  static open(url: string, timeoutMs = 30_000): Promise<BenchSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const socket = new BenchSocket(ws);
      const timer = setTimeout(() => {
        ws.close();
        reject(new Error("socket open timed out"));
      }, timeoutMs);
      ws.addEventListener("open", () => {
        clearTimeout(timer);
        resolve(socket);
      });
      ws.addEventListener("error", () => {
        clearTimeout(timer);
        reject(new Error("socket refused"));
      });
    });
  }

  count(type: ServerMessageType): number {
    return this.counts.get(type) ?? 0;
  }

  expect(type: ServerMessageType, more = 1): number {
    const n = (this.expected.get(type) ?? 0) + more;
    this.expected.set(type, n);
    return n;
  }

  /** Resolves true once `count` messages of `type` have arrived, false on timeout or close. */
  waitFor(type: ServerMessageType, count: number, timeoutMs: number): Promise<boolean> {
    if (this.count(type) >= count) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(ok);
      };
      const check = () => {
        if (this.count(type) >= count) done(true);
        else if (this.closed) done(false);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      this.#waiters.add(check);
    });
  }

  /** Expected messages that have not arrived. */
  missing(): number {
    let n = 0;
    for (const [type, want] of this.expected) n += Math.max(0, want - this.count(type));
    return n;
  }

  close(): void {
    try {
      this.ws.close(1000, "bench done");
    } catch {
      // already closed
    }
  }
}

export interface LiveSession {
  session: SessionCreateResponse;
  patient: BenchSocket;
  counselor: BenchSocket;
}

/** Opens the patient and counselor sockets and waits for each one's `session_state`. */
export async function connect(
  target: Target,
  session: SessionCreateResponse,
  timeoutMs = 30_000,
): Promise<LiveSession> {
  const url = (token: string) => `${target.wsUrl}/ws?token=${encodeURIComponent(token)}`;
  const [patient, counselor] = await Promise.all([
    BenchSocket.open(url(session.patient_token), timeoutMs),
    BenchSocket.open(url(session.counselor_token), timeoutMs),
  ]);
  const live = { session, patient, counselor };
  for (const s of [patient, counselor]) s.expect("session_state");
  const ok = await Promise.all([patient, counselor].map((s) => s.waitFor("session_state", 1, timeoutMs)));
  if (!ok.every(Boolean)) throw new Error("no session_state on connect");
  return live;
}

export function sessionUrl(target: Target, s: SessionCreateResponse, suffix: string): string {
  return `${target.baseUrl}/v1/platforms/${s.platform_id}/sessions/${s.session_id}${suffix}`;
}

export interface LoopOutcome {
  ms: number;
  ok: boolean;
  error?: string;
}

/** The two ends of a loop: who triggers, where the location is posted, which sockets see what. */
interface LoopRoute {
  patient: BenchSocket;
  counselor: BenchSocket;
  trigger(): Promise<unknown>;
  submit(): Promise<unknown>;
  /** Messages the trigger sends to both sockets besides `location_request` (the real loop: session_state). */
  triggerBroadcast: ServerMessageType[];
}

/**
 * One loop, timed from the trigger's start to the arrival of `psap_results` at the later of the two
 * sockets. The location is posted when `location_request` reaches the patient socket (as the SDK
 * does), whether or not the trigger's own response is back yet.
 */
async function timedLoop(route: LoopRoute, timeoutMs: number): Promise<LoopOutcome> {
  const { patient, counselor } = route;
  for (const type of route.triggerBroadcast) for (const s of [patient, counselor]) s.expect(type);
  const wantRequest = patient.expect("location_request");
  const wantP = patient.expect("psap_results");
  const wantC = counselor.expect("psap_results");
  const started = performance.now();
  try {
    const trigger = route.trigger();
    const located = patient.waitFor("location_request", wantRequest, timeoutMs).then((ok) => {
      if (!ok) throw new Error("no location_request");
      return route.submit();
    });
    const [, , okP, okC] = await Promise.all([
      trigger,
      located,
      patient.waitFor("psap_results", wantP, timeoutMs),
      counselor.waitFor("psap_results", wantC, timeoutMs),
    ]);
    if (!(okP && okC)) return { ms: performance.now() - started, ok: false, error: "no psap_results" };
    const end = Math.max(
      patient.arrivedAt.get("psap_results") ?? 0,
      counselor.arrivedAt.get("psap_results") ?? 0,
    );
    return { ms: end - started, ok: true };
  } catch (err) {
    return { ms: performance.now() - started, ok: false, error: (err as Error).message };
  }
}

/** One SOS loop: the counselor's trigger, `location_request`, the location, `psap_results` at both. */
export function sosLoop(
  target: Target,
  live: LiveSession,
  fix: QueryPoint,
  timeoutMs: number,
): Promise<LoopOutcome> {
  const { session } = live;
  return timedLoop(
    {
      patient: live.patient,
      counselor: live.counselor,
      triggerBroadcast: ["session_state"],
      trigger: () =>
        postJson(
          sessionUrl(target, session, "/sos"),
          {},
          { Authorization: `Bearer ${session.counselor_token}` },
        ),
      submit: () =>
        postJson(
          sessionUrl(target, session, "/sos/location"),
          { latitude: fix.latitude, longitude: fix.longitude, accuracy: fix.accuracy },
          { Authorization: `Bearer ${session.patient_token}` },
        ),
    },
    timeoutMs,
  );
}

/** A pair of sockets on the floor object (bench/floor/worker.ts). */
export interface FloorSession {
  id: string;
  patient: BenchSocket;
  counselor: BenchSocket;
}

export async function connectFloor(target: Target, id: string, timeoutMs = 30_000): Promise<FloorSession> {
  const url = (role: string) => `${target.wsUrl}/__floor/ws?id=${encodeURIComponent(id)}&role=${role}`;
  const [patient, counselor] = await Promise.all([
    BenchSocket.open(url("patient"), timeoutMs),
    BenchSocket.open(url("counselor"), timeoutMs),
  ]);
  return { id, patient, counselor };
}

/**
 * The floor: the same loop, with the same client work, through the trivial object; `durable`, with one
 * storage write per request in the object, right after its pushes (where the session object writes).
 */
export function floorLoop(
  target: Target,
  floor: FloorSession,
  fix: QueryPoint,
  timeoutMs: number,
  durable = false,
): Promise<LoopOutcome> {
  const base = `${target.baseUrl}/__floor/sessions/${encodeURIComponent(floor.id)}`;
  const query = durable ? "?durable=1" : "";
  return timedLoop(
    {
      patient: floor.patient,
      counselor: floor.counselor,
      triggerBroadcast: [],
      trigger: () => postJson(`${base}/trigger${query}`, {}, {}),
      submit: () =>
        postJson(
          `${base}/location${query}`,
          { latitude: fix.latitude, longitude: fix.longitude, accuracy: fix.accuracy },
          {},
        ),
    },
    timeoutMs,
  );
}

/** Cancels the SOS (back to `active`, so the next loop starts one again). */
export async function cancelSos(target: Target, live: LiveSession): Promise<void> {
  for (const s of [live.patient, live.counselor]) s.expect("session_state");
  await postJson(
    sessionUrl(target, live.session, "/sos/cancel"),
    {},
    {
      Authorization: `Bearer ${live.session.counselor_token}`,
    },
  );
}

/** Waits (bounded) for late messages, then counts every expected message that never came. */
export async function lostMessages(
  lives: readonly { patient: BenchSocket; counselor: BenchSocket }[],
  graceMs = 3_000,
): Promise<number> {
  const deadline = Date.now() + graceMs;
  const sockets = lives.flatMap((l) => [l.patient, l.counselor]);
  while (Date.now() < deadline && sockets.some((s) => s.missing() > 0)) await sleep(100);
  return sockets.reduce((n, s) => n + s.missing(), 0);
}

export function closeAll(lives: readonly { patient: BenchSocket; counselor: BenchSocket }[]): void {
  for (const l of lives) {
    l.patient.close();
    l.counselor.close();
  }
}

/** Round trips of a trivial request (the JWKS), sequentially, until `until()` says stop (bounded). */
export async function trivialRtts(
  target: Target,
  until: () => boolean,
  gapMs = 20,
  max = 2_000,
): Promise<number[]> {
  const out: number[] = [];
  while (!until() && out.length < max) {
    const t = performance.now();
    const res = await fetch(`${target.baseUrl}/.well-known/jwks.json`);
    await res.arrayBuffer();
    if (res.status === 200) out.push(performance.now() - t);
    await sleep(gapMs);
  }
  return out;
}
