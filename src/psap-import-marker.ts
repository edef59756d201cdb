// While `npm run dev` imports the PSAP data, it keeps a marker in the index's KV namespace
// (scripts/dev-import-marker.ts writes it, renews it and deletes it). A lookup that finds no index reads
// it to tell the truth: the data is still loading, retry in a moment. "The operator must import it" is
// left for a deployment with no data and no import under way.

/** Outside the index's own keys (`psap:current:*`, `psap:v:*`), which an import writes and prunes. */
export const IMPORT_MARKER_KEY = "psap:import-running";

/** How long a marker holds unless renewed: an importer that died stops counting after this. */
export const IMPORT_MARKER_TTL_MS = 180_000;

/** The marker's value: when the import started, and until when the marker holds. */
export interface ImportMarker {
  started_at: string;
  until: string;
}

export function importMarker(startedAt: number, now: number): ImportMarker {
  return {
    started_at: new Date(startedAt).toISOString(),
    until: new Date(now + IMPORT_MARKER_TTL_MS).toISOString(),
  };
}

/** Whether an import is under way: a marker whose `until` is still ahead. Anything unreadable: no. */
export async function importUnderWay(
  store: { get(key: string, type: "text"): Promise<string | null> },
  now = Date.now(),
): Promise<boolean> {
  try {
    const text = await store.get(IMPORT_MARKER_KEY, "text");
    if (text === null) return false;
    const until = Date.parse(String((JSON.parse(text) as Partial<ImportMarker>).until));
    return Number.isFinite(until) && until > now;
  } catch {
    return false;
  }
}
