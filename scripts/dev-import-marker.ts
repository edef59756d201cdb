// `npm run dev`'s import marker in the local PSAP index store (src/psap-import-marker.ts): written before
// the import starts, renewed while it runs, deleted once it ends, however it ends. Until then a lookup
// answers that the data is still loading, not that an operator must import it.
import { LocalKvTarget } from "../data/import/kv-local.ts";
import { IMPORT_MARKER_KEY, IMPORT_MARKER_TTL_MS, importMarker } from "../src/psap-import-marker.ts";
import { ROOT, warn } from "./dev-run.ts";

/** Renewed well within its lifetime, so an import slowed down by a busy machine stays marked. */
const RENEW_MS = IMPORT_MARKER_TTL_MS / 3;

export interface ImportMark {
  /**
   * Deletes the marker: the import ended (the index is in, or it failed and nothing is coming). Through
   * `store` when one is open, else one opened for it. Never throws.
   */
  done(store?: LocalKvTarget): Promise<void>;
}

export interface MarkOptions {
  /** An open store for the first write (the caller closes it); else one is opened for it. */
  store?: LocalKvTarget;
  renewMs?: number;
}

/**
 * Marks an import of the store `wrangler dev` reads (`persistTo`: its --persist-to) as under way. Each
 * renewal opens the store, writes and lets it go: the import writes to the same files meanwhile. Never
 * throws: without the marker a lookup says less, but the import goes on.
 */
export async function markImportRunning(
  persistTo: string | undefined,
  { store, renewMs = RENEW_MS }: MarkOptions = {},
): Promise<ImportMark> {
  const startedAt = Date.now();
  const write = (open?: LocalKvTarget) =>
    withStore(persistTo, open, (target) =>
      target.putMany([[IMPORT_MARKER_KEY, JSON.stringify(importMarker(startedAt, Date.now()))]]),
    ).catch((error: unknown) => warn(`could not mark the PSAP import as running: ${String(error)}`));
  await write(store);
  let renewing = Promise.resolve();
  const timer = setInterval(() => {
    renewing = write();
  }, renewMs);
  timer.unref();
  return {
    async done(open) {
      clearInterval(timer);
      await renewing;
      await withStore(persistTo, open, (target) => target.deleteMany([IMPORT_MARKER_KEY])).catch(
        (error: unknown) =>
          warn(`could not clear the PSAP import marker (it lapses by itself): ${String(error)}`),
      );
    },
  };
}

/** Runs `use` on `open`, or on a store opened for it and let go after. */
async function withStore(
  persistTo: string | undefined,
  open: LocalKvTarget | undefined,
  use: (store: LocalKvTarget) => Promise<void>,
): Promise<void> {
  if (open) return use(open);
  const store = new LocalKvTarget({ cwd: ROOT, persistTo });
  try {
    await use(store);
  } finally {
    await store.close();
  }
}
