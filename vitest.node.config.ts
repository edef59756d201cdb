// Node-side tests: the PSAP import pipeline and lookup properties, the SDK core, the bench harness.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/node/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
  },
});
