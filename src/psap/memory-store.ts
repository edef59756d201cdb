// An in-memory PSAP index store that counts reads: for node tests and benchmarks.
import type { BuiltIndex } from "./build.ts";
import type { PsapIndexStore } from "./lookup.ts";

export class MemoryPsapStore implements PsapIndexStore {
  readonly data = new Map<string, string>();
  reads = 0;

  static fromIndex(index: BuiltIndex): MemoryPsapStore {
    const store = new MemoryPsapStore();
    store.putIndex(index);
    return store;
  }

  /** Writes the buckets, then the pointer (the import's order). */
  putIndex(index: BuiltIndex): void {
    for (const [k, v] of index.buckets) this.data.set(k, v);
    this.data.set(index.pointerKey, index.pointerValue);
  }

  get(key: string, type: "text"): Promise<string | null>;
  get(key: string, type: "arrayBuffer"): Promise<ArrayBuffer | null>;
  async get(key: string, type: "text" | "arrayBuffer"): Promise<string | ArrayBuffer | null> {
    this.reads++;
    const v = this.data.get(key);
    if (v === undefined) return null;
    return type === "text" ? v : (new TextEncoder().encode(v).buffer as ArrayBuffer);
  }
}
