// Issue 31's LoST latency beside the session API, on one wrangler dev and the same seeded fixes: for
// each fix, `POST /lost` (a findService with a GML Point) and the patient's `POST .../sos/location` in a
// live session under SOS (the request whose answer carries the PSAPs), one at a time. Each request is
// sent once untimed and then once timed, the two kinds taking turns at going first, so both meet the
// same moments of this shared machine and both find the fix's index entry already cached. Every timed
// pair's answers are compared: LoST's displayName must be the session answer's first PSAP.
import { RATE_LIMITS } from "../lib/config.ts";
import { disagreement, findServiceXml, readLostAnswer, readSessionAnswer } from "./lost-answers.ts";
import type { LostResult } from "./results.ts";
import {
  closeAll,
  connect,
  createPlatforms,
  createSessions,
  type LiveSession,
  type Platform,
  pool,
  postJson,
  sessionUrl,
  type Target,
} from "./sessions.ts";
import { percentiles, round } from "./stats.ts";
import { type QueryPoint, queryPoints } from "./synthetic.ts";

export interface LostPlan {
  points: number;
  seed: number;
}

export interface LostDetail {
  planned_points: number;
  /** API keys the LoST requests were spread over, and sessions the location posts were. */
  keys: number;
  sessions: number;
  /** Points where LoST answered notFound and the session API found no PSAP (outside coverage). */
  agreed_none: number;
  /** Which points disagreed and how (no coordinates), and the first errors. */
  disagreements: string[];
  errors: string[];
  ratio_p50: number;
  ratio_p99: number;
}

/** Every timed figure and check of the part. */
export interface LostTally {
  planned: number;
  lostMs: number[];
  sessionMs: number[];
  agreed: number;
  agreedNone: number;
  disagreements: string[];
  failed: number;
  errors: string[];
}

/** Requests of each kind per point: one untimed, one timed. */
const REQUESTS_PER_POINT = 2;
const REQUEST_TIMEOUT_MS = 20_000;
const LOST_TYPE = "application/lost+xml;charset=utf-8";

/**
 * How many senders (API keys, sessions) keep each one at most `limit` requests over the whole part,
 * points dealt round-robin: no window of the server's limiter can then count more, however fast the
 * machine is, so no request is refused or delayed for rate (a refused one would fail the point).
 */
export function sendersFor(points: number, perPoint: number, limit: number): number {
  const pointsPerSender = Math.floor(limit / perPoint);
  if (pointsPerSender < 1) throw new RangeError(`${perPoint} requests a point exceed the limit of ${limit}`);
  return Math.max(1, Math.ceil(points / pointsPerSender));
}

/** latest.json's figures from a tally: two decimals for the p50s the goal divides, so rounding decides nothing. */
export function lostResult(t: LostTally): LostResult {
  const l = percentiles(t.lostMs, [50, 95, 99]);
  const s = percentiles(t.sessionMs, [50, 95, 99]);
  return {
    points: t.lostMs.length,
    lost_ms_p50: round(l[50], 2),
    lost_ms_p95: round(l[95], 2),
    lost_ms_p99: round(l[99], 2),
    session_ms_p50: round(s[50], 2),
    session_ms_p95: round(s[95], 2),
    session_ms_p99: round(s[99], 2),
    agreed: t.agreed,
    disagreements: t.disagreements.length,
    failed: t.failed,
  };
}

/** The detail file's part: how the requests were spread, and every finding worth reading. */
export function lostDetail(t: LostTally, spread: { keys: number; sessions: number }): LostDetail {
  const r = lostResult(t);
  return {
    planned_points: t.planned,
    ...spread,
    agreed_none: t.agreedNone,
    disagreements: t.disagreements.slice(0, 50),
    errors: t.errors,
    ratio_p50: round(r.lost_ms_p50 / r.session_ms_p50, 3),
    ratio_p99: round(r.lost_ms_p99 / r.session_ms_p99, 3),
  };
}

export interface Timed {
  ms: number;
  status: number;
  text: string;
}

/** One request, timed from its start until its whole body is read. */
export async function timed(url: string, init: RequestInit): Promise<Timed> {
  const started = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await res.text();
  return { ms: performance.now() - started, status: res.status, text };
}

/** The two requests of one fix. */
interface Asks {
  lost: () => Promise<Timed>;
  session: () => Promise<Timed>;
}

/**
 * A GML Point carries no uncertainty, and LoST answers it with accuracy 0: the session fix is posted
 * with accuracy 0 too, so both ask the lookup exactly the same question.
 */
function asksFor(target: Target, fix: QueryPoint, i: number, key: Platform, live: LiveSession): Asks {
  const lostBody = findServiceXml(fix, `point-${i}`);
  const sessionBody = JSON.stringify({ latitude: fix.latitude, longitude: fix.longitude, accuracy: 0 });
  return {
    lost: () =>
      timed(`${target.baseUrl}/lost`, {
        method: "POST",
        headers: { "Content-Type": LOST_TYPE, "X-API-Key": key.api_key },
        body: lostBody,
      }),
    session: () =>
      timed(sessionUrl(target, live.session, "/sos/location"), {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Authorization: `Bearer ${live.session.patient_token}`,
        },
        body: sessionBody,
      }),
  };
}

type PointOutcome =
  | { lost: Timed; session: Timed; disagrees: string | null; none: boolean }
  | { failed: string };

/** Both requests in the given order. */
async function pair(asks: Asks, lostFirst: boolean): Promise<{ lost: Timed; session: Timed }> {
  if (lostFirst) {
    const lost = await asks.lost();
    return { lost, session: await asks.session() };
  }
  const session = await asks.session();
  return { lost: await asks.lost(), session };
}

/** One fix: untimed, then timed (LoST first on even points), the timed answers read and compared. */
async function timePoint(asks: Asks, i: number): Promise<PointOutcome> {
  const lostFirst = i % 2 === 0;
  try {
    const warm = await pair(asks, lostFirst);
    const done = await pair(asks, lostFirst);
    for (const [kind, r] of [
      ["untimed LoST", warm.lost],
      ["untimed session", warm.session],
      ["LoST", done.lost],
      ["session", done.session],
    ] as const) {
      if (r.status !== 200) return { failed: `point ${i}: ${kind} ${r.status} ${r.text.slice(0, 120)}` };
    }
    const lost = readLostAnswer(done.lost.text);
    const session = readSessionAnswer(JSON.parse(done.session.text));
    const disagrees = disagreement(lost, session);
    return { ...done, disagrees: disagrees && `point ${i}: ${disagrees}`, none: "none" in session };
  } catch (err) {
    return { failed: `point ${i}: ${(err as Error).message}` };
  }
}

/** Adds one point's outcome to the tally. */
function record(t: LostTally, o: PointOutcome): void {
  if ("failed" in o) {
    t.failed++;
    if (t.errors.length < 10) t.errors.push(o.failed);
    return;
  }
  t.lostMs.push(o.lost.ms);
  t.sessionMs.push(o.session.ms);
  if (o.disagrees) t.disagreements.push(o.disagrees);
  else {
    t.agreed++;
    if (o.none) t.agreedNone++;
  }
}

/** The LoST platforms (keys) and the live sessions under SOS, each sized to stay within its rate limit. */
async function openLost(target: Target, points: number, log: (line: string) => void) {
  const keys = await createPlatforms(
    target,
    sendersFor(points, REQUESTS_PER_POINT, RATE_LIMITS.apiKey.limit),
  );
  const sessionCount = sendersFor(points, REQUESTS_PER_POINT, RATE_LIMITS.sessionRole.limit);
  // Creating sessions counts against a key too: their platforms are not the LoST ones.
  const owners = await createPlatforms(target, sendersFor(sessionCount, 1, RATE_LIMITS.apiKey.limit));
  const lives = await pool(await createSessions(target, owners, sessionCount), 25, (s) => connect(target, s));
  await pool(lives, 8, (live) =>
    postJson(
      sessionUrl(target, live.session, "/sos"),
      {},
      { Authorization: `Bearer ${live.session.counselor_token}` },
    ),
  );
  log(`  lost: ${keys.length} API keys, ${lives.length} sessions under SOS (both sockets open)`);
  return { keys, lives };
}

export async function benchLost(
  target: Target,
  plan: LostPlan,
  log: (line: string) => void = () => {},
): Promise<{ result: LostResult; detail: LostDetail }> {
  const fixes = queryPoints(plan.points, plan.seed);
  const { keys, lives } = await openLost(target, fixes.length, log);
  const tally: LostTally = {
    planned: fixes.length,
    lostMs: [],
    sessionMs: [],
    agreed: 0,
    agreedNone: 0,
    disagreements: [],
    failed: 0,
    errors: [],
  };
  try {
    for (const [i, fix] of fixes.entries()) {
      const key = keys[i % keys.length] as Platform;
      const live = lives[i % lives.length] as LiveSession;
      record(tally, await timePoint(asksFor(target, fix, i, key, live), i));
      if ((i + 1) % 100 === 0) log(`  lost: ${i + 1}/${fixes.length} points`);
    }
  } finally {
    closeAll(lives);
  }
  const spread = { keys: keys.length, sessions: lives.length };
  return { result: lostResult(tally), detail: lostDetail(tally, spread) };
}
