// Builds the two browser SDKs: minified ES modules and .d.ts in sdk/dist, served from public/sdk; the
// console map's county outlines in public/demo/counties; and Swagger UI's files for /docs in
// public/docs/swagger-ui. Fails when a module is over its gzipped budget.
// `npm run build:sdk [-- --out DIR]`: DIR (default public/) is the folder a server serves; for another
// folder, the pages of public/ are copied there too, so a test server can serve its own copy and never
// touch what a running `npm run dev` serves. Only files whose bytes change are written.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { type BuildOptions, build } from "esbuild";
import ts from "typescript";
import { SWAGGER_UI_DIR, swaggerUiFiles } from "./api-docs-assets.ts";
import { buildCountyShapes } from "./build-county-shapes.ts";
import { filesUnder, readTree, shown, syncDir } from "./sync-dir.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "sdk/src");
const dist = join(root, "sdk/dist");
/** The committed static folder `wrangler dev` serves (wrangler.toml's [assets]). */
export const PUBLIC_DIR = join(root, "public");
/** What the build adds to a served folder (git-ignored in public/). */
export const GENERATED = ["sdk/", "demo/counties/", `${SWAGGER_UI_DIR}/`];
const modules = ["patient", "counselor"];
/** Each module, minified and gzipped, must stay within this many bytes. */
const BUDGET = 4096;

/** The esbuild options for one SDK module (also used by the tests that check the minified output). */
export function bundleOptions(module: string): BuildOptions {
  return {
    entryPoints: [join(src, `${module}.ts`)],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    minify: true,
    // Internal members are named `_x`: shorten them. Public names (and error names/codes) stay as written.
    mangleProps: /^_[a-zA-Z]/,
    legalComments: "none",
    // Plain assignments instead of defineProperty helpers: smaller, and nothing here relies on define semantics.
    tsconfigRaw: { compilerOptions: { useDefineForClassFields: false } },
    logLevel: "warning",
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  const out = resolve(root, values.out ?? PUBLIC_DIR);
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  let over = false;
  for (const m of modules) {
    const file = join(dist, `${m}.js`);
    await build({ ...bundleOptions(m), outfile: file });
    const code = readFileSync(file);
    const gz = gzipSync(code, { level: 9 }).length;
    const ok = gz <= BUDGET;
    over ||= !ok;
    console.log(
      `sdk/dist/${m}.js  ${code.length} B minified, ${gz} B gzipped (budget ${BUDGET} B) ${ok ? "ok" : "OVER BUDGET"}`,
    );
  }
  emitDeclarations();
  if (out !== PUBLIC_DIR) {
    // The pages and headers of public/, so that the folder serves on its own.
    const pages = syncDir(out, readTree(PUBLIC_DIR, GENERATED), GENERATED);
    console.log(`${shown(root, out)}/: the pages of public/ (${pages.written} written)`);
  }
  // The modules and their typings (/sdk/patient.d.ts imports ./protocol.js, ./core/...): the whole tree.
  const served = new Map<string, Uint8Array>();
  for (const name of filesUnder(dist)) {
    if (name.endsWith(".js") || name.endsWith(".d.ts")) served.set(name, readFileSync(join(dist, name)));
  }
  const sdk = syncDir(join(out, "sdk"), served);
  console.log(
    `${shown(root, out)}/sdk/: ${served.size} files, ${sdk.written} written (served at /sdk/patient.js, /sdk/counselor.js and their .d.ts)`,
  );
  // The counselor console's map outlines (not part of the SDKs, but built with them so pages have them).
  const shapes = buildCountyShapes(join(out, "demo/counties"));
  console.log(
    `${shown(root, out)}/demo/counties/: ${shapes.files} states' county outlines, ${shapes.bytes} B (from us-atlas)`,
  );
  // The API reference's scripts and styles (/docs), served from here rather than from a CDN.
  const docs = syncDir(join(out, SWAGGER_UI_DIR), swaggerUiFiles());
  console.log(`${shown(root, out)}/${SWAGGER_UI_DIR}/: Swagger UI for /docs (${docs.written} written)`);
  if (over) {
    console.error("build-sdk: a module is over its size budget");
    process.exit(1);
  }
}

/** Writes .d.ts beside the bundles; import paths end in `.js` so any TypeScript setup resolves them. */
function emitDeclarations(): void {
  const program = ts.createProgram(
    modules.map((m) => join(src, `${m}.ts`)),
    {
      declaration: true,
      emitDeclarationOnly: true,
      outDir: dist,
      rootDir: src,
      target: ts.ScriptTarget.ES2020,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
      types: [],
      strict: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
      stripInternal: true,
    },
  );
  const result = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length) {
    console.error(ts.formatDiagnostics(diagnostics, ts.createCompilerHost({})));
    process.exit(1);
  }
  for (const name of filesUnder(dist)) {
    if (!name.endsWith(".d.ts")) continue;
    const file = join(dist, name);
    writeFileSync(file, withJsSpecifiers(readFileSync(file, "utf8")));
  }
}

/**
 * A declaration file's relative `.ts` imports as `.js`: TypeScript keeps the source's spelling in the
 * `.d.ts` it writes, and a consumer's TypeScript looks for the `.js` file's typings beside it.
 */
export function withJsSpecifiers(declarations: string): string {
  return declarations.replace(/(from\s+["']\.{1,2}\/[^"']*)\.ts(["'])/g, "$1.js$2");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
