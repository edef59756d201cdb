// Reading and writing `.dev.vars`, the local secrets file `wrangler dev` loads, in the dotenv syntax wrangler parses.
import { generateApiKey, isWellFormedApiKey } from "../src/auth/api-key.ts";
import { randomBase62 } from "../src/auth/random.ts";
import { generateSigningJwk, newSigningKeyId } from "../src/auth/signing-key-generation.ts";

export type DevVars = Record<string, string>;

/** Everything `npm run dev` keeps in `.dev.vars` (a type, not an interface, so it is a `Partial<DevVars>`). */
export type DevSecrets = {
  ADMIN_TOKEN: string;
  JWT_SIGNING_KEY: string;
  DEMO_PLATFORM_ID: string;
  DEMO_API_KEY: string;
};

/** A `.dev.vars` created from scratch starts with this. */
export const DEV_VARS_HEADER = [
  "# Local secrets for `wrangler dev`, written by `npm run dev` (scripts/dev.ts). Git-ignored: never commit it.",
  "# Delete a line to get a fresh value on the next `npm run dev`.",
];

const DEMO_PLATFORM_ID_PATTERN = /^plt_[0-9A-Za-z]{8,64}$/;

/**
 * wrangler reads `.dev.vars` with dotenv 16's `parse` (no variable expansion). This is the same line
 * grammar: `KEY=value`, optional `export `, quotes '...', "..." or `...`, `#` comments; the last
 * assignment of a key wins.
 */
const LINE =
  /(?:^|^)\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?(?:$|$)/gm;

/** The variables a `.dev.vars` text defines, exactly as wrangler will see them. */
export function parseDevVars(text: string): DevVars {
  const vars: DevVars = {};
  const lines = text.replace(/\r\n?/g, "\n");
  for (const match of lines.matchAll(LINE)) {
    const key = match[1];
    if (key === undefined) continue;
    let value = (match[2] ?? "").trim();
    const quote = value[0];
    value = value.replace(/^(['"`])([\s\S]*)\1$/gm, "$2");
    if (quote === '"') value = value.replace(/\\n/g, "\n").replace(/\\r/g, "\r");
    vars[key] = value;
  }
  return vars;
}

/** Values made only of these characters are written unquoted (as the SPEC shows `ADMIN_TOKEN=...`). */
const UNQUOTED_SAFE = /^[A-Za-z0-9_.:/+=@-]+$/;

/**
 * One `KEY=value` line that parses back to exactly `value`: unquoted when plain, else single-quoted
 * (dotenv keeps everything between single quotes literally, which JSON needs: `"`, `{`, `,`).
 */
export function formatDevVar(name: string, value: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a variable name: ${name}`);
  if (UNQUOTED_SAFE.test(value)) return `${name}=${value}`;
  if (/['\r\n]/.test(value))
    throw new Error(`${name}: a value with a quote or line break cannot be written safely`);
  return `${name}='${value}'`;
}

/**
 * `text` with `values` set: earlier assignments of those keys are dropped, the new ones appended, and
 * every other line (the user's own variables and comments) kept as it was.
 */
export function setDevVars(text: string, values: Partial<DevVars>): string {
  const names = new Set(Object.keys(values));
  const kept =
    text === "" ? [...DEV_VARS_HEADER] : text.replace(/\r\n?/g, "\n").replace(/\n+$/, "").split("\n");
  const lines = kept.filter((line) => {
    const name = /^\s*(?:export\s+)?([\w.-]+)\s*[=:]/.exec(line)?.[1];
    return name === undefined || !names.has(name);
  });
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) lines.push(formatDevVar(name, value));
  }
  return `${lines.join("\n")}\n`;
}

/** Why an existing JWT_SIGNING_KEY cannot be used, or null if it looks like an Ed25519 private JWK with a kid. */
export function signingKeyProblem(value: string): string | null {
  let jwk: unknown;
  try {
    jwk = JSON.parse(value);
  } catch {
    return "is not valid JSON";
  }
  if (typeof jwk !== "object" || jwk === null) return "is not a JSON object";
  const { kty, crv, x, d, kid } = jwk as Record<string, unknown>;
  if (kty !== "OKP" || crv !== "Ed25519") return 'is not an Ed25519 key ("kty": "OKP", "crv": "Ed25519")';
  if (typeof x !== "string" || typeof d !== "string") return 'lacks its "x" or private "d" part';
  if (typeof kid !== "string" || kid === "") return 'has no "kid"';
  return null;
}

export interface CompletedDevVars {
  secrets: DevSecrets;
  /** The variables that had to be created (empty on a second run). */
  created: (keyof DevSecrets)[];
  /** Notes for the user about values that were replaced. */
  notes: string[];
}

/**
 * The secrets `npm run dev` needs, reusing every usable value of `existing` and generating the rest.
 * An unusable JWT_SIGNING_KEY is an error (replacing it silently would invalidate live tokens).
 */
export async function completeDevVars(existing: DevVars): Promise<CompletedDevVars> {
  const created: (keyof DevSecrets)[] = [];
  const notes: string[] = [];

  let adminToken = existing.ADMIN_TOKEN ?? "";
  if (adminToken === "") {
    adminToken = randomBase62(43);
    created.push("ADMIN_TOKEN");
  }

  let signingKey = existing.JWT_SIGNING_KEY ?? "";
  if (signingKey === "") {
    signingKey = JSON.stringify(await generateSigningJwk(`dev-${newSigningKeyId()}`));
    created.push("JWT_SIGNING_KEY");
  } else {
    const problem = signingKeyProblem(signingKey);
    if (problem !== null) {
      throw new DevVarsError(
        `JWT_SIGNING_KEY in .dev.vars ${problem}. Fix it, or delete the line to get a new key on the next run.`,
      );
    }
  }

  let platformId = existing.DEMO_PLATFORM_ID ?? "";
  let apiKey = existing.DEMO_API_KEY ?? "";
  const platformOk = DEMO_PLATFORM_ID_PATTERN.test(platformId);
  const keyOk = isWellFormedApiKey(apiKey);
  if (!platformOk || !keyOk) {
    // The id and the key belong together: make a new pair rather than mixing an old half with a new one.
    if (platformId !== "" || apiKey !== "") {
      notes.push(
        "DEMO_PLATFORM_ID / DEMO_API_KEY in .dev.vars were incomplete or malformed: made a new demo platform",
      );
    }
    platformId = `plt_demo${randomBase62(16)}`;
    apiKey = generateApiKey();
    created.push("DEMO_PLATFORM_ID", "DEMO_API_KEY");
  }

  return {
    secrets: {
      ADMIN_TOKEN: adminToken,
      JWT_SIGNING_KEY: signingKey,
      DEMO_PLATFORM_ID: platformId,
      DEMO_API_KEY: apiKey,
    },
    created,
    notes,
  };
}

/** An expected problem with `.dev.vars`: reported as a message, never as a stack trace. */
export class DevVarsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DevVarsError";
  }
}
