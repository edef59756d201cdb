// .dev.vars as `npm run dev` reads and writes it: dotenv syntax (what wrangler parses), reuse on the second run.
import { CompactSign, compactVerify, importJWK } from "jose";
import { describe, expect, it } from "vitest";
import { DevError } from "../../scripts/dev-run.ts";
import {
  completeDevVars,
  formatDevVar,
  parseDevVars,
  setDevVars,
  signingKeyProblem,
} from "../../scripts/dev-vars.ts";

describe("parseDevVars (dotenv, as wrangler reads .dev.vars)", () => {
  it("reads plain, quoted and exported assignments, skipping comments and blank lines", () => {
    const text = [
      "# a comment",
      "",
      "PLAIN=abc123",
      "SPACED = value with spaces  ",
      'SINGLE=\'{"a": 1, "b": "#x"}\'',
      'DOUBLE="line1\\nline2"',
      "export EXPORTED=yes",
      "TRAILING=value # comment",
      "EMPTY=",
    ].join("\n");
    expect(parseDevVars(text)).toEqual({
      PLAIN: "abc123",
      SPACED: "value with spaces",
      SINGLE: '{"a": 1, "b": "#x"}',
      DOUBLE: "line1\nline2",
      EXPORTED: "yes",
      TRAILING: "value",
      EMPTY: "",
    });
  });

  it("lets the last assignment of a name win and accepts CRLF line ends", () => {
    expect(parseDevVars("A=1\r\nA=2\r\nB=3\r\n")).toEqual({ A: "2", B: "3" });
  });

  it("finds no variables in the header it writes", () => {
    expect(parseDevVars(setDevVars("", {}))).toEqual({});
  });
});

describe("formatDevVar", () => {
  it("writes a plain token unquoted, as the contract (docs/contract.md) shows ADMIN_TOKEN", () => {
    expect(formatDevVar("ADMIN_TOKEN", "abcXYZ0189")).toBe("ADMIN_TOKEN=abcXYZ0189");
  });

  it("single-quotes JSON so it reads back byte for byte", () => {
    const json = '{"kty":"OKP","crv":"Ed25519","x":"a-b_c","d":"d#e","kid":"k 1"}';
    const line = formatDevVar("JWT_SIGNING_KEY", json);
    expect(line).toBe(`JWT_SIGNING_KEY='${json}'`);
    expect(parseDevVars(line).JWT_SIGNING_KEY).toBe(json);
  });

  it("refuses values it cannot write safely instead of corrupting the file", () => {
    expect(() => formatDevVar("X", "it's")).toThrow();
    expect(() => formatDevVar("X", "a\nb")).toThrow();
  });
});

describe("setDevVars", () => {
  it("starts a new file with a header that says what it is", () => {
    const text = setDevVars("", { ADMIN_TOKEN: "t" });
    expect(text).toMatch(/^# Local secrets for `wrangler dev`/);
    expect(text.endsWith("ADMIN_TOKEN=t\n")).toBe(true);
  });

  it("keeps the user's own lines and replaces only the names it sets", () => {
    const before = "# mine\nMY_VAR=keep me\nDEMO_API_KEY=old\nexport DEMO_PLATFORM_ID=old\n";
    const after = setDevVars(before, { DEMO_API_KEY: "sk_new", DEMO_PLATFORM_ID: "plt_new" });
    expect(after).toBe("# mine\nMY_VAR=keep me\nDEMO_API_KEY=sk_new\nDEMO_PLATFORM_ID=plt_new\n");
  });

  it("adds a line break before appending to a file that lacks a final one", () => {
    expect(setDevVars("A=1", { ADMIN_TOKEN: "2" })).toBe("A=1\nADMIN_TOKEN=2\n");
  });
});

describe("completeDevVars", () => {
  it("creates an admin token, a signing key and a demo platform on the first run", async () => {
    const { secrets, created } = await completeDevVars({});
    expect(created).toEqual(["ADMIN_TOKEN", "JWT_SIGNING_KEY", "DEMO_PLATFORM_ID", "DEMO_API_KEY"]);
    expect(secrets.ADMIN_TOKEN).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(secrets.DEMO_PLATFORM_ID).toMatch(/^plt_[0-9A-Za-z]+$/);
    expect(secrets.DEMO_API_KEY).toMatch(/^sk_live_[0-9A-Za-z]{40}$/);
    expect(signingKeyProblem(secrets.JWT_SIGNING_KEY)).toBeNull();
  });

  it("writes a file that a second run reads back and reuses unchanged", async () => {
    const first = await completeDevVars({});
    const text = setDevVars("", first.secrets);
    const second = await completeDevVars(parseDevVars(text));
    expect(second.created).toEqual([]);
    expect(second.secrets).toEqual(first.secrets);
  });

  it("generates a signing key that signs and verifies EdDSA, one line of JSON with a kid", async () => {
    const { secrets } = await completeDevVars({});
    expect(secrets.JWT_SIGNING_KEY).not.toContain("\n");
    const jwk = JSON.parse(secrets.JWT_SIGNING_KEY) as { kid: string; x: string; crv: string; kty: string };
    expect(jwk.kid).toMatch(/^dev-\d{4}-\d\d-\d\d-[0-9A-Za-z]{8}$/);
    const jws = await new CompactSign(new TextEncoder().encode("hi"))
      .setProtectedHeader({ alg: "EdDSA" })
      .sign(await importJWK(jwk, "EdDSA"));
    const publicKey = await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, "EdDSA");
    await expect(compactVerify(jws, publicKey)).resolves.toBeTruthy();
  });

  it("refuses to replace an unusable signing key silently", async () => {
    await expect(completeDevVars({ JWT_SIGNING_KEY: "not json" })).rejects.toBeInstanceOf(DevError);
    await expect(
      completeDevVars({ JWT_SIGNING_KEY: '{"kty":"OKP","crv":"Ed25519","x":"a"}' }),
    ).rejects.toThrow(/delete the line/);
  });

  it("makes a new demo platform and key together when either half is missing or malformed", async () => {
    const { secrets } = await completeDevVars({});
    const onlyKey = await completeDevVars({ ...secrets, DEMO_PLATFORM_ID: "" });
    expect(onlyKey.created).toEqual(["DEMO_PLATFORM_ID", "DEMO_API_KEY"]);
    expect(onlyKey.secrets.DEMO_API_KEY).not.toBe(secrets.DEMO_API_KEY);
    const malformed = await completeDevVars({ ...secrets, DEMO_API_KEY: "sk_live_short" });
    expect(malformed.created).toEqual(["DEMO_PLATFORM_ID", "DEMO_API_KEY"]);
    expect(malformed.secrets.ADMIN_TOKEN).toBe(secrets.ADMIN_TOKEN);
  });
});
