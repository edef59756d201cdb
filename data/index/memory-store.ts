// An in-memory PSAP index store that counts reads: for node tests and benchmarks.
import type { PsapIndexStore } from "../../lib/psap-index/store.ts";
import type { BuiltIndex } from "./build.ts";

export class MemoryPsapStore implements PsapIndexStore {
  readonly data = new Map<string, string>();
  reads = 0;

  static fromIndex(index: BuiltIndex): MemoryPsapStore {
    const store = new MemoryPsapStore();
    store.putIndex(index);
    return store;
  }

  /** Writes the entries and the catalogue, then the pointer (the import's order). */
  putIndex(index: BuiltIndex): void {
    for (const [k, v] of index.entries) this.data.set(k, v);
    for (const [k, v] of index.catalogue) this.data.set(k, v);
    this.data.set(index.pointerKey, index.pointerValue);
  }

  async get(key: string, _type: "text"): Promise<string | null> {
    this.reads++;
    return this.data.get(key) ?? null;
  }
}
