// `.dev.vars`, the local secrets file `wrangler dev` loads (dotenv syntax, read here with Node's own
// parser): what `npm run dev` needs in it, kept when present and made when missing.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseEnv } from "node:util";
import { generateApiKey, isWellFormedApiKey } from "../src/auth/api-key.ts";
import { randomBase62 } from "../src/auth/random.ts";
import { generateSigningJwk, newSigningKeyId } from "../src/auth/signing-key-generation.ts";
import { DevError } from "./dev-run.ts";

export interface DevSecrets {
  ADMIN_TOKEN: string;
  JWT_SIGNING_KEY: string;
  DEMO_PLATFORM_ID: string;
  DEMO_API_KEY: string;
}

const HEADER =
  "# Local secrets for `wrangler dev`, written by `npm run dev`. Git-ignored: never commit it.\n" +
  "# Delete a line to get a fresh value on the next `npm run dev`.\n";

export function parseDevVars(text: string): Record<string, string> {
  return parseEnv(text) as Record<string, string>;
}

/**
 * One `NAME=value` line that dotenv reads back as `value`: plain tokens unquoted (as the contract (docs/contract.md) shows
 * `ADMIN_TOKEN=...`), anything else (the signing key's JSON) in single quotes, which dotenv keeps literally.
 */
export function formatDevVar(name: string, value: string): string {
  if (/^[A-Za-z0-9_.:/+=@-]+$/.test(value)) return `${name}=${value}`;
  if (/['\r\n]/.test(value))
    throw new DevError(`${name}: a value with a quote or line break cannot be written`);
  return `${name}='${value}'`;
}

/** Why a JWT_SIGNING_KEY cannot sign, or null when it is an Ed25519 private JWK with a kid. */
export function signingKeyProblem(value: string): string | null {
  let jwk: Record<string, unknown>;
  try {
    jwk = JSON.parse(value) as Record<string, unknown>;
  } catch {
    return "is not valid JSON";
  }
  if (jwk?.kty !== "OKP" || jwk.crv !== "Ed25519")
    return 'is not an Ed25519 key ("kty": "OKP", "crv": "Ed25519")';
  if (typeof jwk.x !== "string" || typeof jwk.d !== "string") return 'lacks its "x" or private "d" part';
  if (typeof jwk.kid !== "string" || jwk.kid === "") return 'has no "kid"';
  return null;
}

/** The secrets, reusing every usable value of `existing`; `created` names the ones that had to be made. */
export async function completeDevVars(
  existing: Record<string, string>,
): Promise<{ secrets: DevSecrets; created: (keyof DevSecrets)[] }> {
  const created: (keyof DevSecrets)[] = [];
  const { ADMIN_TOKEN = "", JWT_SIGNING_KEY = "", DEMO_PLATFORM_ID = "", DEMO_API_KEY = "" } = existing;
  const secrets: DevSecrets = { ADMIN_TOKEN, JWT_SIGNING_KEY, DEMO_PLATFORM_ID, DEMO_API_KEY };
  if (ADMIN_TOKEN === "") {
    secrets.ADMIN_TOKEN = randomBase62(43);
    created.push("ADMIN_TOKEN");
  }
  if (JWT_SIGNING_KEY === "") {
    secrets.JWT_SIGNING_KEY = JSON.stringify(await generateSigningJwk(`dev-${newSigningKeyId()}`));
    created.push("JWT_SIGNING_KEY");
  } else {
    // Replacing it silently would invalidate every live token: the developer decides.
    const problem = signingKeyProblem(JWT_SIGNING_KEY);
    if (problem) throw new DevError(`JWT_SIGNING_KEY in .dev.vars ${problem}: fix it, or delete the line`);
  }
  // The id and the key belong together: a new pair rather than an old half with a new one.
  if (!/^plt_[0-9A-Za-z]{8,64}$/.test(DEMO_PLATFORM_ID) || !isWellFormedApiKey(DEMO_API_KEY)) {
    secrets.DEMO_PLATFORM_ID = `plt_demo${randomBase62(16)}`;
    secrets.DEMO_API_KEY = generateApiKey();
    created.push("DEMO_PLATFORM_ID", "DEMO_API_KEY");
  }
  return { secrets, created };
}

/** `text` with `values` set: their earlier lines dropped, new ones appended, every other line kept. */
export function setDevVars(text: string, values: Partial<DevSecrets>): string {
  const names = new Set(Object.keys(values));
  const kept = (text === "" ? HEADER : text)
    .replace(/\r\n?/g, "\n")
    .replace(/\n+$/, "")
    .split("\n")
    .filter((line) => !names.has(/^\s*(?:export\s+)?([\w.-]+)\s*=/.exec(line)?.[1] ?? ""));
  const added = Object.entries(values).map(([name, value]) => formatDevVar(name, value ?? ""));
  return `${[...kept, ...added].join("\n")}\n`;
}

/** Reads `path`, adds what is missing, and writes it back (atomically, private to the user) only if something changed. */
export async function prepareDevVars(path: string): Promise<{ secrets: DevSecrets; created: string[] }> {
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  const { secrets, created } = await completeDevVars(parseDevVars(text));
  if (created.length > 0) {
    const values = Object.fromEntries(created.map((name) => [name, secrets[name]]));
    // The temporary file lives in the git-ignored .wrangler/, so a crash leaves no secret to commit.
    const temporary = join(dirname(path), ".wrangler", `dev-vars.${process.pid}.tmp`);
    mkdirSync(dirname(temporary), { recursive: true });
    writeFileSync(temporary, setDevVars(text, values), { mode: 0o600 });
    renameSync(temporary, path);
    chmodSync(path, 0o600);
  }
  return { secrets, created };
}
