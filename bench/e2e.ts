// SOS loop benchmark against wrangler dev, next to its floor measured in the same run on the same
// server: live sessions (a patient and a counselor socket each), loops whose triggers are spread
// over a window, the location posted when `location_request` arrives; floor rounds (the same loop
// through a trivial Durable Object) alternate with the SOS rounds, and a trivial GET runs
// throughout. A third kind, the durable floor (the trivial object making one storage write per
// request right after its pushes, where the session object makes its own), shows what such a write
// costs the loop.

import { seededRandom } from "./random.ts";
import type { E2eResult } from "./results.ts";
import {
  cancelSos,
  closeAll,
  connect,
  connectFloor,
  createPlatforms,
  createSessions,
  type FloorSession,
  floorLoop,
  type LiveSession,
  type LoopOutcome,
  lostMessages,
  pool,
  sosLoop,
  type Target,
  trivialRtts,
} from "./sessions.ts";
import { percentiles, round } from "./stats.ts";
import { type QueryPoint, queryPoints } from "./synthetic.ts";

export interface E2ePlan {
  sessions: number;
  /** Rounds of each kind (SOS, floor), triggers spread over `spreadMs` (one every spreadMs / sessions ms). */
  rounds: number;
  spreadMs: number;
  /** Each round in this many slices, alternating floor and SOS. */
  slices: number;
  /** Extra rounds of each kind with every trigger at the same instant. */
  burstRounds: number;
  /** Loops of each kind run one at a time, before the concurrent rounds. */
  soloLoops: number;
  seed: number;
}

export interface E2eDetail {
  loops: number;
  floor_loops: number;
  failed: number;
  floor_failed: number;
  errors: string[];
  sos_per_s: number;
  trivial_samples: number;
  trivial_rtt_ms_p99: number;
  /** The trivial GET during the floor rounds (the same load, the other object). */
  floor_round_trivial_rtt_ms_p50: number;
  floor_ms_p95: number;
  floor_lost_messages: number;
  burst_ms_p50: number;
  burst_ms_p99: number;
  burst_floor_ms_p50: number;
  burst_floor_ms_p99: number;
  /** One loop at a time, nothing else running. */
  solo_ms_p50: number;
  solo_ms_p99: number;
  solo_floor_ms_p50: number;
  solo_floor_ms_p99: number;
  idle_trivial_rtt_ms_p50: number;
  /**
   * The concurrent SOS loops split by whether the loop was the first on this server with its fix (its
   * PSAP entry then most likely read from KV during the loop) or a later one (the entry already in the
   * isolate's cache). The goal's figures are taken over both, as they came.
   */
  first_fix_loops: number;
  first_fix_ms_p50: number;
  later_fix_loops: number;
  later_fix_ms_p50: number;
  /** The solo loops again, on the same sessions: each fix's second loop. */
  solo_again_ms_p50: number;
  /**
   * The floor with one storage write per request right after its pushes, as the session object
   * writes (on pairs of its own, in the same slices): the output gate holds only its HTTP answers.
   */
  durable_floor_loops: number;
  durable_floor_failed: number;
  durable_floor_ms_p50: number;
  durable_floor_ms_p99: number;
  durable_floor_lost_messages: number;
}

const LOOP_TIMEOUT_MS = 20_000;
const CHICAGO: QueryPoint = { latitude: 41.88, longitude: -87.63, accuracy: 20 };

interface RoundOut<O extends LoopOutcome> {
  ms: number[];
  /** The loops that succeeded, as they returned. */
  ok: O[];
  failed: number;
  trivial: number[];
}

/** An SOS loop, and whether it was the first on this server with its fix. */
type SosOutcome = LoopOutcome & { firstFix: boolean };

/** Runs one loop per pair, each starting at its offset, with trivial GETs sent throughout. */
async function round_<P, O extends LoopOutcome>(
  target: Target,
  pairs: readonly P[],
  startAt: (i: number) => number,
  loop: (pair: P, i: number) => Promise<O>,
  errors: string[],
): Promise<RoundOut<O>> {
  let done = false;
  const trivial = trivialRtts(target, () => done);
  const outcomes = await Promise.all(
    pairs.map(async (pair, i) => {
      await new Promise((r) => setTimeout(r, startAt(i)));
      return loop(pair, i);
    }),
  );
  done = true;
  const failed = outcomes.filter((o) => !o.ok);
  for (const f of failed) if (errors.length < 10) errors.push(f.error ?? "failed");
  const ok = outcomes.filter((o) => o.ok);
  return { ms: ok.map((o) => o.ms), ok, failed: failed.length, trivial: await trivial };
}

/** One e2e run: the live sessions and floor pairs, and each kind's loop on them. */
interface E2eBench {
  target: Target;
  plan: E2ePlan;
  lives: LiveSession[];
  floors: FloorSession[];
  durableFloors: FloorSession[];
  sosOne: (live: LiveSession, i: number) => Promise<SosOutcome>;
  floorOne: (f: FloorSession, i: number) => Promise<LoopOutcome>;
  durableFloorOne: (f: FloorSession, i: number) => Promise<LoopOutcome>;
  /** Back to `active` for the next loop: between rounds, so no round carries extra requests. */
  cancel: (some: readonly LiveSession[]) => Promise<unknown>;
}

/** Everything the run counts, each kind of loop apart. */
interface E2eTally {
  errors: string[];
  idleTrivial: number[];
  solo: number[];
  soloFloor: number[];
  soloAgain: number[];
  sos: number[];
  floor: number[];
  durableFloor: number[];
  trivial: number[];
  floorTrivial: number[];
  firstFixMs: number[];
  laterFixMs: number[];
  burst: number[];
  burstFloor: number[];
  failed: number;
  floorFailed: number;
  durableFloorFailed: number;
}

export async function benchE2e(
  target: Target,
  plan: E2ePlan,
  log: (line: string) => void = () => {},
): Promise<{ result: E2eResult; detail: E2eDetail }> {
  const tally = emptyTally();
  const bench = await openE2e(target, plan, tally.errors, log);
  try {
    let idleCount = 0;
    tally.idleTrivial = await trivialRtts(target, () => ++idleCount > 50, 5);
    await timeSolo(bench, tally);
    log(
      `  e2e: ${tally.solo.length} SOS loops (and each again) and ${tally.soloFloor.length} floor loops alone done`,
    );
    await timeConcurrentRounds(bench, tally, log);
    await timeBursts(bench, tally, log);
    const lost = {
      sos: await lostMessages(bench.lives),
      floor: await lostMessages(bench.floors, 1_000),
      durableFloor: await lostMessages(bench.durableFloors, 1_000),
    };
    return { result: e2eResult(bench, tally, lost.sos), detail: e2eDetail(plan, tally, lost) };
  } finally {
    closeAll(bench.lives);
    closeAll(bench.floors);
    closeAll(bench.durableFloors);
  }
}

function emptyTally(): E2eTally {
  const none = (): number[] => [];
  return {
    errors: [],
    idleTrivial: none(),
    solo: none(),
    soloFloor: none(),
    soloAgain: none(),
    sos: none(),
    floor: none(),
    durableFloor: none(),
    trivial: none(),
    floorTrivial: none(),
    firstFixMs: none(),
    laterFixMs: none(),
    burst: none(),
    burstFloor: none(),
    failed: 0,
    floorFailed: 0,
    durableFloorFailed: 0,
  };
}

/** The sessions (both sockets each), the floor and durable floor pairs, and each kind's loop. */
async function openE2e(
  target: Target,
  plan: E2ePlan,
  errors: string[],
  log: (line: string) => void,
): Promise<E2eBench> {
  const platforms = await createPlatforms(target, Math.max(1, Math.ceil(plan.sessions / 250)));
  const sessions = await createSessions(target, platforms, plan.sessions);
  const lives = await pool(sessions, 25, (s) => connect(target, s));
  const floorPairs = (kind: string) =>
    pool(
      Array.from({ length: plan.sessions }, (_, i) => `${kind}-${plan.seed}-${i}`),
      25,
      (id) => connectFloor(target, id),
    );
  const floors = await floorPairs("floor");
  const durableFloors = await floorPairs("durable-floor");
  log(
    `  e2e: ${lives.length} sessions, ${floors.length} floor and ${durableFloors.length} durable floor pairs, ${(lives.length + floors.length + durableFloors.length) * 2} sockets open`,
  );
  const fixes = queryPoints(plan.sessions, plan.seed, 0);
  const fixOf = (i: number) => fixes[i % fixes.length] ?? CHICAGO;
  // Fixes an SOS loop has used on this server: a later loop with one finds its entry already cached.
  const usedFixes = new Set<number>();
  return {
    target,
    plan,
    lives,
    floors,
    durableFloors,
    sosOne: async (live, i) => {
      const fix = i % fixes.length;
      const firstFix = !usedFixes.has(fix);
      usedFixes.add(fix);
      return { ...(await sosLoop(target, live, fixOf(i), LOOP_TIMEOUT_MS)), firstFix };
    },
    floorOne: (f, i) => floorLoop(target, f, fixOf(i), LOOP_TIMEOUT_MS),
    durableFloorOne: (f, i) => floorLoop(target, f, fixOf(i), LOOP_TIMEOUT_MS, true),
    cancel: (some) =>
      pool(some, 32, (live) =>
        cancelSos(target, live).catch((err: Error) => void (errors.length < 10 && errors.push(err.message))),
      ),
  };
}

/** Alone: one loop at a time, alternating kinds (a different session each time); then each fix's second loop. */
async function timeSolo(b: E2eBench, tally: E2eTally): Promise<void> {
  const soloLoops = Math.min(b.plan.soloLoops, b.lives.length);
  for (let i = 0; i < soloLoops; i++) {
    const f = await b.floorOne(b.floors[i] as FloorSession, i);
    if (f.ok) tally.soloFloor.push(f.ms);
    else tally.floorFailed++;
    const s = await b.sosOne(b.lives[i] as LiveSession, i);
    if (s.ok) tally.solo.push(s.ms);
    else tally.failed++;
    await b.cancel([b.lives[i] as LiveSession]);
  }
  for (let i = 0; i < soloLoops; i++) {
    const s = await b.sosOne(b.lives[i] as LiveSession, i);
    if (s.ok) tally.soloAgain.push(s.ms);
    else tally.failed++;
    await b.cancel([b.lives[i] as LiveSession]);
  }
}

/**
 * Concurrent: each round goes over every session once, in slices that alternate floor, durable floor
 * and SOS (a slice of the sessions, its triggers spread over its share of the window, with its own
 * seeded trigger times: the same rate of loops), so every kind sees the same moments of this shared machine.
 */
async function timeConcurrentRounds(
  b: E2eBench,
  tally: E2eTally,
  log: (line: string) => void,
): Promise<void> {
  const random = seededRandom(b.plan.seed);
  const slices = Math.max(1, Math.min(b.plan.slices, b.lives.length));
  const size = Math.ceil(b.lives.length / slices);
  const window = b.plan.spreadMs / slices;
  for (let r = 0; r < b.plan.rounds; r++) {
    for (let k = 0; k < slices; k++) {
      // Slice k of one kind's pairs, its triggers at seeded offsets within the slice's window.
      const sliceRound = <P, O extends LoopOutcome>(
        pairs: readonly P[],
        loop: (pair: P, i: number) => Promise<O>,
      ): Promise<RoundOut<O>> => {
        const some = pairs.slice(k * size, (k + 1) * size);
        const offsets = some.map(() => random() * window);
        return round_(
          b.target,
          some,
          (i) => offsets[i] ?? 0,
          (p, i) => loop(p, k * size + i),
          tally.errors,
        );
      };
      const f = await sliceRound(b.floors, b.floorOne);
      tally.floor.push(...f.ms);
      tally.floorTrivial.push(...f.trivial);
      tally.floorFailed += f.failed;
      const d = await sliceRound(b.durableFloors, b.durableFloorOne);
      tally.durableFloor.push(...d.ms);
      tally.durableFloorFailed += d.failed;
      const s = await sliceRound(b.lives, b.sosOne);
      await b.cancel(b.lives.slice(k * size, (k + 1) * size));
      tally.sos.push(...s.ms);
      for (const o of s.ok) (o.firstFix ? tally.firstFixMs : tally.laterFixMs).push(o.ms);
      tally.trivial.push(...s.trivial);
      tally.failed += s.failed;
    }
    log(`  e2e: round ${r + 1}/${b.plan.rounds} done (${slices} slices, floor, durable floor, SOS)`);
  }
}

/** Every trigger of a round at the same instant, floor then SOS. */
async function timeBursts(b: E2eBench, tally: E2eTally, log: (line: string) => void): Promise<void> {
  for (let r = 0; r < b.plan.burstRounds; r++) {
    const f = await round_(b.target, b.floors, () => 0, b.floorOne, tally.errors);
    tally.burstFloor.push(...f.ms);
    tally.floorFailed += f.failed;
    const s = await round_(b.target, b.lives, () => 0, b.sosOne, tally.errors);
    await b.cancel(b.lives);
    tally.burst.push(...s.ms);
    tally.failed += s.failed;
    log(`  e2e: burst round ${r + 1}/${b.plan.burstRounds} done`);
  }
}

function e2eResult(b: E2eBench, tally: E2eTally, lost: number): E2eResult {
  const p = percentiles(tally.sos, [50, 95, 99]);
  const fp = percentiles(tally.floor, [50, 95, 99]);
  const t = percentiles(tally.trivial, [50, 99]);
  return {
    sessions: b.lives.length,
    // Two decimals for the p50s the goals divide (by the floor's, by the GET's, which has two):
    // a verdict near its bound is not decided by rounding.
    sos_loop_ms_p50: round(p[50], 2),
    sos_loop_ms_p95: round(p[95], 1),
    sos_loop_ms_p99: round(p[99], 1),
    floor_ms_p50: round(fp[50], 2),
    floor_ms_p99: round(fp[99], 1),
    trivial_rtt_ms_p50: round(t[50], 2),
    lost_messages: lost,
  };
}

function e2eDetail(plan: E2ePlan, tally: E2eTally, lost: { floor: number; durableFloor: number }): E2eDetail {
  const pick = (v: number[], q: 50 | 99) => round(percentiles(v, [q])[q], 1);
  return {
    loops: tally.sos.length,
    floor_loops: tally.floor.length,
    failed: tally.failed,
    floor_failed: tally.floorFailed,
    errors: tally.errors,
    sos_per_s: round((plan.sessions / plan.spreadMs) * 1000, 1),
    trivial_samples: tally.trivial.length,
    trivial_rtt_ms_p99: round(percentiles(tally.trivial, [99])[99], 2),
    floor_round_trivial_rtt_ms_p50: round(percentiles(tally.floorTrivial, [50])[50], 2),
    floor_ms_p95: round(percentiles(tally.floor, [95])[95], 1),
    floor_lost_messages: lost.floor,
    burst_ms_p50: pick(tally.burst, 50),
    burst_ms_p99: pick(tally.burst, 99),
    burst_floor_ms_p50: pick(tally.burstFloor, 50),
    burst_floor_ms_p99: pick(tally.burstFloor, 99),
    solo_ms_p50: pick(tally.solo, 50),
    solo_ms_p99: pick(tally.solo, 99),
    solo_floor_ms_p50: pick(tally.soloFloor, 50),
    solo_floor_ms_p99: pick(tally.soloFloor, 99),
    idle_trivial_rtt_ms_p50: round(percentiles(tally.idleTrivial, [50])[50], 2),
    first_fix_loops: tally.firstFixMs.length,
    first_fix_ms_p50: pick(tally.firstFixMs, 50),
    later_fix_loops: tally.laterFixMs.length,
    later_fix_ms_p50: pick(tally.laterFixMs, 50),
    solo_again_ms_p50: pick(tally.soloAgain, 50),
    durable_floor_loops: tally.durableFloor.length,
    durable_floor_failed: tally.durableFloorFailed,
    durable_floor_ms_p50: pick(tally.durableFloor, 50),
    durable_floor_ms_p99: pick(tally.durableFloor, 99),
    durable_floor_lost_messages: lost.durableFloor,
  };
}
