// Coverage of the lines by state: PSAPs, those with any line, with a 24/7 line (emergency or dispatch), and
// with a line not read at its source for CONTACT_LIMITS.staleAfterDays. The import report and
// `npm run directory:check` print it; the admin API's coverage route counts the same from the catalogue.

import { isAroundTheClock, isStale } from "../../lib/lines.ts";
import type { PsapLine } from "../../sdk/src/protocol.ts";

export interface CoverageCounts {
  psaps: number;
  with_phone: number;
  with_24x7: number;
  stale: number;
}

export function emptyCounts(): CoverageCounts {
  return { psaps: 0, with_phone: 0, with_24x7: 0, stale: 0 };
}

/** Adds one PSAP's lines to its state's counts and the totals. */
export function countPsap(counts: CoverageCounts, lines: readonly PsapLine[], now: Date): void {
  counts.psaps++;
  if (lines.length > 0) counts.with_phone++;
  if (lines.some(isAroundTheClock)) counts.with_24x7++;
  if (lines.some((l) => isStale(l, now))) counts.stale++;
}

export function coverageByState(
  psaps: readonly { state: string; lines: readonly PsapLine[] }[],
  now: Date,
): { total: CoverageCounts; byState: Record<string, CoverageCounts> } {
  const total = emptyCounts();
  const byState: Record<string, CoverageCounts> = {};
  for (const p of psaps) {
    const s = byState[p.state] ?? emptyCounts();
    byState[p.state] = s;
    countPsap(s, p.lines, now);
    countPsap(total, p.lines, now);
  }
  return { total, byState };
}

/** Lines of a coverage table, one state a line, the states with the most PSAPs first. */
export function coverageTable(coverage: ReturnType<typeof coverageByState>): string[] {
  const pct = (n: number, of: number) => (of > 0 ? `${((100 * n) / of).toFixed(1)} %` : "-");
  const row = (name: string, c: CoverageCounts) =>
    `  ${name.padEnd(5)} ${String(c.psaps).padStart(5)} PSAPs, ${String(c.with_phone).padStart(4)} with a line (${pct(c.with_phone, c.psaps)}), ${String(c.with_24x7).padStart(4)} with a 24/7 line (${pct(c.with_24x7, c.psaps)}), ${c.stale} stale`;
  return [
    row("all", coverage.total),
    ...Object.entries(coverage.byState)
      .sort((a, b) => b[1].psaps - a[1].psaps || a[0].localeCompare(b[0]))
      .map(([state, c]) => row(state, c)),
  ];
}
