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
  // 600 requests a minute per API key: 200 sessions per platform keeps creation unthrottled.
  const platforms = await createPlatforms(target, Math.max(1, Math.ceil(plan.sessions / 200)));
  const sessions = await createSessions(target, platforms, plan.sessions, 24);
  log(`  load: ${sessions.length} sessions created`);
  const t0 = performance.now();
  const lives = await pool(sessions, 50, (s) => connect(target, s));
  const connectS = (performance.now() - t0) / 1000;
  log(`  load: ${lives.length * 2} sockets open in ${connectS.toFixed(1)} s`);
  // Let the objects settle (hibernation, GC) before reading memory with every socket open.
  await new Promise((r) => setTimeout(r, 2_000));
  const withSessions = await memoryOf(pids);
  const peak = { ...withSessions };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const m = await memoryOf(pids);
      peak.runtime_mb = Math.max(peak.runtime_mb, m.runtime_mb);
      peak.proxy_mb = Math.max(peak.proxy_mb, m.proxy_mb);
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const fixes = queryPoints(plan.sessions, plan.seed, 0);
  try {
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
    const stormS = (performance.now() - started) / 1000;
    const lost = await lostMessages(lives, 5_000);
    sampling = false;
    await sampler;
    const delivered = lives.reduce(
      (n, l) => n + l.patient.count("psap_results") + l.counselor.count("psap_results"),
      0,
    );
    const ok = outcomes.filter((o) => o.ok);
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
    log(`  load: storm over in ${stormS.toFixed(1)} s`);
    return {
      result: {
        sessions: lives.length,
        sockets: lives.length * 2,
        sos_delivered: delivered,
        lost_messages: lost,
        sessions_workerd_rss_mb: round(withSessions.runtime_mb, 0),
      },
      detail: {
        storm_s: round(stormS, 2),
        loops_ok: ok.length,
        loops_late: late,
        loop_ms_p50: round(p[50], 1),
        loop_ms_p99: round(p[99], 1),
        connect_s: round(connectS, 1),
        runtime_pid: pids.runtime,
        proxy_pid: pids.proxy,
        idle,
        before_load: beforeLoad,
        with_sessions: withSessions,
        storm_peak: peak,
        runtime_mb_per_session: round(
          (withSessions.runtime_mb - beforeLoad.runtime_mb) / Math.max(1, lives.length),
          3,
        ),
        errors: [...new Set(outcomes.filter((o) => !o.ok).map((o) => o.error ?? "failed"))].slice(0, 10),
      },
    };
  } finally {
    sampling = false;
    closeAll(lives);
  }
}
