// Builds the SDK package's files (sdk/lib): one readable ES module per source file, its typings and a source
// map, for `npm pack` in sdk/ (its `prepack` runs this). The served /sdk/*.js are build-sdk.ts's job and
// are not touched: those are single minified files for a <script type="module">, these are for a bundler
// or Node, which minify (or not) themselves, so the package keeps names and lines as written.
//
// tsc, not esbuild: it writes the modules, their .d.ts and the maps in one pass from one set of options,
// and rewrites the sources' `./x.ts` imports to `./x.js`, which esbuild does not do without bundling.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { withJsSpecifiers } from "./build-sdk.ts";
import { filesUnder } from "./sync-dir.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "sdk/src");
/** What sdk/package.json's `files` and `exports` name. */
export const PACKAGE_LIB = join(root, "sdk/lib");
/** The package's entry points (its `exports`), each a module of sdk/src. */
export const ENTRY_POINTS = ["patient", "counselor", "protocol"] as const;

const OPTIONS: ts.CompilerOptions = {
  outDir: PACKAGE_LIB,
  rootDir: src,
  // Every browser the SDKs target and Node 22 run ES2022 as is: no helpers, class fields as written.
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  types: [],
  strict: true,
  skipLibCheck: true,
  verbatimModuleSyntax: true,
  allowImportingTsExtensions: true,
  rewriteRelativeImportExtensions: true,
  declaration: true,
  stripInternal: true,
  // A stack trace through the package names a line of these files; with --enable-source-maps (or in a
  // browser's devtools) the line of the TypeScript source, which the map carries, so nothing else ships.
  sourceMap: true,
  inlineSources: true,
  newLine: ts.NewLineKind.LineFeed,
};

/** Builds sdk/lib from scratch; throws with TypeScript's messages when the sources do not compile. */
export function buildSdkPackage(): string[] {
  rmSync(PACKAGE_LIB, { recursive: true, force: true });
  const program = ts.createProgram(
    ENTRY_POINTS.map((entry) => join(src, `${entry}.ts`)),
    OPTIONS,
  );
  const result = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length > 0) {
    throw new Error(ts.formatDiagnostics(diagnostics, ts.createCompilerHost({})));
  }
  const files = filesUnder(PACKAGE_LIB);
  for (const name of files.filter((file) => file.endsWith(".d.ts"))) {
    const file = join(PACKAGE_LIB, name);
    writeFileSync(file, withJsSpecifiers(readFileSync(file, "utf8")));
  }
  // A `.ts` specifier left anywhere would resolve in no consumer's project: fail here, not there.
  for (const name of files.filter((file) => !file.endsWith(".map"))) {
    const left = /["']\.{1,2}\/[^"']*\.ts["']/.exec(readFileSync(join(PACKAGE_LIB, name), "utf8"));
    if (left) throw new Error(`sdk/lib/${name} still imports ${left[0]}`);
  }
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = buildSdkPackage();
  console.log(`sdk/lib/: ${files.length} files (${ENTRY_POINTS.join(", ")}: modules, typings, source maps)`);
}
