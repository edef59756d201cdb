// Authentication for the routes: platform API keys (D1), the admin token, session JWTs and their JWKS.

export { isAdminToken } from "./admin-token.ts";
export { API_KEY_PREFIX, generateApiKey, hashApiKey, isWellFormedApiKey } from "./api-key.ts";
export type { ApiKeyIdentity } from "./api-key-cache.ts";
export { clearApiKeyCache } from "./api-key-cache.ts";
export { authenticateApiKey } from "./authenticate-api-key.ts";
export type { Jwks } from "./jwks.ts";
export { getJwks } from "./jwks.ts";
export type { CreatedApiKey, CreatedPlatform } from "./platforms.ts";
export { createApiKey, createPlatform, platformExists, revokeApiKey } from "./platforms.ts";
export type {
  SessionTokenEnv,
  SessionTokenSubjects,
  SessionTokens,
  SessionTokenVerification,
} from "./session-tokens.ts";
export { issueSessionTokens, verifySessionToken } from "./session-tokens.ts";
export type { PublicSigningJwk, TokenKeyEnv } from "./token-keys.ts";
export { SigningKeyConfigError } from "./token-keys.ts";
