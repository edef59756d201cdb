// Builds the two browser SDKs: minified ES modules and .d.ts in sdk/dist, all copied to public/sdk.
// Fails when a module is over its gzipped budget. Run with `npm run build:sdk`.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { type BuildOptions, build } from "esbuild";
import ts from "typescript";
import { buildCountyShapes } from "./build-county-shapes.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "sdk/src");
const dist = join(root, "sdk/dist");
const served = join(root, "public/sdk");
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
  rmSync(dist, { recursive: true, force: true });
  rmSync(served, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  mkdirSync(served, { recursive: true });
  let over = false;
  for (const m of modules) {
    const file = join(dist, `${m}.js`);
    await build({ ...bundleOptions(m), outfile: file });
    const code = readFileSync(file);
    const gz = gzipSync(code, { level: 9 }).length;
    const ok = gz <= BUDGET;
    over ||= !ok;
    copyFileSync(file, join(served, `${m}.js`));
    console.log(
      `sdk/dist/${m}.js  ${code.length} B minified, ${gz} B gzipped (budget ${BUDGET} B) ${ok ? "ok" : "OVER BUDGET"}`,
    );
  }
  emitDeclarations();
  // The typings are served too (/sdk/patient.d.ts imports ./protocol.js, ./core/...): copy the whole tree.
  for (const file of walk(dist)) {
    if (!file.endsWith(".d.ts")) continue;
    const target = join(served, relative(dist, file));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(file, target);
  }
  console.log("copied to public/sdk/ (served at /sdk/patient.js, /sdk/counselor.js and their .d.ts)");
  // The counselor console's map outlines (not part of the SDKs, but built with them so pages have them).
  const shapes = buildCountyShapes(join(root, "public/demo/counties"));
  console.log(
    `public/demo/counties/: ${shapes.files} states' county outlines, ${shapes.bytes} B (from us-atlas)`,
  );
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
  for (const file of walk(dist)) {
    if (!file.endsWith(".d.ts")) continue;
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace(/(from\s+["']\.{1,2}\/[^"']*)\.ts(["'])/g, "$1.js$2"));
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
