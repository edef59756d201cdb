// The one timing loop every lookup contender is measured by, and the grouping of points for hot passes.
import type { QueryPoint } from "./synthetic.ts";

const now = () => performance.now();

/**
 * Times `query` once per point, each call alone, with the same loop for every contender (a
 * promise is awaited inside the timed span: ours is async, as it is in the worker).
 */
export async function timeEach<A>(
  points: readonly QueryPoint[],
  query: (q: QueryPoint, i: number) => A | Promise<A>,
  onAnswer: (i: number, answer: A, us: number) => void = () => {},
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < points.length; i++) {
    const q = points[i] as QueryPoint;
    const t = now();
    const r = query(q, i);
    const answer = r instanceof Promise ? await r : r;
    const us = (now() - t) * 1000;
    out.push(us);
    onAnswer(i, answer, us);
  }
  return out;
}

/**
 * Groups consecutive points so that each group's entries fit the isolate cache together: warming
 * a group then timing it keeps every point's data in memory without repeating a point right after
 * its own load.
 */
export function cacheChunks(
  keysOf: readonly (readonly string[])[],
  sizeOf: (key: string) => number,
  limit: { entries: number; size: number },
): number[][] {
  const chunks: number[][] = [];
  let current: number[] = [];
  let keys = new Set<string>();
  let size = 0;
  const sum = (list: readonly string[]) => list.reduce((s, k) => s + sizeOf(k), 0);
  keysOf.forEach((pointKeys, i) => {
    let fresh = [...new Set(pointKeys)].filter((k) => !keys.has(k));
    if (current.length > 0 && (keys.size + fresh.length > limit.entries || size + sum(fresh) > limit.size)) {
      chunks.push(current);
      current = [];
      keys = new Set();
      size = 0;
      fresh = [...new Set(pointKeys)];
    }
    for (const k of fresh) keys.add(k);
    size += sum(fresh);
    current.push(i);
  });
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Cuts each group into slices of at most `size` points, in order: the unit the contenders take turns
 * on. A slice lies within one group, so its entries fit the cache together.
 */
export function hotSlices(groups: readonly (readonly number[])[], size: number): number[][] {
  const slices: number[][] = [];
  const step = Math.max(1, Math.floor(size));
  for (const group of groups) {
    for (let k = 0; k < group.length; k += step) slices.push(group.slice(k, k + step));
  }
  return slices;
}
