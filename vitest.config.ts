// Worker tests: run inside workerd with the project's wrangler.toml bindings (D1, KV, DOs, rate limits).
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

/** A fixed test-only signing key: never used outside tests. */
const TEST_SIGNING_KEY =
  '{"crv":"Ed25519","d":"3CVGJ2B5XKEzS6OD1qWcr8RNu1CD6xgiWIAr6WL5t70","x":"steYCskDZiumwmjpXfIiqTzKsAzKyjwmmE3-GWKGahk","kty":"OKP","kid":"test-key-1","alg":"EdDSA","use":"sig"}';

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./data/migrations");
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            ADMIN_TOKEN: "test-admin-token",
            JWT_SIGNING_KEY: TEST_SIGNING_KEY,
            JWT_ISSUER: "https://sos.test",
            // On in tests, so every route is served; lost-route.test.ts turns it off to see it gone.
            LOST_ENABLED: "true",
            // The same for location URIs; held-route.test.ts turns it off to see them gone.
            HELD_ENABLED: "true",
            TEST_MIGRATIONS: migrations,
          },
        },
      }),
    ],
    test: {
      include: ["test/worker/**/*.test.ts"],
      setupFiles: ["./test/worker/setup.ts"],
      testTimeout: 20_000,
    },
  };
});
