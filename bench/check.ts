// Issue 30's goal, "with the check on, the counselor has an actionable answer within 1 s of the patient
// connecting", beside what a counselor has without the check: the SOS loop. For each seeded fix, two
// fresh sessions on one wrangler dev. One is created with `location_check: "at_start"`: its counselor
// socket is opened first, then the clock starts just before its patient socket is opened and stops when
// the counselor's `location_check` arrives. The other has no check: with both sockets open, the clock
// runs from the counselor's trigger to the counselor's `psap_results`. The patient side answers each
// `location_request` with the fix, as the patient SDK does. The two kinds take turns at going first (the
// first to ask the lookup for a fix may read its index entry from KV) and many fixes are in flight at
// once, as the e2e part's sessions are. Every check's first PSAP must be the SOS loop's for its fix.

import { RATE_LIMITS } from "../lib/config.ts";
import type { LocationCheckMessage, PsapResultsMessage, SessionCreateResponse } from "../sdk/src/protocol.ts";
import {
  actionable,
  type CheckAnswer,
  checkDisagreement,
  readCheckAnswer,
  readSosAnswer,
} from "./check-answers.ts";
import { sendersFor } from "./lost.ts";
import type { SessionAnswer } from "./lost-answers.ts";
import type { CheckResult } from "./results.ts";
import {
  BenchSocket,
  connect,
  createPlatforms,
  createSessions,
  pool,
  sessionUrl,
  type Target,
} from "./sessions.ts";
import { percentiles, round } from "./stats.ts";
import { type QueryPoint, queryPoints } from "./synthetic.ts";

export interface CheckPlan {
  fixes: number;
  concurrency: number;
  seed: number;
}

/** One fix whose check and SOS loop both gave the counselor a PSAP: the timed pair. */
export interface TimedPair {
  checkMs: number;
  sosMs: number;
  /** From the patient socket's opening to its `location_request` (the check's first half). */
  requestMs: number;
  checkFirst: boolean;
}

/** Everything the part counts. */
export interface CheckTally {
  planned: number;
  pairs: TimedPair[];
  /** Checks that reached the counselor socket (timed or not). */
  arrived: number;
  /** Checks asked for that never reached the counselor, and why (no coordinates). */
  lost: string[];
  agreed: number;
  /** Fixes where the check and the SOS loop both found no PSAP for the same reason. */
  agreedNone: number;
  disagreements: string[];
  failed: number;
  errors: string[];
}

export interface CheckDetail {
  planned_fixes: number;
  /** API keys the sessions were created on (each under its rate limit), and fixes in flight at once. */
  platforms: number;
  concurrency: number;
  /** How long all the fixes took, sessions already created: the load the figures were taken under. */
  seconds: number;
  agreed_none: number;
  request_ms_p50: number;
  request_ms_p99: number;
  /** Each kind's p50 over the fixes where it went first, and where it went second. */
  check_first_ms_p50: number;
  check_second_ms_p50: number;
  sos_first_ms_p50: number;
  sos_second_ms_p50: number;
  ratio_p50: number;
  ratio_p99: number;
  lost: string[];
  disagreements: string[];
  errors: string[];
}

/** How one fix went. */
export type FixOutcome =
  | { failed: string }
  | { lost: string }
  | { pair: TimedPair; check: CheckAnswer; sos: SessionAnswer };

const WAIT_MS = 20_000;
/** Sessions each fix creates on its platform's key: one with the check, one without. */
const CREATES_PER_FIX = 2;

export function emptyTally(planned: number): CheckTally {
  return {
    planned,
    pairs: [],
    arrived: 0,
    lost: [],
    agreed: 0,
    agreedNone: 0,
    disagreements: [],
    failed: 0,
    errors: [],
  };
}

/** Adds one fix's outcome to the tally: a pair is timed only when both answers name a PSAP. */
export function recordFix(t: CheckTally, o: FixOutcome): void {
  if ("failed" in o) {
    t.failed++;
    if (t.errors.length < 10) t.errors.push(o.failed);
    return;
  }
  if ("lost" in o) {
    t.lost.push(o.lost);
    return;
  }
  t.arrived++;
  const differs = checkDisagreement(o.check, o.sos);
  if (differs) t.disagreements.push(differs);
  else if (actionable(o.check)) t.agreed++;
  else t.agreedNone++;
  if (actionable(o.check) && "psap" in o.sos) t.pairs.push(o.pair);
}

/** latest.json's figures from a tally: two decimals, so rounding never decides the 1 s bound. */
export function checkResult(t: CheckTally, concurrency: number): CheckResult {
  const c = percentiles(
    t.pairs.map((p) => p.checkMs),
    [50, 95, 99],
  );
  const s = percentiles(
    t.pairs.map((p) => p.sosMs),
    [50, 95, 99],
  );
  return {
    fixes: t.pairs.length,
    concurrency,
    check_ms_p50: round(c[50], 2),
    check_ms_p95: round(c[95], 2),
    check_ms_p99: round(c[99], 2),
    sos_ms_p50: round(s[50], 2),
    sos_ms_p95: round(s[95], 2),
    sos_ms_p99: round(s[99], 2),
    checks_arrived: t.arrived,
    checks_lost: t.lost.length,
    agreed: t.agreed,
    disagreements: t.disagreements.length,
    failed: t.failed,
  };
}

/** The detail file's part: how the run was spread, where the time went, and every finding worth reading. */
export function checkDetail(
  t: CheckTally,
  spread: { platforms: number; concurrency: number; seconds: number },
): CheckDetail {
  const r = checkResult(t, spread.concurrency);
  const p50 = (pairs: TimedPair[], pick: (p: TimedPair) => number) =>
    round(percentiles(pairs.map(pick), [50])[50], 2);
  const first = t.pairs.filter((p) => p.checkFirst);
  const second = t.pairs.filter((p) => !p.checkFirst);
  const request = percentiles(
    t.pairs.map((p) => p.requestMs),
    [50, 99],
  );
  return {
    planned_fixes: t.planned,
    ...spread,
    agreed_none: t.agreedNone,
    request_ms_p50: round(request[50], 2),
    request_ms_p99: round(request[99], 2),
    check_first_ms_p50: p50(first, (p) => p.checkMs),
    check_second_ms_p50: p50(second, (p) => p.checkMs),
    sos_first_ms_p50: p50(second, (p) => p.sosMs),
    sos_second_ms_p50: p50(first, (p) => p.sosMs),
    ratio_p50: round(r.check_ms_p50 / r.sos_ms_p50, 3),
    ratio_p99: round(r.check_ms_p99 / r.sos_ms_p99, 3),
    lost: t.lost.slice(0, 50),
    disagreements: t.disagreements.slice(0, 50),
    errors: t.errors,
  };
}

/**
 * The latest message of each type a socket receives. Attached once the socket is open: the messages
 * read here (the counselor's `location_check` and `psap_results`) only come after requests this part
 * sends later, so none can arrive before the listener.
 */
function keepLatest(socket: BenchSocket): Map<string, unknown> {
  const latest = new Map<string, unknown>();
  socket.ws.addEventListener("message", (event) => {
    if (typeof event.data !== "string" || !event.data.startsWith("{")) return;
    const message = JSON.parse(event.data) as { type?: unknown };
    if (typeof message.type === "string") latest.set(message.type, message);
  });
  return latest;
}

/** A browser request of the loop, sent once: a retry after a 429 would hide a refusal inside a timing. */
async function post(url: string, token: string, body: unknown, status = 200): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(WAIT_MS),
  });
  const text = await res.text();
  if (res.status !== status)
    throw new Error(`POST ${new URL(url).pathname.split("/").pop()}: ${res.status} ${text.slice(0, 120)}`);
}

/** The fix as the patient SDK posts it, to either route. */
const fixBody = (fix: QueryPoint) => ({
  latitude: fix.latitude,
  longitude: fix.longitude,
  accuracy: fix.accuracy,
});

const socketUrl = (target: Target, token: string) => `${target.wsUrl}/ws?token=${encodeURIComponent(token)}`;

type CheckTimed = { ms: number; requestMs: number; answer: CheckAnswer } | { lost: string };

/** The check: counselor connected first, then timed from the patient socket's opening to `location_check`. */
async function timeCheck(
  target: Target,
  session: SessionCreateResponse,
  fix: QueryPoint,
  opened: BenchSocket[],
): Promise<CheckTimed> {
  const counselor = await BenchSocket.open(socketUrl(target, session.counselor_token), WAIT_MS);
  opened.push(counselor);
  const latest = keepLatest(counselor);
  if (!(await counselor.waitFor("session_state", 1, WAIT_MS))) throw new Error("check: no session_state");
  const started = performance.now();
  const patient = await BenchSocket.open(socketUrl(target, session.patient_token), WAIT_MS);
  opened.push(patient);
  // The session is active with no SOS: the only location_request it can send is the check's.
  if (!(await patient.waitFor("location_request", 1, WAIT_MS)))
    return { lost: "the patient socket got no location_request" };
  const requestMs = (patient.arrivedAt.get("location_request") as number) - started;
  await post(sessionUrl(target, session, "/location-check"), session.patient_token, fixBody(fix));
  if (!(await counselor.waitFor("location_check", 1, WAIT_MS)))
    return { lost: "the counselor socket got no location_check" };
  const ms = (counselor.arrivedAt.get("location_check") as number) - started;
  return { ms, requestMs, answer: readCheckAnswer(latest.get("location_check") as LocationCheckMessage) };
}

/** The SOS loop in a session without the check: trigger to the counselor's `psap_results`. */
async function timeSos(
  target: Target,
  session: SessionCreateResponse,
  fix: QueryPoint,
  opened: BenchSocket[],
): Promise<{ ms: number; answer: SessionAnswer }> {
  const live = await connect(target, session, WAIT_MS);
  opened.push(live.patient, live.counselor);
  const latest = keepLatest(live.counselor);
  const started = performance.now();
  // The location is posted when location_request reaches the patient, whether or not the trigger's own
  // answer is back yet (as the SDK does).
  const located = live.patient.waitFor("location_request", 1, WAIT_MS).then((ok) => {
    if (!ok) throw new Error("SOS loop: no location_request");
    return post(sessionUrl(target, session, "/sos/location"), session.patient_token, fixBody(fix));
  });
  const [, , arrived] = await Promise.all([
    post(sessionUrl(target, session, "/sos"), session.counselor_token, {}, 202),
    located,
    live.counselor.waitFor("psap_results", 1, WAIT_MS),
  ]);
  if (!arrived) throw new Error("SOS loop: no psap_results at the counselor");
  const ms = (live.counselor.arrivedAt.get("psap_results") as number) - started;
  return { ms, answer: readSosAnswer(latest.get("psap_results") as PsapResultsMessage) };
}

/** One fix: both kinds, the check first on even fixes; every socket it opened closed after. */
async function timeFix(
  target: Target,
  sessions: { check: SessionCreateResponse; sos: SessionCreateResponse },
  fix: QueryPoint,
  i: number,
): Promise<FixOutcome> {
  const checkFirst = i % 2 === 0;
  const opened: BenchSocket[] = [];
  try {
    const checkOne = () => timeCheck(target, sessions.check, fix, opened);
    const sosOne = () => timeSos(target, sessions.sos, fix, opened);
    let check: CheckTimed;
    let sos: Awaited<ReturnType<typeof sosOne>>;
    if (checkFirst) {
      check = await checkOne();
      sos = await sosOne();
    } else {
      sos = await sosOne();
      check = await checkOne();
    }
    if ("lost" in check) return { lost: `fix ${i}: ${check.lost}` };
    const pair = { checkMs: check.ms, sosMs: sos.ms, requestMs: check.requestMs, checkFirst };
    return { pair, check: check.answer, sos: sos.answer };
  } catch (err) {
    return { failed: `fix ${i}: ${(err as Error).message}` };
  } finally {
    for (const socket of opened) socket.close();
  }
}

export async function benchCheck(
  target: Target,
  plan: CheckPlan,
  log: (line: string) => void = () => {},
): Promise<{ result: CheckResult; detail: CheckDetail }> {
  const fixes = queryPoints(plan.fixes, plan.seed);
  // Each session is used for one loop (a handful of requests a role): only the creates need spreading.
  const platforms = await createPlatforms(
    target,
    sendersFor(fixes.length, CREATES_PER_FIX, RATE_LIMITS.apiKey.limit),
  );
  const checked = await createSessions(target, platforms, fixes.length, 16, { location_check: "at_start" });
  const plain = await createSessions(target, platforms, fixes.length, 16, { location_check: "off" });
  log(`  check: ${fixes.length} fixes, a session of each kind per fix on ${platforms.length} platforms`);
  const tally = emptyTally(fixes.length);
  let done = 0;
  const started = performance.now();
  await pool(fixes, plan.concurrency, async (fix, i) => {
    const sessions = { check: checked[i] as SessionCreateResponse, sos: plain[i] as SessionCreateResponse };
    recordFix(tally, await timeFix(target, sessions, fix, i));
    if (++done % 50 === 0) log(`  check: ${done}/${fixes.length} fixes`);
  });
  const seconds = round((performance.now() - started) / 1000, 1);
  const spread = { platforms: platforms.length, concurrency: plan.concurrency, seconds };
  return { result: checkResult(tally, plan.concurrency), detail: checkDetail(tally, spread) };
}
