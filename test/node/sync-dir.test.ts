// A build beside a running `npm run dev` changes nothing it serves: files are written only when their
// bytes change, and the test build goes to a folder of its own.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { filesUnder, syncDir } from "../../scripts/sync-dir.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sync-dir-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Each file's modification time and inode: a rewrite changes one of them. */
function stamps(dir: string): Record<string, string> {
  return Object.fromEntries(
    filesUnder(dir).map((name) => {
      const s = statSync(join(dir, name), { bigint: true });
      return [name, `${s.mtimeNs}:${s.ino}`];
    }),
  );
}

describe("syncDir", () => {
  it("writes new and changed files only, removes the others, and keeps another build's folder", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "demo/counties"), { recursive: true });
    writeFileSync(join(dir, "demo/counties/IL.json"), "{}");
    expect(
      syncDir(
        dir,
        new Map([
          ["a.js", "1"],
          ["sub/b.js", "2"],
        ]),
        ["demo/counties/"],
      ),
    ).toEqual({
      written: 2,
      removed: 0,
      bytes: 2,
    });
    const before = stamps(dir);
    const again = syncDir(
      dir,
      new Map([
        ["a.js", "1"],
        ["sub/b.js", "3"],
      ]),
      ["demo/counties/"],
    );
    expect(again).toMatchObject({ written: 1, removed: 0 });
    const after = stamps(dir);
    expect(after["a.js"]).toBe(before["a.js"]);
    expect(after["demo/counties/IL.json"]).toBe(before["demo/counties/IL.json"]);
    expect(readFileSync(join(dir, "sub/b.js"), "utf8")).toBe("3");
    expect(syncDir(dir, new Map([["a.js", "1"]]))).toMatchObject({ written: 0, removed: 2 });
    expect(filesUnder(dir)).toEqual(["a.js"]);
  });
});

describe("npm run build:sdk -- --out DIR", () => {
  it("makes a folder that serves on its own, and a second build with nothing new rewrites nothing", async () => {
    const out = tempDir();
    const build = () =>
      promisify(execFile)(process.execPath, [join(root, "scripts/build-sdk.ts"), "--out", out], {
        cwd: root,
      });
    await build();
    const files = filesUnder(out);
    for (const file of [
      "_headers",
      "demo/counselor.html",
      "demo/console-page.js",
      "sdk/counselor.js",
      "sdk/patient.d.ts",
      "demo/counties/IL.json",
    ])
      expect(files).toContain(file);
    const before = stamps(out);
    const second = await build();
    expect(second.stdout).toContain("0 written");
    expect(stamps(out)).toEqual(before);
  }, 120_000);

  it("is how npm test builds: into .wrangler/test-public, never into the public/ that npm run dev serves", () => {
    const scripts = (
      JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.test).toContain("npm run build:sdk -- --out .wrangler/test-public");
    expect(scripts.test).not.toMatch(/build:sdk &&/);
  });
});
