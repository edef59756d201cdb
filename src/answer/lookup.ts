// The answer to a fix, one floor above the index and its ranking: the PSAPs the index ranks (src/psap/), the
// country and the area in words with what can be dialled there (where.ts, src/emergency/), and the
// operator's lines beside the imported ones (src/contacts/). A US PSAP never answers a fix abroad.

import { PSAP_LIMITS } from "../../lib/config.ts";
import type { EmergencyNumbers, PsapArea, PsapEmptyReason, PsapRecord } from "../../sdk/src/protocol.ts";
import {
  type ContactNumbers,
  type ContactSource,
  currentContacts,
  withContacts,
} from "../contacts/overlay.ts";
import type { CountryLocation } from "../emergency/index.ts";
import { type PsapIndexStore, type PsapQuery, type RankedFix, rankFix } from "../psap/lookup.ts";
import { countryOfFix, describeArea, emergencyNumbersAt, isOutsideUs } from "./where.ts";

export interface PsapLookupResult {
  psaps: PsapRecord[];
  area: PsapArea;
  emergency: EmergencyNumbers;
  data_version: string;
  /** When the index of this data version was built (ISO 8601): LoST's `lastUpdated`. */
  data_updated_at: string;
  reason?: PsapEmptyReason;
}

export interface LookupOptions {
  /** Records wanted (clamped to what the index was built for). */
  limit?: number;
  /** The operator's lines (admin API), listed with the imported ones. */
  contacts?: ContactSource;
}

/** No US PSAP for this fix: where it is, what to dial there, no records. */
function outsideCoverage(
  lat: number,
  lon: number,
  country: () => CountryLocation,
  about: { data_version: string; data_updated_at: string },
): PsapLookupResult {
  const area = describeArea(lat, lon, null, null, null, country);
  return {
    psaps: [],
    area,
    emergency: emergencyNumbersAt(area),
    data_version: about.data_version,
    data_updated_at: about.data_updated_at,
    reason: "outside_coverage",
  };
}

/**
 * The PSAPs for a fix, best first (docs/contract.md, section 4), with the fix's area and emergency numbers.
 * Rejects with PsapIndexUnavailableError (nothing loaded) or PsapLookupFailedError (the index could not be
 * read), RangeError for a coordinate out of range.
 */
export async function lookupPsaps(
  store: PsapIndexStore,
  query: PsapQuery,
  options: LookupOptions = {},
): Promise<PsapLookupResult> {
  return answerFix(store, query, options);
}

/**
 * The same answer, as a value when nothing had to be read (the index's pointer and entry cached, the
 * operator's lines known): a hot lookup makes no promise and waits for no turn of the event loop. A
 * promise when something is read; every failure, also one on the hot path, is a rejected promise.
 */
export function answerFix(
  store: PsapIndexStore,
  query: PsapQuery,
  options: LookupOptions = {},
): PsapLookupResult | Promise<PsapLookupResult> {
  try {
    // Read alongside the index, not after it.
    const contacts = options.contacts ? currentContacts(options.contacts) : null;
    const ranking = rankFix(store, query, options.limit ?? PSAP_LIMITS.maxResults);
    if (ranking instanceof Promise) return ranking.then((ranked) => answerOf(query, ranked, contacts));
    return answerOf(query, ranking, contacts);
  } catch (error) {
    return Promise.reject(error);
  }
}

function answerOf(
  query: PsapQuery,
  ranked: RankedFix,
  contacts: ContactNumbers | Promise<ContactNumbers> | null,
): PsapLookupResult | Promise<PsapLookupResult> {
  const { latitude: lat, longitude: lon } = query;
  const country = countryOfFix(lat, lon);
  if (!ranked.covered) return outsideCoverage(lat, lon, country, ranked);
  // A US PSAP cannot send help abroad: a fix in Toronto gets no Buffalo PSAP (unless the US is within its accuracy).
  if (isOutsideUs(lat, lon, ranked.toleranceKm, ranked.county !== null || ranked.place !== null, country))
    return outsideCoverage(lat, lon, country, ranked);
  const area = describeArea(lat, lon, ranked.place, ranked.county, ranked.nearCounty, country);
  if (contacts instanceof Promise) return contacts.then((numbers) => withNumbers(ranked, area, numbers));
  return withNumbers(ranked, area, contacts);
}

function withNumbers(ranked: RankedFix, area: PsapArea, numbers: ContactNumbers | null): PsapLookupResult {
  const result: PsapLookupResult = {
    psaps: numbers && numbers.size > 0 ? withContacts(ranked.psaps, numbers) : ranked.psaps,
    area,
    emergency: emergencyNumbersAt(area),
    data_version: ranked.data_version,
    data_updated_at: ranked.data_updated_at,
  };
  if (ranked.psaps.length === 0) result.reason = "outside_coverage";
  return result;
}
