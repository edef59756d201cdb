// The KV read interface the index is read through: a KV namespace in the worker, an in-memory store in
// node tests and benchmarks (data/index/memory-store.ts).
export interface PsapIndexStore {
  get(key: string, type: "text"): Promise<string | null>;
}
