// The SDK package as a platform gets it: `npm pack` in sdk/ (its prepack builds sdk/lib), then a copy of
// test/sdk-consumer/ in a temporary folder with the tarball installed offline (the package has no
// dependencies, so npm needs no registry). TypeScript and esbuild are the repository's own.
import { execFile } from "node:child_process";
import { cpSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { ROOT } from "./dev-server.ts";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; never throws on a failing exit code (the caller asserts on it). */
export function run(command: string, args: string[], cwd: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd,
        // This Node 22 first, so sdk/'s prepack (a .ts script) runs on it whoever started the tests.
        env: { ...process.env, PATH: [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter) },
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
      },
    );
  });
}

export interface PackedFile {
  path: string;
  size: number;
}

export interface Packed {
  tarball: string;
  /** The tarball's size (gzip, as a registry stores it) and its files' total. */
  size: number;
  unpackedSize: number;
  files: PackedFile[];
}

/** `npm pack` of sdk/ into `dest`, with npm's own list of what went in. */
export async function packSdk(dest: string): Promise<Packed> {
  const packed = await run("npm", ["pack", "--json", "--pack-destination", dest], join(ROOT, "sdk"));
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stdout}\n${packed.stderr}`);
  // The prepack script's lines come before npm's JSON on stdout.
  const [report] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as [
    { filename: string; size: number; unpackedSize: number; files: PackedFile[] },
  ];
  return { ...report, tarball: join(dest, report.filename) };
}

/** A fresh copy of test/sdk-consumer/ in `dir` with the tarball installed, from the file alone. */
export async function installInConsumer(dir: string, tarball: string): Promise<void> {
  cpSync(join(ROOT, "test/sdk-consumer"), dir, { recursive: true });
  const installed = await run(
    "npm",
    ["install", "--offline", "--no-audit", "--no-fund", "--no-package-lock", tarball],
    dir,
  );
  if (installed.code !== 0) throw new Error(`npm install failed:\n${installed.stdout}\n${installed.stderr}`);
}

/** The repository's TypeScript compiler on one of the consumer's tsconfig files. */
export function typeCheck(dir: string, tsconfig: string): Promise<Ran> {
  return run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", tsconfig], dir);
}
