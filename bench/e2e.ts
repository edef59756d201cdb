// SOS loop benchmark: concurrent live sessions against wrangler dev, the whole loop timed from the
// counselor's trigger to psap_results at both sockets, next to a trivial request's round trip.

import { seededRandom } from "./random.ts";
import type { E2eResult } from "./results.ts";
import {
  cancelSos,
  closeAll,
  connect,
  createPlatforms,
  createSessions,
  type LiveSession,
  lostMessages,
  pool,
  sosLoop,
  type Target,
  trivialRtts,
} from "./sessions.ts";
import { percentiles, round } from "./stats.ts";
import { queryPoints } from "./synthetic.ts";

export interface E2ePlan {
  sessions: number;
  /** Rounds with the triggers spread over `spreadMs` (an SOS arrives every spreadMs / sessions ms). */
  rounds: number;
  spreadMs: number;
  /** Extra rounds with every session's trigger at the same instant. */
  burstRounds: number;
  /** Loops run one at a time before the concurrent rounds. */
  soloLoops: number;
  seed: number;
}

export interface E2eDetail {
  loops: number;
  failed: number;
  errors: string[];
  sos_per_s: number;
  trivial_samples: number;
  trivial_rtt_ms_p99: number;
  burst_loops: number;
  burst_ms_p50: number;
  burst_ms_p99: number;
  burst_trivial_rtt_ms_p50: number;
  /** One loop at a time, nothing else running: the floor under the concurrent figures. */
  solo_loops: number;
  solo_ms_p50: number;
  solo_ms_p99: number;
  idle_trivial_rtt_ms_p50: number;
}

const LOOP_TIMEOUT_MS = 20_000;

async function runRound(
  target: Target,
  lives: LiveSession[],
  startAt: (i: number) => number,
  fixes: ReturnType<typeof queryPoints>,
  errors: string[],
): Promise<{ ms: number[]; failed: number; trivial: number[] }> {
  let done = false;
  const trivial = trivialRtts(target, () => done);
  const outcomes = await Promise.all(
    lives.map(async (live, i) => {
      await new Promise((r) => setTimeout(r, startAt(i)));
      const outcome = await sosLoop(
        target,
        live,
        fixes[i % fixes.length] ?? { latitude: 41.88, longitude: -87.63, accuracy: 20 },
        LOOP_TIMEOUT_MS,
      );
      return outcome;
    }),
  );
  done = true;
  const trivialMs = await trivial;
  // Back to `active` for the next round (not timed).
  await pool(lives, 32, (live) =>
    cancelSos(target, live).catch((err: Error) => void errors.push(err.message)),
  );
  const failed = outcomes.filter((o) => !o.ok);
  for (const f of failed) if (errors.length < 10) errors.push(f.error ?? "failed");
  return { ms: outcomes.filter((o) => o.ok).map((o) => o.ms), failed: failed.length, trivial: trivialMs };
}

export async function benchE2e(
  target: Target,
  plan: E2ePlan,
  log: (line: string) => void = () => {},
): Promise<{ result: E2eResult; detail: E2eDetail }> {
  const platforms = await createPlatforms(target, Math.max(1, Math.ceil(plan.sessions / 250)));
  const sessions = await createSessions(target, platforms, plan.sessions);
  const lives = await pool(sessions, 25, (s) => connect(target, s));
  log(`  e2e: ${lives.length} sessions, ${lives.length * 2} sockets open`);
  const fixes = queryPoints(plan.sessions, plan.seed, 0);
  const random = seededRandom(plan.seed);
  const errors: string[] = [];
  const loops: number[] = [];
  const trivial: number[] = [];
  let failed = 0;
  try {
    // Alone first: each loop on its own (a different session each time, so no rate limit is near).
    let idleCount = 0;
    const idleTrivial = await trivialRtts(target, () => ++idleCount > 50, 5);
    const solo: number[] = [];
    for (let i = 0; i < Math.min(plan.soloLoops, lives.length); i++) {
      const live = lives[i] as LiveSession;
      const out = await sosLoop(
        target,
        live,
        fixes[i] ?? { latitude: 41.88, longitude: -87.63, accuracy: 20 },
        LOOP_TIMEOUT_MS,
      );
      if (out.ok) solo.push(out.ms);
      else failed++;
      await cancelSos(target, live);
    }
    log(`  e2e: ${solo.length} loops alone done`);
    for (let r = 0; r < plan.rounds; r++) {
      const offsets = lives.map(() => random() * plan.spreadMs);
      const out = await runRound(target, lives, (i) => offsets[i] ?? 0, fixes, errors);
      loops.push(...out.ms);
      trivial.push(...out.trivial);
      failed += out.failed;
      log(`  e2e: round ${r + 1}/${plan.rounds} done`);
    }
    const burst: number[] = [];
    const burstTrivial: number[] = [];
    for (let r = 0; r < plan.burstRounds; r++) {
      const out = await runRound(target, lives, () => 0, fixes, errors);
      burst.push(...out.ms);
      burstTrivial.push(...out.trivial);
      failed += out.failed;
      log(`  e2e: burst round ${r + 1}/${plan.burstRounds} done`);
    }
    const lost = await lostMessages(lives);
    const p = percentiles(loops, [50, 95, 99]);
    const t = percentiles(trivial, [50, 99]);
    const b = percentiles(burst, [50, 99]);
    return {
      result: {
        sessions: lives.length,
        sos_loop_ms_p50: round(p[50], 1),
        sos_loop_ms_p95: round(p[95], 1),
        sos_loop_ms_p99: round(p[99], 1),
        trivial_rtt_ms_p50: round(t[50], 2),
        lost_messages: lost,
      },
      detail: {
        loops: loops.length,
        failed,
        errors,
        sos_per_s: round((plan.sessions / plan.spreadMs) * 1000, 1),
        trivial_samples: trivial.length,
        trivial_rtt_ms_p99: round(t[99], 2),
        burst_loops: burst.length,
        burst_ms_p50: round(b[50], 1),
        burst_ms_p99: round(b[99], 1),
        burst_trivial_rtt_ms_p50: round(percentiles(burstTrivial, [50])[50], 2),
        solo_loops: solo.length,
        solo_ms_p50: round(percentiles(solo, [50])[50], 1),
        solo_ms_p99: round(percentiles(solo, [99])[99], 1),
        idle_trivial_rtt_ms_p50: round(percentiles(idleTrivial, [50])[50], 2),
      },
    };
  } finally {
    closeAll(lives);
  }
}
