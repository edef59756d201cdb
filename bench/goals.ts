// The goals, checked against a run's figures (printed after the table, quoted in the README).
import type { BenchResults } from "./results.ts";

export interface GoalCheck {
  goal: string;
  met: boolean;
  figure: string;
}

const x = (a: number, b: number) => (a > 0 ? b / a : Number.NaN);

export function checkGoals(r: BenchResults, sdkBudget = 4096): GoalCheck[] {
  const out: GoalCheck[] = [];
  const fcc = r.lookup.find((l) => l.dataset === "fcc");
  const big = r.lookup.find((l) => l.dataset === "synthetic-1m");
  if (fcc) {
    const s = x(fcc.ours_us_p50, fcc.brute_us_p50);
    out.push({
      goal: "lookup ≥ 20× faster than brute force on FCC",
      met: s >= 20,
      figure: `${Math.round(s)}×`,
    });
    out.push({
      goal: "lookup faster than geokdbush hot on FCC",
      met: fcc.ours_us_p50 < fcc.geokdbush_us_p50,
      figure: `${fcc.ours_us_p50} µs vs ${fcc.geokdbush_us_p50} µs`,
    });
  }
  if (big) {
    const s = x(big.ours_us_p50, big.brute_us_p50);
    out.push({
      goal: "lookup ≥ 500× faster than brute force on 1,000,000",
      met: s >= 500,
      figure: `${Math.round(s)}×`,
    });
    out.push({
      goal: "lookup faster than geokdbush hot on 1,000,000",
      met: big.ours_us_p50 < big.geokdbush_us_p50,
      figure: `${big.ours_us_p50} µs vs ${big.geokdbush_us_p50} µs`,
    });
  }
  const reads = Math.max(...r.lookup.map((l) => l.kv_reads_p99));
  out.push({ goal: "at most 2 KV reads per lookup", met: reads <= 2, figure: `p99 ${reads}` });
  const e = r.e2e;
  out.push({
    goal: `SOS loop p99 ≤ 50 ms at ${e.sessions} concurrent sessions`,
    met: e.sessions >= 100 && e.sos_loop_ms_p99 <= 50,
    figure: `${e.sos_loop_ms_p99} ms`,
  });
  out.push({
    goal: "SOS loop p50 ≤ 4× the trivial round trip",
    met: e.sos_loop_ms_p50 <= 4 * e.trivial_rtt_ms_p50,
    figure: `${e.sos_loop_ms_p50} ms vs 4 × ${e.trivial_rtt_ms_p50} ms`,
  });
  out.push({
    goal: "1,000 sessions, nothing lost",
    met:
      r.load.sessions >= 1000 && r.load.lost_messages === 0 && r.load.sos_delivered === 2 * r.load.sessions,
    figure: `${r.load.sos_delivered} psap_results, ${r.load.lost_messages} lost`,
  });
  out.push({
    goal: "each SDK ≤ 4 KB min+gzip",
    met: r.sdk.patient_min_gz_bytes <= sdkBudget && r.sdk.counselor_min_gz_bytes <= sdkBudget,
    figure: `${r.sdk.patient_min_gz_bytes} B / ${r.sdk.counselor_min_gz_bytes} B`,
  });
  return out;
}
