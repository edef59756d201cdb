// A small least-recently-used cache, bounded by entry count and by a caller-given size (the PSAP lookup's
// decoded entries, the session tokens an isolate has verified). A hit among the newer half of the entries
// is not moved: it cannot be the next one dropped anyway, and a hot hit then costs one map read instead of
// a delete and an insert.

export class LruCache<V> {
  private map = new Map<string, { value: V; size: number; order: number }>();
  private total = 0;
  /** Counts insertions and moves: an entry's `order` is this count when it last went to the back. */
  private moves = 0;
  private readonly maxEntries: number;
  private readonly maxSize: number;

  constructor(maxEntries: number, maxSize: number) {
    this.maxEntries = maxEntries;
    this.maxSize = maxSize;
  }

  get(key: string): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    if (this.moves - hit.order >= this.map.size / 2) {
      this.map.delete(key);
      this.map.set(key, hit);
      hit.order = ++this.moves;
    }
    return hit.value;
  }

  set(key: string, value: V, size: number): void {
    const old = this.map.get(key);
    if (old) {
      this.total -= old.size;
      this.map.delete(key);
    }
    if (size > this.maxSize) return;
    this.map.set(key, { value, size, order: ++this.moves });
    this.total += size;
    for (const [k, v] of this.map) {
      if (this.map.size <= this.maxEntries && this.total <= this.maxSize) break;
      this.map.delete(k);
      this.total -= v.size;
    }
  }

  delete(key: string): void {
    const old = this.map.get(key);
    if (!old) return;
    this.total -= old.size;
    this.map.delete(key);
  }

  get size(): number {
    return this.map.size;
  }

  clear(): void {
    // A fresh map, not Map.prototype.clear(): V8 keeps a cleared map's old table (in the old
    // generation) pointing at the dropped values, so scavenges would copy and promote them.
    this.map = new Map();
    this.total = 0;
  }
}
