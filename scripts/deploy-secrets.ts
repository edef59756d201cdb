// `npm run deploy:secrets [-- --env production] [-- --only admin-token|signing-key]`: makes the deployed
// worker's secrets and hands each to `wrangler secret put` on its standard input, with the project's own
// Node 22 (the machine's Node may be too old for wrangler or for running .ts). Each value is made and
// checked here first, so an empty or broken value never reaches the secret (a shell pipe from a command
// that failed would put an empty one). ADMIN_TOKEN is printed once: keep it, it is not shown again.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { randomBase62 } from "../src/auth/random.ts";
import { generateSigningJwk } from "../src/auth/signing-key-generation.ts";
import { childEnv, DevError, ROOT, wranglerBin } from "./dev-run.ts";
import { signingKeyProblem } from "./dev-vars.ts";

export type SecretName = "ADMIN_TOKEN" | "JWT_SIGNING_KEY";
const ONLY: Record<string, SecretName> = { "admin-token": "ADMIN_TOKEN", "signing-key": "JWT_SIGNING_KEY" };

/** Puts one secret: `wrangler secret put NAME --env ENV`, the value on stdin. */
export type PutSecret = (name: SecretName, value: string, env: string) => Promise<void>;

/** A new value for each secret asked for, checked as the worker will read it. */
export async function makeSecrets(names: readonly SecretName[]): Promise<Map<SecretName, string>> {
  const values = new Map<SecretName, string>();
  for (const name of names) {
    const value = name === "ADMIN_TOKEN" ? randomBase62(43) : JSON.stringify(await generateSigningJwk());
    const problem =
      name === "JWT_SIGNING_KEY" ? signingKeyProblem(value) : value.length < 32 ? "too short" : null;
    if (problem) throw new DevError(`the new ${name} is not usable (${problem}): nothing was put`);
    values.set(name, value);
  }
  return values;
}

/** Runs wrangler (or `bin`) with this Node, `value` on its standard input; its output goes to the terminal. */
export function wranglerSecretPut(bin = wranglerBin()): PutSecret {
  return (name, value, env) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [bin, "secret", "put", name, "--env", env], {
        cwd: ROOT,
        env: childEnv(),
        stdio: ["pipe", "inherit", "inherit"],
      });
      child.on("error", (error) => reject(new DevError(`could not start wrangler: ${error.message}`)));
      child.on("exit", (code) =>
        code === 0
          ? resolve()
          : reject(new DevError(`wrangler secret put ${name} failed (exit code ${code})`)),
      );
      child.stdin?.end(`${value}\n`);
    });
}

/** Makes the secrets asked for and puts them; returns what the operator must see (the admin token). */
export async function deploySecrets(
  args: string[],
  put: PutSecret = wranglerSecretPut(),
  print: (line: string) => void = console.log,
): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { env: { type: "string", default: "production" }, only: { type: "string" } },
  });
  const env = values.env ?? "production";
  if (values.only !== undefined && !(values.only in ONLY))
    throw new DevError(`--only takes ${Object.keys(ONLY).join(" or ")}, not "${values.only}"`);
  const names = values.only ? [ONLY[values.only] as SecretName] : (Object.values(ONLY) as SecretName[]);
  const secrets = await makeSecrets(names);
  for (const [name, value] of secrets) {
    print(`[deploy] putting ${name} (--env ${env})`);
    await put(name, value, env);
  }
  const admin = secrets.get("ADMIN_TOKEN");
  if (admin) print(`[deploy] ADMIN_TOKEN (keep it: it is not shown again): ${admin}`);
  const key = secrets.get("JWT_SIGNING_KEY");
  if (key) {
    const { d: _private, ...publicJwk } = JSON.parse(key) as Record<string, string>;
    print(
      `[deploy] JWT_SIGNING_KEY's public half (for JWT_PREVIOUS_PUBLIC_KEYS when you rotate away from it): ${JSON.stringify(publicJwk)}`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  deploySecrets(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof DevError ? `[deploy] ${error.message}` : error);
    process.exit(1);
  });
}
