// The operator's admin token check.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { isAdminToken } from "../../src/auth/admin-token.ts";

describe("isAdminToken", () => {
  it("accepts the configured ADMIN_TOKEN", async () => {
    expect(await isAdminToken(env, env.ADMIN_TOKEN)).toBe(true);
  });

  it("refuses any other value, including prefixes, extensions and changed case", async () => {
    const token = env.ADMIN_TOKEN;
    for (const wrong of [token.slice(0, -1), token + "x", token.toUpperCase(), ` ${token}`, "", "null"]) {
      expect(await isAdminToken(env, wrong), wrong).toBe(false);
    }
  });

  it("refuses a missing credential", async () => {
    expect(await isAdminToken(env, undefined)).toBe(false);
    expect(await isAdminToken(env, null)).toBe(false);
  });

  it("matches nothing when no admin token is configured, not even an empty one", async () => {
    expect(await isAdminToken({ ADMIN_TOKEN: "" }, "")).toBe(false);
    expect(await isAdminToken({ ADMIN_TOKEN: undefined as unknown as string }, "undefined")).toBe(false);
  });
});
