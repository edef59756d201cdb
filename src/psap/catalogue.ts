// The admin catalogue of the loaded index: find one PSAP, or list them by state, county or name fragment.
// Read on the admin path only (never on a lookup); every read goes to the store, so an operator sees the
// index exactly as it is now.
import {
  type CatalogueIndex,
  type CatalogueRecord,
  catalogueIndexKey,
  cataloguePartKey,
  type IndexManifest,
  POINTER_KEY,
  parseManifest,
} from "../../lib/psap-index/format.ts";
import { type PsapIndexStore, PsapIndexUnavailableError, PsapLookupFailedError } from "./lookup.ts";

export interface LoadedCatalogue {
  manifest: IndexManifest;
  index: CatalogueIndex;
}

async function read(store: PsapIndexStore, key: string): Promise<string | null> {
  try {
    return await store.get(key, "text");
  } catch (cause) {
    throw new PsapLookupFailedError("The PSAP catalogue could not be read", { cause });
  }
}

function parse<T>(text: string, what: string, check: (v: unknown) => boolean): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PsapLookupFailedError(`The PSAP ${what} is corrupt`);
  }
  if (!check(value)) throw new PsapLookupFailedError(`The PSAP ${what} is corrupt`);
  return value as T;
}

/** The current version's catalogue index. Throws PsapIndexUnavailableError when nothing is loaded. */
export async function loadCatalogue(store: PsapIndexStore): Promise<LoadedCatalogue> {
  const pointer = await read(store, POINTER_KEY);
  if (pointer === null) throw new PsapIndexUnavailableError();
  const manifest = parseManifest(pointer);
  if (!manifest) throw new PsapLookupFailedError("The PSAP index pointer is unreadable");
  const text = await read(store, catalogueIndexKey(manifest.version));
  if (text === null) throw new PsapLookupFailedError("The PSAP catalogue is missing");
  const index = parse<CatalogueIndex>(
    text,
    "catalogue",
    (v) => typeof v === "object" && v !== null && Array.isArray((v as CatalogueIndex).parts),
  );
  return { manifest, index };
}

async function readPart(
  store: PsapIndexStore,
  catalogue: LoadedCatalogue,
  part: number,
): Promise<CatalogueRecord[]> {
  const text = await read(store, cataloguePartKey(catalogue.manifest.version, part));
  if (text === null) throw new PsapLookupFailedError("A PSAP catalogue part is missing");
  return parse<CatalogueRecord[]>(text, "catalogue part", Array.isArray);
}

/** One PSAP by id, or null when the loaded index has none of that id. */
export async function findPsap(
  store: PsapIndexStore,
  catalogue: LoadedCatalogue,
  id: string,
): Promise<CatalogueRecord | null> {
  const part = catalogue.index.parts.findIndex((p) => p.first <= id && id <= p.last);
  if (part < 0) return null;
  return (await readPart(store, catalogue, part)).find((r) => r.id === id) ?? null;
}

export interface PsapFilter {
  /** USPS code. */
  state?: string;
  /** A county's name ("Cook", "Cook County") or its 5-digit FIPS code. */
  county?: string;
  /** A fragment of the name, any case. */
  q?: string;
}

function normalizeCounty(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+(county|parish|borough|census area|municipality)$/, "")
    .replace(/[^a-z0-9]/g, "");
}

function matches(r: CatalogueRecord, filter: PsapFilter): boolean {
  if (filter.state && r.state !== filter.state.toUpperCase()) return false;
  if (filter.q && !r.name.toLowerCase().includes(filter.q.toLowerCase())) return false;
  if (filter.county) {
    const c = filter.county.trim();
    if (/^\d{5}$/.test(c)) return r.served_counties.includes(c);
    return r.county !== null && normalizeCounty(r.county) === normalizeCounty(c);
  }
  return true;
}

/** A page of PSAPs in id order after `after` (the previous page's last id), and whether more follow. */
export async function listPsaps(
  store: PsapIndexStore,
  catalogue: LoadedCatalogue,
  filter: PsapFilter,
  after: string | null,
  limit: number,
): Promise<{ psaps: CatalogueRecord[]; last: string | null; more: boolean }> {
  const out: CatalogueRecord[] = [];
  const state = filter.state?.toUpperCase();
  for (let part = 0; part < catalogue.index.parts.length; part++) {
    const info = catalogue.index.parts[part];
    if (!info || (after !== null && info.last <= after)) continue;
    if (state && !info.states[state]) continue;
    for (const r of await readPart(store, catalogue, part)) {
      if (after !== null && r.id <= after) continue;
      if (!matches(r, filter)) continue;
      if (out.length === limit) return { psaps: out, last: out[out.length - 1]?.id ?? null, more: true };
      out.push(r);
    }
  }
  return { psaps: out, last: out[out.length - 1]?.id ?? null, more: false };
}
