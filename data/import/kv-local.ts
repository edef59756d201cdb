// The local KV store `wrangler dev` reads (.wrangler/state, or --persist-to), opened once in this process
// with the Miniflare wrangler itself uses for `wrangler kv ... --local`, so the files are laid out exactly
// as wrangler lays them out. One open (about a second) replaces a wrangler process per read, list and
// batch (2 to 4 s each): a first import's dozen of them were most of `npm run dev`'s first start.
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { unstable_readConfig } from "wrangler";
import { ImportError } from "./errors.ts";
import type { KvTarget } from "./kv.ts";

export interface LocalKvOptions {
  /** Repository root (where wrangler.toml is). */
  cwd: string;
  binding?: string;
  env?: string;
  /** wrangler's --persist-to (relative to `cwd`); else wrangler's default, .wrangler/state. */
  persistTo?: string;
}

/** Writes in flight at once: enough to keep the store busy, few enough to bound memory. */
const CONCURRENT_WRITES = 32;

type MiniflareModule = typeof import("miniflare");
type KvNamespace = Awaited<ReturnType<InstanceType<MiniflareModule["Miniflare"]>["getKVNamespace"]>>;

/** The miniflare package wrangler depends on (its own copy, not whichever another package brought). */
async function wranglersMiniflare(): Promise<MiniflareModule> {
  const fromWrangler = createRequire(import.meta.url).resolve("wrangler/package.json");
  const entry = createRequire(fromWrangler).resolve("miniflare");
  return (await import(pathToFileURL(entry).href)) as MiniflareModule;
}

export class LocalKvTarget implements KvTarget {
  readonly description: string;
  readonly #options: Required<Pick<LocalKvOptions, "cwd" | "binding">> & LocalKvOptions;
  #opened: Promise<{ namespace: KvNamespace; dispose: () => Promise<void> }> | null = null;

  constructor(options: LocalKvOptions) {
    this.#options = { binding: "PSAP_INDEX", ...options };
    this.description = `local KV binding ${this.#options.binding}${options.env ? ` (env ${options.env})` : ""}`;
  }

  /** The namespace, opened on first use (a dry run opens nothing). */
  #namespace(): Promise<KvNamespace> {
    this.#opened ??= this.#open();
    return this.#opened.then((opened) => opened.namespace);
  }

  async #open(): Promise<{ namespace: KvNamespace; dispose: () => Promise<void> }> {
    const { cwd, binding, env, persistTo } = this.#options;
    const config = unstable_readConfig({ config: join(cwd, "wrangler.toml"), env }, { hideWarnings: true });
    const id = config.kv_namespaces.find(
      (kv: { binding: string; id?: string }) => kv.binding === binding,
    )?.id;
    if (!id)
      throw new ImportError(
        `wrangler.toml has no KV namespace bound as ${binding}${env ? ` in env ${env}` : ""}`,
      );
    const persistRoot = persistTo ? resolve(cwd, persistTo) : join(cwd, ".wrangler", "state");
    const { Miniflare, convertV4MiniflareOptions } = await wranglersMiniflare();
    const mf = new Miniflare(
      convertV4MiniflareOptions({
        script: 'addEventListener("fetch", (e) => e.respondWith(new Response(null, { status: 404 })))',
        // wrangler's own layout: <persist>/v3/kv/<namespace id>.
        resourcePersistencePath: join(persistRoot, "v3"),
        kvNamespaces: { NAMESPACE: id },
      }),
    );
    return { namespace: await mf.getKVNamespace("NAMESPACE"), dispose: () => mf.dispose() };
  }

  /**
   * Runs `operation` on the namespace. An import builds its index between its reads and its writes,
   * holding this process for seconds; the store may close the idle connection meanwhile, and the next
   * call then fails on a closed socket. Every operation here is idempotent, so that one failure opens
   * the store again and runs the operation once more.
   */
  async #run<T>(operation: (namespace: KvNamespace) => Promise<T>): Promise<T> {
    try {
      return await operation(await this.#namespace());
    } catch (error) {
      if (!isClosedConnection(error)) throw error;
      await this.close().catch(() => undefined);
      return operation(await this.#namespace());
    }
  }

  get(key: string): Promise<string | null> {
    return this.#run((namespace) => namespace.get(key, "text"));
  }

  putMany(entries: ReadonlyArray<readonly [string, string]>): Promise<void> {
    return this.#run((namespace) => inBatches(entries, ([key, value]) => namespace.put(key, value)));
  }

  deleteMany(keys: readonly string[]): Promise<void> {
    return this.#run((namespace) => inBatches(keys, (key) => namespace.delete(key)));
  }

  listKeys(prefix: string): Promise<string[]> {
    return this.#run((namespace) => listAll(namespace, prefix));
  }

  async close(): Promise<void> {
    const opened = this.#opened;
    this.#opened = null;
    if (opened) await (await opened).dispose();
  }
}

/** Every key under `prefix`, page after page. */
async function listAll(namespace: KvNamespace, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await namespace.list({ prefix, cursor });
    keys.push(...page.keys.map((k) => k.name));
    if (page.list_complete) return keys;
    cursor = page.cursor;
  }
}

/** fetch's failure on a socket the other side closed (undici's UND_ERR_SOCKET). */
function isClosedConnection(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return cause?.code === "UND_ERR_SOCKET";
}

/** Runs `write` on every item, CONCURRENT_WRITES at a time; all are done when it resolves. */
async function inBatches<T>(items: readonly T[], write: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += CONCURRENT_WRITES) {
    await Promise.all(items.slice(i, i + CONCURRENT_WRITES).map(write));
  }
}
