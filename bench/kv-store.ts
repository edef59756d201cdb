// An in-memory KV store for the lookup bench: counts reads, records what each lookup read, and
// times the store's own work apart, so a cold lookup's CPU time is its total less the store's.
import type { KvValue, PsapIndexStore } from "./lookup-contenders.ts";

export type ReadType = "text" | "arrayBuffer";

export interface KvRead {
  key: string;
  type: ReadType;
  bytes: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function valueBytes(value: KvValue): number {
  return typeof value === "string" ? Buffer.byteLength(value) : value.byteLength;
}

export class BenchKvStore implements PsapIndexStore {
  readonly #data: ReadonlyMap<string, KvValue>;
  reads = 0;
  /** Milliseconds spent inside `get` (decoding a value as asked, as the KV binding would). */
  storeMs = 0;
  /** Reads since the last `take()`. */
  #log: KvRead[] = [];

  constructor(data: ReadonlyMap<string, KvValue>) {
    this.#data = data;
  }

  get(key: string, type: "text"): Promise<string | null>;
  get(key: string, type: "arrayBuffer"): Promise<ArrayBuffer | null>;
  async get(key: string, type: ReadType): Promise<string | ArrayBuffer | null> {
    const t = performance.now();
    this.reads++;
    const value = this.#data.get(key);
    let out: string | ArrayBuffer | null = null;
    if (value !== undefined) {
      this.#log.push({ key, type, bytes: valueBytes(value) });
      if (type === "text") out = typeof value === "string" ? value : decoder.decode(value);
      else {
        const bytes = typeof value === "string" ? encoder.encode(value) : value;
        out = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
      }
    } else this.#log.push({ key, type, bytes: 0 });
    this.storeMs += performance.now() - t;
    return out;
  }

  /** The reads recorded since the last call, and a fresh log. */
  take(): KvRead[] {
    const log = this.#log;
    this.#log = [];
    return log;
  }

  value(key: string): KvValue | undefined {
    return this.#data.get(key);
  }
}
