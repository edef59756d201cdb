// The deploy step that puts the worker's secrets: values made and checked first, each handed to
// `wrangler secret put` on its standard input, with the project's own Node (`npm run deploy:secrets`).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { deploySecrets, type PutSecret, wranglerSecretPut } from "../../scripts/deploy-secrets.ts";
import { signingKeyProblem } from "../../scripts/dev-vars.ts";

const dir = mkdtempSync(join(tmpdir(), "deploy-secrets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function recorder() {
  const put: [string, string, string][] = [];
  const lines: string[] = [];
  const fn: PutSecret = async (name, value, env) => {
    put.push([name, value, env]);
  };
  return { put, lines, fn, print: (line: string) => lines.push(line) };
}

describe("npm run deploy:secrets", () => {
  it("puts a new admin token and signing key in production, and shows the token once", async () => {
    const r = recorder();
    await deploySecrets([], r.fn, r.print);
    expect(r.put.map(([name, , env]) => [name, env])).toEqual([
      ["ADMIN_TOKEN", "production"],
      ["JWT_SIGNING_KEY", "production"],
    ]);
    const admin = r.put[0]?.[1] ?? "";
    const key = r.put[1]?.[1] ?? "";
    expect(admin).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(signingKeyProblem(key)).toBeNull();
    expect(r.lines.filter((l) => l.includes(admin))).toHaveLength(1);
    // The private half never reaches the terminal.
    const { d } = JSON.parse(key) as { d: string };
    expect(r.lines.join("\n")).not.toContain(d);
    expect(r.lines.join("\n")).toContain("public half");
  });

  it("takes --env and --only, and refuses an unknown --only before putting anything", async () => {
    const r = recorder();
    await deploySecrets(["--env", "staging", "--only", "signing-key"], r.fn, r.print);
    expect(r.put.map(([name, , env]) => [name, env])).toEqual([["JWT_SIGNING_KEY", "staging"]]);
    const bad = recorder();
    await expect(deploySecrets(["--only", "everything"], bad.fn, bad.print)).rejects.toThrow(
      /--only takes admin-token or signing-key/,
    );
    expect(bad.put).toEqual([]);
  });

  it("hands the value to wrangler on its standard input, with the secret's name and environment", async () => {
    // A stand-in for wrangler's CLI that records what it was given.
    const fake = join(dir, "fake-wrangler.mjs");
    const record = join(dir, "record.json");
    writeFileSync(
      fake,
      `import { writeFileSync } from "node:fs";
let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => writeFileSync(${JSON.stringify(record)}, JSON.stringify({ args: process.argv.slice(2), input })));`,
    );
    await wranglerSecretPut(fake)("JWT_SIGNING_KEY", '{"kty":"OKP"}', "production");
    expect(JSON.parse(readFileSync(record, "utf8"))).toEqual({
      args: ["secret", "put", "JWT_SIGNING_KEY", "--env", "production"],
      input: '{"kty":"OKP"}\n',
    });
    const failing = join(dir, "failing-wrangler.mjs");
    writeFileSync(failing, "process.exit(3);");
    await expect(wranglerSecretPut(failing)("ADMIN_TOKEN", "x", "production")).rejects.toThrow(
      /wrangler secret put ADMIN_TOKEN failed \(exit code 3\)/,
    );
  });

  it("is an npm script run with the project's Node", () => {
    const scripts = (
      JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    expect(scripts["deploy:secrets"]).toBe("node scripts/deploy-secrets.ts");
    expect(scripts.wrangler).toBe("wrangler");
    expect(scripts["deploy:migrations"]).toContain("--remote --env production");
  });
});
