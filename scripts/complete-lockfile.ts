// Adds to package-lock.json the platform-specific optional packages that the npm registry reachable
// here does not serve (Biome's and workerd's builds for other systems). npm records nothing for a
// package it cannot fetch, and `npm ci` then refuses the lock file as "missing" them, even though it
// would skip them on Linux x64 anyway. Each entry gets the `os`/`cpu` of its build, so npm on any
// machine installs only the one that fits. Run after `npm install` changes the lock file.
import { readFileSync, writeFileSync } from "node:fs";

interface LockEntry {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
  [key: string]: unknown;
}

const PLATFORMS: [RegExp, Pick<LockEntry, "os" | "cpu" | "libc">][] = [
  [/-android-arm64$/, { os: ["android"], cpu: ["arm64"] }],
  [/-android-x64$/, { os: ["android"], cpu: ["x64"] }],
  [/-darwin-arm64$/, { os: ["darwin"], cpu: ["arm64"] }],
  [/-darwin-(x64|64)$/, { os: ["darwin"], cpu: ["x64"] }],
  [/-linux-arm64-musl$/, { os: ["linux"], cpu: ["arm64"], libc: ["musl"] }],
  [/-linux-x64-musl$/, { os: ["linux"], cpu: ["x64"], libc: ["musl"] }],
  [/-linux-arm64$/, { os: ["linux"], cpu: ["arm64"] }],
  [/-linux-(x64|64)$/, { os: ["linux"], cpu: ["x64"] }],
  [/-win32-arm64$/, { os: ["win32"], cpu: ["arm64"] }],
  [/-(win32-x64|windows-64)$/, { os: ["win32"], cpu: ["x64"] }],
];

/** Only these families are completed: their optional packages are all platform builds. */
const FAMILIES = [/^@biomejs\/cli-/, /^@cloudflare\/workerd-/];

/** The entry Node's resolution finds for `name` required from the package at `location`. */
function resolve(packages: Record<string, LockEntry>, location: string, name: string): LockEntry | undefined {
  let dir = location;
  for (;;) {
    const entry = packages[`${dir}/node_modules/${name}`];
    if (entry) return entry;
    const cut = dir.lastIndexOf("/node_modules/");
    if (cut < 0) return packages[`node_modules/${name}`];
    dir = dir.slice(0, cut);
  }
}

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8")) as { packages: Record<string, LockEntry> };
const added: string[] = [];

for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (!FAMILIES.some((family) => family.test(name))) continue;
    const found = resolve(lock.packages, location, name);
    if (found?.version === version) continue;
    const platform = PLATFORMS.find(([pattern]) => pattern.test(name))?.[1];
    if (!platform) throw new Error(`no platform known for ${name}`);
    // Beside the package that needs it (where npm put its Linux sibling), unless another version is there.
    const beside = `${location.slice(0, location.lastIndexOf("node_modules/") + "node_modules/".length)}${name}`;
    const at = lock.packages[beside] ? `${location}/node_modules/${name}` : beside;
    lock.packages[at] = { version, dev: entry.dev, optional: true, ...platform };
    added.push(`${at}@${version}`);
  }
}

const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added ${added.length}:\n  ${added.join("\n  ")}` : "lock file already complete");
