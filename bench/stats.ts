// Percentiles and rounding for the figures the benchmarks print.

/** The p-th percentile (0..100) by the nearest-rank method: a value that was actually measured. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError("percentile must be within 0..100");
  const sorted = Float64Array.from(values).sort();
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** Several percentiles of one sample, sorted once. */
export function percentiles<P extends number>(
  values: readonly number[],
  ps: readonly P[],
): Record<P, number> {
  const sorted = Float64Array.from(values).sort();
  const out = {} as Record<P, number>;
  for (const p of ps) {
    if (sorted.length === 0) {
      out[p] = Number.NaN;
      continue;
    }
    const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
    out[p] = sorted[rank - 1] as number;
  }
  return out;
}

/** Rounds to `digits` decimals (figures in a table and in JSON). */
export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
