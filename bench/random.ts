// Seeded pseudo-random numbers for the benchmarks: the same seed gives the same data sets and queries.

/** A uniform generator in [0, 1). */
export type Random = () => number;

/** sfc32 seeded through splitmix32: fast, 128-bit state, and good enough for sampling. */
export function seededRandom(seed: number): Random {
  let s = seed >>> 0;
  const split = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split();
  let b = split();
  let c = split();
  let d = split();
  return () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
}

/** A standard normal deviate (Box-Muller; one of the pair is dropped for simplicity). */
export function gaussian(random: Random): number {
  let u = random();
  while (u === 0) u = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** Picks indexes with probability proportional to `weights` (prefix sums and binary search). */
export function weightedPicker(weights: readonly number[], random: Random): () => number {
  const prefix = new Float64Array(weights.length);
  let total = 0;
  weights.forEach((w, i) => {
    total += Math.max(0, w);
    prefix[i] = total;
  });
  if (total <= 0) throw new RangeError("weights must have a positive sum");
  return () => {
    const x = random() * total;
    let lo = 0;
    let hi = prefix.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((prefix[mid] as number) > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}
