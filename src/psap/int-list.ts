// A list of small non-negative integers (PSAP and area positions in an entry) that keeps its memory from
// one lookup to the next. The ranking's scratch lists used to be arrays emptied with `length = 0`, which
// hands their storage back to the heap: every lookup then grew them again, and the garbage collector
// took a fifth of a hot lookup's time.

export class IntList {
  items: Int32Array;
  size = 0;

  constructor(capacity = 64) {
    this.items = new Int32Array(capacity);
  }

  clear(): void {
    this.size = 0;
  }

  push(value: number): void {
    if (this.size === this.items.length) {
      const grown = new Int32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.size++] = value;
  }

  /** Removes the item at `k` in O(1), the last item taking its place (the order is not kept). */
  swapRemove(k: number): number {
    const value = this.items[k] as number;
    this.size--;
    this.items[k] = this.items[this.size] as number;
    return value;
  }
}
