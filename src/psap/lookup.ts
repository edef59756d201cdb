// The runtime lookup: pointer (cached briefly) + one bucket (cached in the isolate) -> exact ranking.
// Coordinates are never logged or put in an error message.
import { latLngToCell } from "h3-js";
import type { EmergencyNumbers, PsapArea, PsapEmptyReason, PsapRecord } from "../../sdk/src/protocol.ts";
import { PSAP_LIMITS } from "../config.ts";
import { LruCache } from "./cache.ts";
import { bucketKey, type IndexManifest, POINTER_KEY, parseManifest } from "./format.ts";
import { type PreparedBucket, prepareBucketText, rankPrepared } from "./prepared.ts";
import { borderToleranceKm } from "./rank.ts";

export interface PsapQuery {
  latitude: number;
  longitude: number;
  /** Metres (the browser's `coords.accuracy`). */
  accuracy?: number | null;
}

export interface PsapLookupResult {
  psaps: PsapRecord[];
  area: PsapArea;
  emergency: EmergencyNumbers;
  data_version: string;
  reason?: PsapEmptyReason;
}

/** Minimal KV read interface so node tests and benchmarks can pass an in-memory store that counts reads. */
export interface PsapIndexStore {
  get(key: string, type: "text"): Promise<string | null>;
  get(key: string, type: "arrayBuffer"): Promise<ArrayBuffer | null>;
}

/** No index has been loaded at all (no pointer key, or one this code cannot read). */
export class PsapIndexUnavailableError extends Error {
  readonly code = "psap_index_unavailable";
  static readonly code = "psap_index_unavailable";
  constructor(message = "No PSAP index is loaded", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PsapIndexUnavailableError";
  }
}

/**
 * The index is loaded but could not be read for this fix (a KV error or timeout, a missing or corrupt
 * entry). Never an answer: the caller reports a failure of ours, not "no PSAP nearby".
 */
export class PsapLookupFailedError extends Error {
  readonly code = "psap_lookup_failed";
  static readonly code = "psap_lookup_failed";
  constructor(message = "The PSAP index could not be read", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PsapLookupFailedError";
  }
}

interface PointerEntry {
  manifest: IndexManifest;
  /** The manifest's cells, for a quick "should this cell have an entry?". */
  cells: ReadonlySet<string>;
  expiresAt: number;
}

// The pointer is cached per store (a test may use several); buckets are immutable under their
// versioned keys, so one isolate-wide cache serves every store. A bucket is cached prepared for
// ranking (prepared.ts): the preparation is paid once, by the lookup that reads it.
let pointers = new WeakMap<PsapIndexStore, PointerEntry>();
const buckets = new LruCache<PreparedBucket>(
  PSAP_LIMITS.bucketCacheMaxEntries,
  PSAP_LIMITS.bucketCacheMaxChars,
);
const inflight = new Map<string, Promise<PreparedBucket>>();

/** Forgets every cached pointer and bucket (tests, and after a local re-import). */
export function resetPsapLookupCache(store?: PsapIndexStore): void {
  if (store) pointers.delete(store);
  else pointers = new WeakMap();
  buckets.clear();
}

const pointerReads = new WeakMap<PsapIndexStore, Promise<PointerEntry>>();

async function currentManifest(store: PsapIndexStore): Promise<PointerEntry> {
  const cached = pointers.get(store);
  if (cached && cached.expiresAt > Date.now()) return cached;
  // Concurrent lookups share one pointer read.
  const pending = pointerReads.get(store);
  if (pending) return pending;
  const read = readManifest(store, cached);
  pointerReads.set(store, read);
  try {
    return await read;
  } finally {
    pointerReads.delete(store);
  }
}

async function readManifest(store: PsapIndexStore, cached: PointerEntry | undefined): Promise<PointerEntry> {
  const now = Date.now();
  let text: string | null;
  try {
    text = await store.get(POINTER_KEY, "text");
  } catch (cause) {
    if (cached) return cached;
    throw new PsapLookupFailedError("The PSAP index pointer could not be read", { cause });
  }
  const manifest = text === null ? null : parseManifest(text);
  if (!manifest) {
    // A pointer that vanished while one was cached: keep serving the cached version.
    if (cached) return cached;
    if (text === null) throw new PsapIndexUnavailableError();
    throw new PsapLookupFailedError("The PSAP index pointer is unreadable");
  }
  const entry = { manifest, cells: new Set(manifest.cells), expiresAt: now + PSAP_LIMITS.pointerCacheMs };
  pointers.set(store, entry);
  return entry;
}

async function loadBucket(store: PsapIndexStore, key: string, cell: string): Promise<PreparedBucket> {
  const hit = buckets.get(key);
  if (hit !== undefined) return hit;
  const pending = inflight.get(key);
  if (pending) return pending;
  const read = (async () => {
    let text: string | null;
    try {
      text = await store.get(key, "text");
    } catch (cause) {
      throw new PsapLookupFailedError("A PSAP index entry could not be read", { cause });
    }
    // The manifest lists every cell with an entry: a listed one that is gone is our failure.
    if (text === null) throw new PsapLookupFailedError("A PSAP index entry is missing");
    let pool: PreparedBucket;
    try {
      pool = prepareBucketText(text, cell);
    } catch (cause) {
      throw new PsapLookupFailedError("A PSAP index entry is corrupt", { cause });
    }
    // Only good entries are cached: a failure is retried on the next lookup.
    buckets.set(key, pool, text.length);
    return pool;
  })();
  inflight.set(key, read);
  try {
    return await read;
  } finally {
    inflight.delete(key);
  }
}

function validCoordinate(q: PsapQuery): boolean {
  return (
    typeof q.latitude === "number" &&
    typeof q.longitude === "number" &&
    Number.isFinite(q.latitude) &&
    Number.isFinite(q.longitude) &&
    Math.abs(q.latitude) <= 90 &&
    Math.abs(q.longitude) <= 180
  );
}

/**
 * The PSAPs for a fix, best first (SPEC section 4). At most two KV reads: the pointer (only when
 * its isolate cache has expired) and the fix's bucket (only when not cached).
 */
export async function lookupPsaps(
  store: PsapIndexStore,
  query: PsapQuery,
  options: { limit?: number } = {},
): Promise<PsapLookupResult> {
  if (!validCoordinate(query)) throw new RangeError("latitude or longitude out of range");
  // The hot path awaits nothing: a cached pointer and a cached bucket are used as they are.
  const cachedPointer = pointers.get(store);
  const pointer =
    cachedPointer && cachedPointer.expiresAt > Date.now() ? cachedPointer : await currentManifest(store);
  const manifest = pointer.manifest;
  const wanted = options.limit ?? PSAP_LIMITS.maxResults;
  const limit = Math.max(0, Math.min(Math.floor(Number.isFinite(wanted) ? wanted : 0), manifest.top_n));
  const cell = latLngToCell(query.latitude, query.longitude, manifest.resolution);
  const key = bucketKey(manifest.version, cell);
  const hit = buckets.get(key);
  const pool = hit !== undefined ? hit : pointer.cells.has(cell) ? await loadBucket(store, key, cell) : null;
  const psaps = pool
    ? rankPrepared(pool, query.latitude, query.longitude, borderToleranceKm(query.accuracy), limit)
    : [];
  // Interim until the area index and the emergency-number table land: nothing claimed but the US numbers.
  const result: PsapLookupResult = {
    psaps,
    area: { country: null, state: null, county: null, place: null, place_kind: null },
    emergency: {
      country: null,
      numbers: [
        { number: "911", service: "all" },
        { number: "988", service: "crisis" },
      ],
    },
    data_version: manifest.data_version,
  };
  if (psaps.length === 0) result.reason = "outside_coverage";
  return result;
}
