// Brute-force reference for tests and benchmarks: the same ranking over the whole data set, no index.
import type { PsapRecord } from "../../sdk/src/protocol.ts";
import { PSAP_LIMITS } from "../config.ts";
import { decodeRings, encodeRings } from "./area.ts";
import { borderToleranceKm, type RankArea, type RankPool, rankPsaps } from "./rank.ts";
import type { PsapDataset } from "./types.ts";

/** Decodes a data set's areas once (through the same encoding as the index, so vertices agree). */
export function prepareReference(dataset: PsapDataset): RankPool {
  const indexOf = new Map(dataset.psaps.map((p, i) => [p.id, i]));
  const areas: RankArea[] = [];
  for (const a of dataset.areas) {
    const encoded = encodeRings(a.rings);
    if (encoded.length === 0) continue;
    const members = [...new Set(a.psapIds)].flatMap((id) => {
      const i = indexOf.get(id);
      return i === undefined ? [] : [i];
    });
    areas.push({ kind: a.kind, geometry: decodeRings(encoded), members });
  }
  return { psaps: dataset.psaps, areas, nearest: null };
}

/** Scans every PSAP and every area: what `lookupPsaps` must return, record for record. */
export function bruteForceLookup(
  reference: RankPool,
  query: { latitude: number; longitude: number; accuracy?: number | null },
  limit: number = PSAP_LIMITS.maxResults,
): PsapRecord[] {
  return rankPsaps(reference, query.latitude, query.longitude, borderToleranceKm(query.accuracy), limit);
}
