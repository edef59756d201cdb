// Load benchmark: many live sessions (a patient and a counselor socket each), an SOS storm on all of
// them at once, every psap_results counted, and the memory of the workerd that runs the Durable
// Objects (told apart from wrangler's proxy workerd, whose memory is reported beside it).

import type { LoadResult } from "./results.ts";
import { rssMb, type Workerds } from "./server.ts";
import {
  closeAll,
  connect,
  createPlatforms,
  createSessions,
  type LiveSession,
  lostMessages,
  pool,
  sosLoop,
  type Target,
} from "./sessions.ts";
import { percentiles, round } from "./stats.ts";
import { queryPoints } from "./synthetic.ts";

export interface LoadPlan {
  sessions: number;
  seed: number;
}

/** Resident memory of both workerd processes at one moment. */
export interface MemorySample {
  runtime_mb: number;
  proxy_mb: number;
}

export interface LoadDetail {
  storm_s: number;
  /** Loops whose location POST answered psap_results at once. */
  loops_ok: number;
  /**
   * Loops answered 503 psap_lookup_failed (the lookup passed its time bound) whose PSAPs still reached
   * both sockets, later: a slow lookup is late, not lost (SPEC's 503 first, then psap_results).
   */
  loops_late: number;
  loop_ms_p50: number;
  loop_ms_p99: number;
  connect_s: number;
  runtime_pid: number | null;
  proxy_pid: number | null;
  /** Right after the server started, before any session (passed in by run.ts). */
  idle: MemorySample;
  /** Just before this benchmark's sessions are created. */
  before_load: MemorySample;
  /** Every session's two sockets open, before the storm. */
  with_sessions: MemorySample;
  /** The highest seen during the storm. */
  storm_peak: MemorySample;
  runtime_mb_per_session: number;
  errors: string[];
}

const STORM_TIMEOUT_MS = 60_000;

export async function memoryOf(pids: Workerds): Promise<MemorySample> {
  return {
    runtime_mb: pids.runtime ? round(await rssMb(pids.runtime), 1) : Number.NaN,
    proxy_mb: pids.proxy ? round(await rssMb(pids.proxy), 1) : Number.NaN,
  };
}

export async function benchLoad(
  target: Target,
  pids: Workerds,
  idle: MemorySample,
  plan: LoadPlan,
  log: (line: string) => void = () => {},
): Promise<{ result: LoadResult; detail: LoadDetail }> {
  const beforeLoad = await memoryOf(pids);
  const { lives, connectS } = await openSessions(target, plan, log);
  // Let the objects settle (hibernation, GC) before reading memory with every socket open.
  await new Promise((r) => setTimeout(r, 2_000));
  const withSessions = await memoryOf(pids);
  const peak = peakSampler(pids, withSessions);
  try {
    const storm = await sosStorm(target, lives, plan);
    const lost = await lostMessages(lives, 5_000);
    const stormPeak = await peak.stop();
    const delivered = lives.reduce(
      (n, l) => n + l.patient.count("psap_results") + l.counselor.count("psap_results"),
      0,
    );
    log(`  load: storm over in ${storm.seconds.toFixed(1)} s`);
    const memory = { idle, beforeLoad, withSessions, stormPeak };
    return {
      result: {
        sessions: lives.length,
        sockets: lives.length * 2,
        sos_delivered: delivered,
        lost_messages: lost,
        sessions_workerd_rss_mb: round(withSessions.runtime_mb, 0),
      },
      detail: loadDetail(lives, storm, memory, { pids, connectS }),
    };
  } finally {
    await peak.stop();
    closeAll(lives);
  }
}

/** The sessions, each with both sockets open. */
async function openSessions(target: Target, plan: LoadPlan, log: (line: string) => void) {
  // 600 requests a minute per API key: 200 sessions per platform keeps creation unthrottled.
  const platforms = await createPlatforms(target, Math.max(1, Math.ceil(plan.sessions / 200)));
  const sessions = await createSessions(target, platforms, plan.sessions, 24);
  log(`  load: ${sessions.length} sessions created`);
  const t0 = performance.now();
  const lives = await pool(sessions, 50, (s) => connect(target, s));
  const connectS = (performance.now() - t0) / 1000;
  log(`  load: ${lives.length * 2} sockets open in ${connectS.toFixed(1)} s`);
  return { lives, connectS };
}

/** Reads the workerds' memory every 250 ms from now until `stop`, which gives the peak (from `start` up). */
function peakSampler(pids: Workerds, start: MemorySample): { stop: () => Promise<MemorySample> } {
  const peak = { ...start };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const m = await memoryOf(pids);
      peak.runtime_mb = Math.max(peak.runtime_mb, m.runtime_mb);
      peak.proxy_mb = Math.max(peak.proxy_mb, m.proxy_mb);
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    stop: async () => {
      sampling = false;
      await sampler;
      return peak;
    },
  };
}

/** An SOS on every session at once, each loop until both sockets have its PSAPs. */
async function sosStorm(target: Target, lives: LiveSession[], plan: LoadPlan) {
  const fixes = queryPoints(plan.sessions, plan.seed, 0);
  const started = performance.now();
  const outcomes = await Promise.all(
    lives.map((live, i) =>
      sosLoop(
        target,
        live,
        fixes[i] ?? { latitude: 41.88, longitude: -87.63, accuracy: 20 },
        STORM_TIMEOUT_MS,
      ),
    ),
  );
  return { outcomes, seconds: (performance.now() - started) / 1000 };
}

function loadDetail(
  lives: LiveSession[],
  storm: Awaited<ReturnType<typeof sosStorm>>,
  memory: {
    idle: MemorySample;
    beforeLoad: MemorySample;
    withSessions: MemorySample;
    stormPeak: MemorySample;
  },
  run: { pids: Workerds; connectS: number },
): LoadDetail {
  const { outcomes } = storm;
  const ok = outcomes.filter((o) => o.ok);
  // Answered 503 when the lookup passed its bound, its PSAPs delivered to both sockets later all the same.
  const late = outcomes.filter(
    (o, i) =>
      !o.ok &&
      o.error?.includes(" 503 ") === true &&
      lives[i]?.patient.count("psap_results") === 1 &&
      lives[i]?.counselor.count("psap_results") === 1,
  ).length;
  const p = percentiles(
    ok.map((o) => o.ms),
    [50, 99],
  );
  const { withSessions, beforeLoad } = memory;
  return {
    storm_s: round(storm.seconds, 2),
    loops_ok: ok.length,
    loops_late: late,
    loop_ms_p50: round(p[50], 1),
    loop_ms_p99: round(p[99], 1),
    connect_s: round(run.connectS, 1),
    runtime_pid: run.pids.runtime,
    proxy_pid: run.pids.proxy,
    idle: memory.idle,
    before_load: beforeLoad,
    with_sessions: withSessions,
    storm_peak: memory.stormPeak,
    runtime_mb_per_session: round(
      (withSessions.runtime_mb - beforeLoad.runtime_mb) / Math.max(1, lives.length),
      3,
    ),
    errors: [...new Set(outcomes.filter((o) => !o.ok).map((o) => o.error ?? "failed"))].slice(0, 10),
  };
}
