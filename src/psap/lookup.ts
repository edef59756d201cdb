// The runtime lookup: the pointer (cached briefly) and one entry (cached in the isolate), ranked exactly.
// At most two KV reads per lookup, one in the common case. Coordinates never reach a log line or an error.
import type { EmergencyNumbers, PsapArea, PsapEmptyReason, PsapRecord } from "../../sdk/src/protocol.ts";
import { PSAP_LIMITS } from "../config.ts";
import { type ContactSource, currentContacts, withContacts } from "../contacts/overlay.ts";
import type { CountryLocation } from "../emergency/index.ts";
import { LruCache } from "../lru-cache.ts";
import { decodeEntry, type RankableEntry } from "./decode.ts";
import { type IndexManifest, MalformedIndexError, POINTER_KEY, parseManifest } from "./format.ts";
import { MalformedRingError, toleranceKm } from "./geometry.ts";
import { rankEntry } from "./rank.ts";
import { CellTree } from "./tree.ts";
import { countryOfFix, describeArea, emergencyNumbersAt, isOutsideUs } from "./where.ts";

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
  /** When the index of this data version was built (ISO 8601): LoST's `lastUpdated`. */
  data_updated_at: string;
  reason?: PsapEmptyReason;
}

/** The KV read interface: a KV namespace, or an in-memory store in node tests and benchmarks. */
export interface PsapIndexStore {
  get(key: string, type: "text"): Promise<string | null>;
}

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

/** No US PSAP for this fix: where it is, what to dial there, no records. */
function outsideCoverage(
  lat: number,
  lon: number,
  country: () => CountryLocation,
  manifest: IndexManifest,
): PsapLookupResult {
  const area = describeArea(lat, lon, null, null, null, country);
  return {
    psaps: [],
    area,
    emergency: emergencyNumbersAt(area),
    data_version: manifest.data_version,
    data_updated_at: manifest.created_at,
    reason: "outside_coverage",
  };
}

/**
 * The PSAPs for a fix, best first (SPEC section 4), with the fix's area and emergency numbers.
 * Throws PsapIndexUnavailableError (nothing loaded) or PsapLookupFailedError (the index could not be read).
 */
export interface LookupOptions {
  /** Records wanted (clamped to what the index was built for). */
  limit?: number;
  /** The operator's lines (admin API), listed with the imported ones. */
  contacts?: ContactSource;
}

export async function lookupPsaps(
  store: PsapIndexStore,
  query: PsapQuery,
  options: LookupOptions = {},
): Promise<PsapLookupResult> {
  if (!validCoordinate(query)) throw new RangeError("latitude or longitude out of range");
  const { latitude: lat, longitude: lon } = query;
  // Read alongside the index, not after it.
  const contacts = options.contacts ? currentContacts(options.contacts) : null;
  // The hot path awaits nothing: a cached pointer, entry and fresh contact list are used as they are.
  const cachedPointer = currentPointer(store);
  const pointer = cachedPointer instanceof Promise ? await cachedPointer : cachedPointer;
  const { manifest } = pointer;
  const wanted = options.limit ?? PSAP_LIMITS.maxResults;
  const limit = Math.max(0, Math.min(Math.floor(Number.isFinite(wanted) ? wanted : 0), manifest.top_n));
  const tolerance = toleranceKm(query.accuracy, PSAP_LIMITS.minBorderToleranceM, manifest.max_tolerance_km);

  const country = countryOfFix(lat, lon);
  const located = pointer.tree.locate(lat, lon);
  if (located.kind === "corrupt") throw new PsapLookupFailedError("The PSAP index tree is corrupt");
  if (located.kind === "empty") return outsideCoverage(lat, lon, country, manifest);
  const key = located.key;
  const cachedEntry = loadEntry(store, key, manifest.max_tolerance_km);
  const entry = cachedEntry instanceof Promise ? await cachedEntry : cachedEntry;
  let ranked: ReturnType<typeof rankEntry>;
  try {
    ranked = rankEntry(entry, lat, lon, tolerance, limit, manifest.max_distance_km);
  } catch (cause) {
    // Rings are decoded when a fix first comes near them: a corrupt one shows up here. Forget the
    // entry, so that the next lookup reads it again, and report our failure, never an empty answer.
    if (!(cause instanceof MalformedRingError)) throw cause;
    entries.delete(key);
    throw new PsapLookupFailedError("A PSAP index entry is corrupt", { cause });
  }
  // A US PSAP cannot send help abroad: a fix in Toronto gets no Buffalo PSAP (unless the US is within its accuracy).
  if (isOutsideUs(lat, lon, tolerance, ranked.county !== null || ranked.place !== null, country))
    return outsideCoverage(lat, lon, country, manifest);
  const area = describeArea(lat, lon, ranked.place, ranked.county, ranked.nearCounty, country);
  const numbers = contacts instanceof Promise ? await contacts : contacts;
  const result: PsapLookupResult = {
    psaps: numbers && numbers.size > 0 ? withContacts(ranked.psaps, numbers) : ranked.psaps,
    area,
    emergency: emergencyNumbersAt(area),
    data_version: manifest.data_version,
    data_updated_at: manifest.created_at,
  };
  if (ranked.psaps.length === 0) result.reason = "outside_coverage";
  return result;
}
