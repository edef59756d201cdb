// A fresh Ed25519 signing key in the form JWT_SIGNING_KEY holds (private JWK with kid). Pure WebCrypto:
// scripts/dev.ts uses it for .dev.vars, and an operator can use it to rotate keys.
import { randomBase62 } from "./random.ts";

export interface PrivateSigningJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  d: string;
  kid: string;
  alg: "EdDSA";
  use: "sig";
}

/** A new key pair, exported as a private JWK (its public half is `x`). */
export async function generateSigningJwk(kid: string = newSigningKeyId()): Promise<PrivateSigningJwk> {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
  if (!("privateKey" in pair)) throw new Error("Ed25519 key generation returned no key pair");
  const jwk: unknown = await crypto.subtle.exportKey("jwk", pair.privateKey);
  const { x, d } = (typeof jwk === "object" && jwk !== null ? jwk : {}) as { x?: unknown; d?: unknown };
  if (typeof x !== "string" || typeof d !== "string") throw new Error("Ed25519 key export gave no x and d");
  return { kty: "OKP", crv: "Ed25519", x, d, kid, alg: "EdDSA", use: "sig" };
}

/** A key id that sorts by creation day and stays unique: `2026-11-17-Ab3dE6gH`. */
export function newSigningKeyId(now: Date = new Date()): string {
  return `${now.toISOString().slice(0, 10)}-${randomBase62(8)}`;
}
