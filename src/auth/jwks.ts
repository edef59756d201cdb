// The JSON Web Key Set served at /.well-known/jwks.json: every public key a live token may be signed with.
import type { PublicSigningJwk, TokenKeyEnv } from "./token-keys.ts";
import { loadTokenKeys } from "./token-keys.ts";

export interface Jwks {
  keys: PublicSigningJwk[];
}

/** The current key first, then the previous ones; public parts only (`kty`, `crv`, `x`, `kid`, `alg`, `use`). */
export async function getJwks(env: TokenKeyEnv): Promise<Jwks> {
  const { jwks } = await loadTokenKeys(env);
  return { keys: jwks.map((jwk) => ({ ...jwk })) };
}
