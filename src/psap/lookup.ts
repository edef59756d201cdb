// The index read at run time: the pointer (cached briefly) and one entry (cached in the isolate), and the
// fix's PSAPs ranked exactly from that entry. At most two KV reads per lookup, one in the common case.
// What the answer adds (the country, the area in words, the operator's lines, the emergency numbers) is one
// floor up, in src/answer/. Coordinates never reach a log line or an error.

import { PSAP_LIMITS } from "../../lib/config.ts";
import { LruCache } from "../../lib/lru-cache.ts";
import {
  type IndexManifest,
  MalformedIndexError,
  POINTER_KEY,
  parseManifest,
} from "../../lib/psap-index/format.ts";
import { MalformedRingError, toleranceKm } from "../../lib/psap-index/geometry.ts";
import type { PsapIndexStore } from "../../lib/psap-index/store.ts";
import { CellTree } from "../../lib/psap-index/tree.ts";
import type { PsapRecord } from "../../sdk/src/protocol.ts";
import { decodeEntry, type RankableEntry } from "./decode.ts";
import { type NamedArea, rankEntry } from "./rank.ts";

export interface PsapQuery {
  latitude: number;
  longitude: number;
  /** Metres (the browser's `coords.accuracy`). */
  accuracy?: number | null;
}

export type { PsapIndexStore } from "../../lib/psap-index/store.ts";

/** No index has been loaded at all (no pointer key). */
export class PsapIndexUnavailableError extends Error {
  readonly code = "psap_index_unavailable";
  constructor(message = "No PSAP index is loaded", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PsapIndexUnavailableError";
  }
}

/**
 * The index is loaded but could not be read for this fix (a KV error or timeout, a missing or corrupt
 * entry or pointer). Never an answer: the caller reports a failure of ours, not "no PSAP nearby".
 */
export class PsapLookupFailedError extends Error {
  readonly code = "psap_lookup_failed";
  constructor(message = "The PSAP index could not be read", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PsapLookupFailedError";
  }
}

interface Pointer {
  manifest: IndexManifest;
  tree: CellTree;
  expiresAt: number;
}

// The pointer is cached per store (a test may use several); entries are immutable under their
// versioned keys, so one isolate-wide cache serves every store. An entry is cached decoded: a hot
// lookup reads nothing and parses nothing.
let pointers = new WeakMap<PsapIndexStore, Pointer>();
const pointerReads = new WeakMap<PsapIndexStore, Promise<Pointer>>();
const entries = new LruCache<RankableEntry>(PSAP_LIMITS.entryCacheMaxEntries, PSAP_LIMITS.entryCacheMaxChars);
const entryReads = new Map<string, Promise<RankableEntry>>();

/** Forgets every cached pointer and entry (tests, and after a local re-import). */
export function resetPsapLookupCache(store?: PsapIndexStore): void {
  if (store) pointers.delete(store);
  else pointers = new WeakMap();
  entries.clear();
}

function currentPointer(store: PsapIndexStore): Pointer | Promise<Pointer> {
  const cached = pointers.get(store);
  if (cached && cached.expiresAt > Date.now()) return cached;
  // Concurrent lookups share one pointer read.
  let pending = pointerReads.get(store);
  if (!pending) {
    pending = readPointer(store, cached).finally(() => pointerReads.delete(store));
    pointerReads.set(store, pending);
  }
  return pending;
}

async function readPointer(store: PsapIndexStore, cached: Pointer | undefined): Promise<Pointer> {
  let text: string | null;
  try {
    text = await store.get(POINTER_KEY, "text");
  } catch (cause) {
    // A KV hiccup while an older pointer is still known: keep serving that version.
    if (cached) return cached;
    throw new PsapLookupFailedError("The PSAP index pointer could not be read", { cause });
  }
  if (text === null) {
    if (cached) return cached;
    throw new PsapIndexUnavailableError();
  }
  const manifest = parseManifest(text);
  if (!manifest) {
    if (cached) return cached;
    throw new PsapLookupFailedError("The PSAP index pointer is unreadable");
  }
  const sameVersion = cached?.manifest.version === manifest.version;
  const pointer: Pointer = {
    manifest,
    tree: sameVersion && cached ? cached.tree : new CellTree(manifest),
    expiresAt: Date.now() + PSAP_LIMITS.pointerCacheMs,
  };
  pointers.set(store, pointer);
  return pointer;
}

function loadEntry(
  store: PsapIndexStore,
  key: string,
  maxToleranceKm: number,
): RankableEntry | Promise<RankableEntry> {
  const hit = entries.get(key);
  if (hit) return hit;
  let pending = entryReads.get(key);
  if (!pending) {
    pending = readEntry(store, key, maxToleranceKm).finally(() => entryReads.delete(key));
    entryReads.set(key, pending);
  }
  return pending;
}

async function readEntry(store: PsapIndexStore, key: string, maxToleranceKm: number): Promise<RankableEntry> {
  let text: string | null;
  try {
    text = await store.get(key, "text");
  } catch (cause) {
    throw new PsapLookupFailedError("A PSAP index entry could not be read", { cause });
  }
  // The tree says this entry exists: if it is gone, that is our failure, not an empty answer.
  if (text === null) throw new PsapLookupFailedError("A PSAP index entry is missing");
  let entry: RankableEntry;
  try {
    entry = decodeEntry(text, maxToleranceKm);
  } catch (cause) {
    if (cause instanceof MalformedIndexError || cause instanceof MalformedRingError) {
      throw new PsapLookupFailedError("A PSAP index entry is corrupt", { cause });
    }
    throw cause;
  }
  // Only good entries are cached: a failure is tried again by the next lookup.
  entries.set(key, entry, text.length);
  return entry;
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

/** What the index says of a fix: its PSAPs ranked, and the areas around it that name where it is. */
export interface RankedFix {
  /** False where the index holds no PSAP within reach of the fix (its cell is empty). */
  covered: boolean;
  psaps: PsapRecord[];
  place: NamedArea | null;
  county: NamedArea | null;
  nearCounty: NamedArea | null;
  /** The border tolerance the fix was ranked with (its accuracy, at least the configured minimum), km. */
  toleranceKm: number;
  data_version: string;
  /** When the index of this data version was built (ISO 8601): LoST's `lastUpdated`. */
  data_updated_at: string;
}

/**
 * The fix's PSAPs, best first, as the index ranks them (docs/contract.md, section 4), at most `limit`
 * (clamped to what the index was built for). Fails with PsapIndexUnavailableError (nothing loaded) or
 * PsapLookupFailedError (the index could not be read), RangeError for a coordinate out of range.
 *
 * Not an async function: with the pointer and the entry cached, the ranked fix comes back as a value
 * (no promise made, no turn of the event loop awaited); a read from the store gives a promise. Every
 * failure, also one found on the hot path, is a rejected promise, as from an async function.
 */
export function rankFix(
  store: PsapIndexStore,
  query: PsapQuery,
  wanted: number,
): RankedFix | Promise<RankedFix> {
  try {
    if (!validCoordinate(query)) throw new RangeError("latitude or longitude out of range");
    const pointer = currentPointer(store);
    if (pointer instanceof Promise) return pointer.then((p) => rankWithPointer(store, p, query, wanted));
    return rankWithPointer(store, pointer, query, wanted);
  } catch (error) {
    return Promise.reject(error);
  }
}

function rankWithPointer(
  store: PsapIndexStore,
  pointer: Pointer,
  query: PsapQuery,
  wanted: number,
): RankedFix | Promise<RankedFix> {
  const { manifest } = pointer;
  const limit = Math.max(0, Math.min(Math.floor(Number.isFinite(wanted) ? wanted : 0), manifest.top_n));
  const tolerance = toleranceKm(query.accuracy, PSAP_LIMITS.minBorderToleranceM, manifest.max_tolerance_km);
  const located = pointer.tree.locate(query.latitude, query.longitude);
  if (located.kind === "corrupt") throw new PsapLookupFailedError("The PSAP index tree is corrupt");
  // Every field written out, no spread: a hot lookup builds one object of one shape here.
  if (located.kind === "empty")
    return {
      covered: false,
      psaps: [],
      place: null,
      county: null,
      nearCounty: null,
      toleranceKm: tolerance,
      data_version: manifest.data_version,
      data_updated_at: manifest.created_at,
    };
  const key = located.key;
  const entry = loadEntry(store, key, manifest.max_tolerance_km);
  if (entry instanceof Promise)
    return entry.then((e) => rankWithEntry(key, e, manifest, query, tolerance, limit));
  return rankWithEntry(key, entry, manifest, query, tolerance, limit);
}

function rankWithEntry(
  key: string,
  entry: RankableEntry,
  manifest: IndexManifest,
  query: PsapQuery,
  tolerance: number,
  limit: number,
): RankedFix {
  try {
    const ranked = rankEntry(
      entry,
      query.latitude,
      query.longitude,
      tolerance,
      limit,
      manifest.max_distance_km,
    );
    return {
      covered: true,
      psaps: ranked.psaps,
      place: ranked.place,
      county: ranked.county,
      nearCounty: ranked.nearCounty,
      toleranceKm: tolerance,
      data_version: manifest.data_version,
      data_updated_at: manifest.created_at,
    };
  } catch (cause) {
    // Rings are decoded when a fix first comes near them: a corrupt one shows up here. Forget the
    // entry, so that the next lookup reads it again, and report our failure, never an empty answer.
    if (!(cause instanceof MalformedRingError)) throw cause;
    entries.delete(key);
    throw new PsapLookupFailedError("A PSAP index entry is corrupt", { cause });
  }
}
