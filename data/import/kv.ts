// Where an import writes: a deployed namespace (--remote, through wrangler's CLI and so its login), the
// local store `npm run dev` uses (kv-local.ts), or memory (tests).
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ImportError } from "./errors.ts";

export interface KvTarget {
  readonly description: string;
  get(key: string): Promise<string | null>;
  /** Writes many entries; resolves only when all are stored. */
  putMany(entries: ReadonlyArray<readonly [string, string]>): Promise<void>;
  deleteMany(keys: readonly string[]): Promise<void>;
  listKeys(prefix: string): Promise<string[]>;
  /** Lets go of what the target opened (a local store); nothing to do for the others. */
  close?(): Promise<void>;
}

export class MemoryKvTarget implements KvTarget {
  readonly description = "memory";
  readonly data = new Map<string, string>();
  /** Every write, in order (tests check that the pointer comes last). */
  readonly writes: string[] = [];

  async get(key: string): Promise<string | null> {
    return this.data.get(key) ?? null;
  }
  async putMany(entries: ReadonlyArray<readonly [string, string]>): Promise<void> {
    for (const [k, v] of entries) {
      this.data.set(k, v);
      this.writes.push(k);
    }
  }
  async deleteMany(keys: readonly string[]): Promise<void> {
    for (const k of keys) this.data.delete(k);
  }
  async listKeys(prefix: string): Promise<string[]> {
    return [...this.data.keys()].filter((k) => k.startsWith(prefix));
  }
}

export interface WranglerOptions {
  /** Repository root (where wrangler.toml is). */
  cwd: string;
  binding?: string;
  env?: string;
}

/** Entries per `wrangler kv bulk put` call (the API takes up to 10,000 pairs per request). */
const CHUNK = 5_000;
/** ...and well under the API's 100 MB request body limit. */
const CHUNK_BYTES = 50 * 1024 * 1024;

/** A deployed namespace, through `wrangler kv ... --remote` (the operator's wrangler login). */
export class RemoteKvTarget implements KvTarget {
  readonly description: string;
  private readonly opts: Required<Omit<WranglerOptions, "env">> & WranglerOptions;

  constructor(opts: WranglerOptions) {
    this.opts = { binding: "PSAP_INDEX", ...opts };
    this.description = `remote KV binding ${this.opts.binding}${opts.env ? ` (env ${opts.env})` : ""}`;
  }

  private flags(): string[] {
    const f = ["--binding", this.opts.binding, "--remote"];
    if (this.opts.env) f.push("--env", this.opts.env);
    return f;
  }

  private run(args: string[]): Promise<string> {
    // Run wrangler on this Node (22), whatever `node` is first on the PATH.
    const bin = resolve(this.opts.cwd, "node_modules/wrangler/bin/wrangler.js");
    return new Promise((ok, fail) => {
      execFile(
        process.execPath,
        [bin, ...args],
        {
          cwd: this.opts.cwd,
          maxBuffer: 256 * 1024 * 1024,
          env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
        },
        (err, stdout, stderr) => {
          if (err)
            fail(
              new ImportError(
                `wrangler ${args.slice(0, 3).join(" ")} failed: ${stderr.trim() || err.message}`,
              ),
            );
          else ok(stdout);
        },
      );
    });
  }

  async get(key: string): Promise<string | null> {
    const out = await this.run(["kv", "key", "get", key, ...this.flags(), "--text"]);
    const text = out.trim();
    return text === "" || text === "Value not found" ? null : text;
  }

  async putMany(entries: ReadonlyArray<readonly [string, string]>): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), "psap-import-"));
    try {
      let chunk: { key: string; value: string }[] = [];
      let bytes = 0;
      let n = 0;
      const flush = async () => {
        if (chunk.length === 0) return;
        const file = join(dir, `bulk-${n++}.json`);
        await writeFile(file, JSON.stringify(chunk));
        await this.run(["kv", "bulk", "put", file, ...this.flags()]);
        chunk = [];
        bytes = 0;
      };
      for (const [key, value] of entries) {
        if (chunk.length >= CHUNK || bytes + value.length > CHUNK_BYTES) await flush();
        chunk.push({ key, value });
        bytes += key.length + value.length;
      }
      await flush();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const dir = await mkdtemp(join(tmpdir(), "psap-import-"));
    try {
      for (let i = 0; i < keys.length; i += CHUNK) {
        const file = join(dir, `delete-${i}.json`);
        await writeFile(file, JSON.stringify(keys.slice(i, i + CHUNK)));
        await this.run(["kv", "bulk", "delete", file, ...this.flags(), "--force"]);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async listKeys(prefix: string): Promise<string[]> {
    const out = await this.run(["kv", "key", "list", ...this.flags(), "--prefix", prefix]);
    const list = JSON.parse(out.slice(out.indexOf("["))) as { name: string }[];
    return list.map((k) => k.name);
  }
}
