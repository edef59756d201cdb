// Load benchmark: many live sessions (a patient and a counselor socket each), an SOS storm on all of
// them at once, every psap_results counted, and the workerd process's resident memory.

import type { LoadResult } from "./results.ts";
import { rssMb } from "./server.ts";
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

export interface LoadDetail {
  storm_s: number;
  loops_ok: number;
  loop_ms_p50: number;
  loop_ms_p99: number;
  connect_s: number;
  rss_idle_mb: number;
  errors: string[];
}

const STORM_TIMEOUT_MS = 60_000;

export async function benchLoad(
  target: Target,
  workerdPid: () => Promise<number | null>,
  plan: LoadPlan,
  log: (line: string) => void = () => {},
): Promise<{ result: LoadResult; detail: LoadDetail }> {
  // 600 requests a minute per API key: 200 sessions per platform keeps creation unthrottled.
  const platforms = await createPlatforms(target, Math.max(1, Math.ceil(plan.sessions / 200)));
  const sessions = await createSessions(target, platforms, plan.sessions, 24);
  log(`  load: ${sessions.length} sessions created`);
  const t0 = performance.now();
  const lives = await pool(sessions, 50, (s) => connect(target, s));
  const connectS = (performance.now() - t0) / 1000;
  log(`  load: ${lives.length * 2} sockets open in ${connectS.toFixed(1)} s`);
  const pid = await workerdPid();
  const rssIdle = pid ? await rssMb(pid) : Number.NaN;
  let rssMax = rssIdle;
  let sampling = true;
  const sampler = (async () => {
    while (sampling && pid) {
      rssMax = Math.max(rssMax, await rssMb(pid));
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
    if (pid) rssMax = Math.max(rssMax, await rssMb(pid));
    const delivered = lives.reduce(
      (n, l) => n + l.patient.count("psap_results") + l.counselor.count("psap_results"),
      0,
    );
    const ok = outcomes.filter((o) => o.ok);
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
        workerd_rss_mb: round(rssMax, 0),
      },
      detail: {
        storm_s: round(stormS, 2),
        loops_ok: ok.length,
        loop_ms_p50: round(p[50], 1),
        loop_ms_p99: round(p[99], 1),
        connect_s: round(connectS, 1),
        rss_idle_mb: round(rssIdle, 0),
        errors: [...new Set(outcomes.filter((o) => !o.ok).map((o) => o.error ?? "failed"))].slice(0, 10),
      },
    };
  } finally {
    sampling = false;
    closeAll(lives);
  }
}
