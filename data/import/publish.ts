// The atomic switch: every entry and catalogue key of the new version first, the pointer last, then the cleanup of
// versions two or more imports old (once no cache can still point at them).
import {
  type IndexManifest,
  LEGACY_POINTER_KEYS,
  manifestJson,
  POINTER_KEY,
  parseManifest,
  versionPrefix,
} from "../../lib/psap-index/format.ts";
import type { BuiltIndex } from "../index/build.ts";
import type { KvTarget } from "./kv.ts";

/** A superseded version stays readable at least this long (isolate pointer cache 30 s + KV edge cache 60 s, with room). */
export const SUPERSEDED_GRACE_MS = 10 * 60_000;

export async function readCurrentManifest(target: KvTarget): Promise<IndexManifest | null> {
  const text = await target.get(POINTER_KEY);
  return text === null ? null : parseManifest(text);
}

/** What an import needs of the index it replaces: its version and the versions it still keeps. */
export type ReplacedIndex = Pick<IndexManifest, "version" | "previous">;

/** The version a pointer of an earlier format names (and the versions it keeps), read leniently. */
async function readLegacyPointer(target: KvTarget, key: string): Promise<ReplacedIndex | null> {
  const text = await target.get(key);
  if (text === null) return null;
  try {
    const m = JSON.parse(manifestJson(text)) as Partial<IndexManifest>;
    if (typeof m?.version !== "string") return null;
    const previous = Array.isArray(m.previous)
      ? m.previous.filter((p) => typeof p?.version === "string" && typeof p?.superseded_at === "string")
      : [];
    return { version: m.version, previous };
  } catch {
    return null;
  }
}

/**
 * The index an import replaces: the current pointer's, or else one an earlier format's pointer names,
 * so that its entries are deleted like any superseded version's once no worker can still read them.
 */
export async function readReplacedIndex(target: KvTarget): Promise<ReplacedIndex | null> {
  const current = await readCurrentManifest(target);
  if (current) return current;
  for (const key of LEGACY_POINTER_KEYS) {
    const legacy = await readLegacyPointer(target, key);
    if (legacy) return legacy;
  }
  return null;
}

/**
 * Versions to keep in the new manifest's history, and versions to delete after the switch: the
 * version being replaced is always kept; older ones go once superseded for the grace period.
 */
export function planVersions(
  current: ReplacedIndex | null,
  now: Date,
  graceMs: number = SUPERSEDED_GRACE_MS,
): { previous: IndexManifest["previous"]; toDelete: string[] } {
  if (!current) return { previous: [], toDelete: [] };
  const history = [
    { version: current.version, superseded_at: now.toISOString() },
    ...(current.previous ?? []),
  ];
  const previous: IndexManifest["previous"] = [];
  const toDelete: string[] = [];
  history.forEach((h, i) => {
    const old = now.getTime() - Date.parse(h.superseded_at) >= graceMs;
    if (i >= 1 && old) toDelete.push(h.version);
    else previous.push(h);
  });
  return { previous, toDelete };
}

export interface PublishResult {
  entryKeys: number;
  catalogueKeys: number;
  /** Entries, catalogue and the pointer. */
  keysWritten: number;
  deletedVersions: string[];
  keysDeleted: number;
}

export async function publishIndex(
  target: KvTarget,
  built: BuiltIndex,
  toDelete: readonly string[],
): Promise<PublishResult> {
  await target.putMany([...built.entries, ...built.catalogue]);
  await target.putMany([[built.pointerKey, built.pointerValue]]);
  let keysDeleted = 0;
  for (const version of toDelete) {
    const keys = await target.listKeys(versionPrefix(version));
    await target.deleteMany(keys);
    keysDeleted += keys.length;
  }
  // An earlier format's pointer goes with the last version it names.
  for (const key of toDelete.length > 0 ? LEGACY_POINTER_KEYS : []) {
    const legacy = await readLegacyPointer(target, key);
    if (legacy && toDelete.includes(legacy.version)) {
      await target.deleteMany([key]);
      keysDeleted++;
    }
  }
  return {
    entryKeys: built.entries.size,
    catalogueKeys: built.catalogue.size,
    keysWritten: built.entries.size + built.catalogue.size + 1,
    deletedVersions: [...toDelete],
    keysDeleted,
  };
}
