// Session tokens: what the routes rely on when they issue a session and check a browser's token.
import { env } from "cloudflare:workers";
import { decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK, SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AUTH_LIMITS, SESSION_LIMITS } from "../../lib/config.ts";
import { getJwks } from "../../src/auth/jwks.ts";
import { issueSessionTokens, verifySessionToken } from "../../src/auth/session-tokens.ts";
import { generateSigningJwk } from "../../src/auth/signing-key-generation.ts";
import { SigningKeyConfigError } from "../../src/auth/token-keys.ts";

const HOUR = 3_600_000;

function subjects(expiresAt = new Date(Date.now() + HOUR)) {
  return {
    sessionId: crypto.randomUUID(),
    platformId: "plt_test",
    patientId: "pat-1",
    counselorId: "cou-1",
    expiresAt,
  };
}

/** Signs arbitrary claims with the test environment's own signing key (for claims the service never issues). */
async function signWithServiceKey(claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
  const jwk = JSON.parse(env.JWT_SIGNING_KEY) as { kid: string };
  const key = await importJWK(jwk, "EdDSA");
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "EdDSA", kid: jwk.kid, typ: "JWT", ...header })
    .sign(key);
}

function validClaims(overrides: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: env.JWT_ISSUER,
    aud: "patient",
    sub: "pat-1",
    sid: crypto.randomUUID(),
    pid: "plt_test",
    iat: now,
    exp: now + 3600,
    jti: crypto.randomUUID(),
    ...overrides,
  };
}

function b64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** An environment whose signing key is `signingJwk`, optionally still accepting `previous` public keys. */
function envWith(signingJwk: object, previous?: object[]) {
  return {
    JWT_SIGNING_KEY: JSON.stringify(signingJwk),
    JWT_PREVIOUS_PUBLIC_KEYS: previous === undefined ? undefined : JSON.stringify(previous),
    JWT_ISSUER: env.JWT_ISSUER,
  };
}

function publicPart(jwk: { kty: string; crv: string; x: string; kid: string }) {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid: jwk.kid };
}

describe("issuing session tokens", () => {
  it("gives the patient and the counselor tokens that verify with their role, ids, session and platform", async () => {
    const input = subjects();
    const tokens = await issueSessionTokens(env, input);
    const patient = await verifySessionToken(env, tokens.patient_token);
    const counselor = await verifySessionToken(env, tokens.counselor_token);
    expect(patient).toEqual({
      ok: true,
      claims: {
        iss: env.JWT_ISSUER,
        aud: "patient",
        sub: "pat-1",
        sid: input.sessionId,
        pid: "plt_test",
        iat: expect.any(Number),
        exp: expect.any(Number),
        jti: expect.any(String),
      },
    });
    expect(counselor).toMatchObject({
      ok: true,
      claims: { aud: "counselor", sub: "cou-1", sid: input.sessionId },
    });
  });

  it("signs with EdDSA and names the key and type in the header", async () => {
    const { patient_token } = await issueSessionTokens(env, subjects());
    const kid = (JSON.parse(env.JWT_SIGNING_KEY) as { kid: string }).kid;
    expect(decodeProtectedHeader(patient_token)).toEqual({ alg: "EdDSA", kid, typ: "JWT" });
  });

  it("sets exp to the session's expiry plus the 24 h grace, and a fresh jti per token", async () => {
    const expiresAt = new Date(Date.now() + 2 * HOUR);
    const { patient_token, counselor_token } = await issueSessionTokens(env, subjects(expiresAt));
    const patient = decodeJwt(patient_token);
    const counselor = decodeJwt(counselor_token);
    expect(patient.exp).toBe(Math.floor((expiresAt.getTime() + SESSION_LIMITS.tokenGraceMs) / 1000));
    expect(patient.iat).toBeCloseTo(Date.now() / 1000, -1);
    expect(patient.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(patient.jti).not.toBe(counselor.jti);
  });

  it("refuses a missing id or an invalid expiry as a programming error", async () => {
    await expect(issueSessionTokens(env, { ...subjects(), patientId: "" })).rejects.toThrow(TypeError);
    await expect(issueSessionTokens(env, { ...subjects(), expiresAt: new Date(Number.NaN) })).rejects.toThrow(
      TypeError,
    );
  });
});

describe("verifying session tokens", () => {
  it("calls a token with an altered signature invalid", async () => {
    const { patient_token } = await issueSessionTokens(env, subjects());
    const [header, payload, signature = ""] = patient_token.split(".");
    const flipped = (signature[0] === "A" ? "B" : "A") + signature.slice(1);
    expect(await verifySessionToken(env, `${header}.${payload}.${flipped}`)).toEqual({
      ok: false,
      reason: "invalid",
    });
  });

  it("calls a token with altered claims invalid (a patient cannot turn itself into a counselor)", async () => {
    const { patient_token } = await issueSessionTokens(env, subjects());
    const [header, payload = "", signature] = patient_token.split(".");
    const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/"))) as Record<string, unknown>;
    const forged = `${header}.${b64url({ ...claims, aud: "counselor" })}.${signature}`;
    expect(await verifySessionToken(env, forged)).toEqual({ ok: false, reason: "invalid" });
  });

  it("refuses an unsigned token (alg none)", async () => {
    const kid = (JSON.parse(env.JWT_SIGNING_KEY) as { kid: string }).kid;
    const unsigned = `${b64url({ alg: "none", kid, typ: "JWT" })}.${b64url(validClaims())}.`;
    expect(await verifySessionToken(env, unsigned)).toEqual({ ok: false, reason: "invalid" });
    const withJunkSignature = `${b64url({ alg: "none", kid, typ: "JWT" })}.${b64url(validClaims())}.AAAA`;
    expect(await verifySessionToken(env, withJunkSignature)).toEqual({ ok: false, reason: "invalid" });
  });

  it("refuses an HMAC token keyed with the public key (algorithm confusion)", async () => {
    const jwk = JSON.parse(env.JWT_SIGNING_KEY) as { kid: string; x: string };
    const secret = new TextEncoder().encode(jwk.x);
    const token = await new SignJWT(validClaims())
      .setProtectedHeader({ alg: "HS256", kid: jwk.kid, typ: "JWT" })
      .sign(secret);
    expect(await verifySessionToken(env, token)).toEqual({ ok: false, reason: "invalid" });
  });

  it("refuses a token signed by another key that claims the service's kid", async () => {
    const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const kid = (JSON.parse(env.JWT_SIGNING_KEY) as { kid: string }).kid;
    const token = await new SignJWT(validClaims())
      .setProtectedHeader({ alg: "EdDSA", kid, typ: "JWT" })
      .sign(privateKey);
    expect(await verifySessionToken(env, token)).toEqual({ ok: false, reason: "invalid" });
  });

  it("refuses a token whose kid is unknown, or missing", async () => {
    expect(
      await verifySessionToken(env, await signWithServiceKey(validClaims(), { kid: "no-such-key" })),
    ).toEqual({
      ok: false,
      reason: "invalid",
    });
    expect(
      await verifySessionToken(env, await signWithServiceKey(validClaims(), { kid: undefined })),
    ).toEqual({
      ok: false,
      reason: "invalid",
    });
  });

  it("refuses a token from another issuer", async () => {
    const token = await signWithServiceKey(validClaims({ iss: "https://evil.example" }));
    expect(await verifySessionToken(env, token)).toEqual({ ok: false, reason: "invalid" });
  });

  it("refuses an audience other than patient or counselor, including a list", async () => {
    for (const aud of ["admin", ["patient"], ["patient", "counselor"], ""]) {
      const token = await signWithServiceKey(validClaims({ aud }));
      expect(await verifySessionToken(env, token), JSON.stringify(aud)).toEqual({
        ok: false,
        reason: "invalid",
      });
    }
  });

  it("refuses a token with a claim missing or of the wrong type", async () => {
    for (const [claim, value] of [
      ["sid", undefined],
      ["pid", undefined],
      ["sub", undefined],
      ["jti", undefined],
      ["iat", undefined],
      ["exp", undefined],
      ["sid", 42],
      ["pid", ""],
      ["exp", "tomorrow"],
    ] as const) {
      const token = await signWithServiceKey(validClaims({ [claim]: value }));
      expect(await verifySessionToken(env, token), `${claim}=${String(value)}`).toEqual({
        ok: false,
        reason: "invalid",
      });
    }
  });

  it("refuses a token whose typ header is not JWT", async () => {
    const token = await signWithServiceKey(validClaims(), { typ: "at+jwt" });
    expect(await verifySessionToken(env, token)).toEqual({ ok: false, reason: "invalid" });
  });

  it("calls garbage invalid without throwing", async () => {
    for (const garbage of [
      "",
      "abc",
      "a.b",
      "a.b.c.d",
      "....",
      "x".repeat(10_000),
      "ey.ey.ey",
      null,
      42,
      {},
    ]) {
      expect(await verifySessionToken(env, garbage), String(garbage)).toEqual({
        ok: false,
        reason: "invalid",
      });
    }
  });

  it("calls a genuine token past its exp expired, with its claims (410 on its own session, 403 elsewhere)", async () => {
    const longAgo = new Date(Date.now() - SESSION_LIMITS.tokenGraceMs - HOUR);
    const { counselor_token } = await issueSessionTokens(env, subjects(longAgo));
    const verified = await verifySessionToken(env, counselor_token);
    expect(verified).toMatchObject({ ok: false, reason: "expired", claims: { aud: "counselor" } });
  });

  it("still accepts a token whose session expired less than 24 h ago (the session object decides)", async () => {
    const { patient_token } = await issueSessionTokens(env, subjects(new Date(Date.now() - HOUR)));
    expect(await verifySessionToken(env, patient_token)).toMatchObject({ ok: true });
  });

  it("calls an expired token from another issuer invalid, not expired", async () => {
    const past = Math.floor(Date.now() / 1000) - 60;
    const token = await signWithServiceKey(
      validClaims({ iss: "https://evil.example", exp: past, iat: past - 60 }),
    );
    expect(await verifySessionToken(env, token)).toEqual({ ok: false, reason: "invalid" });
  });

  it("calls an expired forgery invalid, not expired", async () => {
    const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const kid = (JSON.parse(env.JWT_SIGNING_KEY) as { kid: string }).kid;
    const past = Math.floor(Date.now() / 1000) - 60;
    const token = await new SignJWT(validClaims({ exp: past, iat: past - 60 }))
      .setProtectedHeader({ alg: "EdDSA", kid, typ: "JWT" })
      .sign(privateKey);
    expect(await verifySessionToken(env, token)).toEqual({ ok: false, reason: "invalid" });
  });

  it("calls an expired token with an ill-typed claim invalid, not expired", async () => {
    const past = Math.floor(Date.now() / 1000) - 60;
    const token = await signWithServiceKey(validClaims({ exp: past, iat: past - 60, sid: 7 }));
    expect(await verifySessionToken(env, token)).toEqual({ ok: false, reason: "invalid" });
  });
});

describe("key rotation", () => {
  it("keeps tokens signed with the previous key valid while its public key is listed", async () => {
    const oldKey = await generateSigningJwk("old-key");
    const newKey = await generateSigningJwk("new-key");
    const { patient_token } = await issueSessionTokens(envWith(oldKey), subjects());
    const rotated = envWith(newKey, [publicPart(oldKey)]);
    expect(await verifySessionToken(rotated, patient_token)).toMatchObject({
      ok: true,
      claims: { aud: "patient" },
    });
    const fresh = await issueSessionTokens(rotated, subjects());
    expect(decodeProtectedHeader(fresh.patient_token).kid).toBe("new-key");
  });

  it("refuses tokens of the previous key once it is no longer listed", async () => {
    const oldKey = await generateSigningJwk("retired-key");
    const newKey = await generateSigningJwk("current-key");
    const { patient_token } = await issueSessionTokens(envWith(oldKey), subjects());
    expect(await verifySessionToken(envWith(newKey), patient_token)).toEqual({
      ok: false,
      reason: "invalid",
    });
  });

  it("accepts the previous keys as a whole JWKS document too", async () => {
    const oldKey = await generateSigningJwk("jwks-old");
    const newKey = await generateSigningJwk("jwks-new");
    const { patient_token } = await issueSessionTokens(envWith(oldKey), subjects());
    const rotated = {
      ...envWith(newKey),
      JWT_PREVIOUS_PUBLIC_KEYS: JSON.stringify(await getJwks(envWith(oldKey))),
    };
    expect(await verifySessionToken(rotated, patient_token)).toMatchObject({ ok: true });
  });
});

describe("remembering genuine tokens (no second signature check)", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  /** Counts the signature checks made through WebCrypto while `run` runs. */
  async function signatureChecks(run: () => Promise<unknown>): Promise<number> {
    const spy = vi.spyOn(crypto.subtle, "verify");
    try {
      await run();
      return spy.mock.calls.length;
    } finally {
      spy.mockRestore();
    }
  }

  it("answers a token it has verified with the same claims, without checking its signature again", async () => {
    const { patient_token } = await issueSessionTokens(env, subjects());
    let first: unknown;
    let again: unknown;
    expect(await signatureChecks(async () => (first = await verifySessionToken(env, patient_token)))).toBe(1);
    expect(await signatureChecks(async () => (again = await verifySessionToken(env, patient_token)))).toBe(0);
    expect(again).toEqual(first);
    expect(again).toMatchObject({ ok: true, claims: { aud: "patient" } });
  });

  it("calls a remembered token expired once its exp has passed, as jose would", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const now = Math.floor(Date.now() / 1000);
    const token = await signWithServiceKey(validClaims({ iat: now, exp: now + 60 }));
    expect(await verifySessionToken(env, token)).toMatchObject({ ok: true });
    vi.setSystemTime((now + 59) * 1000 + 999);
    expect(await verifySessionToken(env, token)).toMatchObject({ ok: true });
    vi.setSystemTime((now + 60) * 1000);
    const checks = await signatureChecks(async () =>
      expect(await verifySessionToken(env, token)).toMatchObject({
        ok: false,
        reason: "expired",
        claims: { exp: now + 60 },
      }),
    );
    expect(checks).toBe(0);
  });

  it("remembers nothing of a bad token: a forgery is checked, and refused, every time", async () => {
    const { patient_token } = await issueSessionTokens(env, subjects());
    const [header, payload, signature = ""] = patient_token.split(".");
    const flipped = (signature[0] === "A" ? "B" : "A") + signature.slice(1);
    const forged = `${header}.${payload}.${flipped}`;
    for (let i = 0; i < 2; i++) {
      const checks = await signatureChecks(async () =>
        expect(await verifySessionToken(env, forged)).toEqual({ ok: false, reason: "invalid" }),
      );
      expect(checks).toBe(1);
    }
  });

  it("forgets them with the key set: after a rotation that drops the key, a remembered token is refused", async () => {
    const oldKey = await generateSigningJwk("remembered-old");
    const newKey = await generateSigningJwk("remembered-new");
    const before = envWith(oldKey);
    const { patient_token } = await issueSessionTokens(before, subjects());
    expect(await verifySessionToken(before, patient_token)).toMatchObject({ ok: true });
    expect(await verifySessionToken(envWith(newKey), patient_token)).toEqual({
      ok: false,
      reason: "invalid",
    });
    // Still listed as a previous key: verified afresh under the new key set, and accepted.
    const rotated = envWith(newKey, [publicPart(oldKey)]);
    await verifySessionToken(rotated, "not-a-token"); // loads the key set (its own pair check verifies once)
    expect(
      await signatureChecks(async () =>
        expect(await verifySessionToken(rotated, patient_token)).toMatchObject({ ok: true }),
      ),
    ).toBe(1);
  });

  it("refuses a remembered token when the service's issuer is no longer the token's", async () => {
    const { counselor_token } = await issueSessionTokens(env, subjects());
    expect(await verifySessionToken(env, counselor_token)).toMatchObject({ ok: true });
    const renamed = { ...env, JWT_ISSUER: "https://renamed.example" };
    expect(await verifySessionToken(renamed, counselor_token)).toEqual({ ok: false, reason: "invalid" });
  });

  /**
   * A fresh key's env and one token more than the memory holds, every one but the last verified once
   * (so remembered, oldest first): verifying the last fills the memory past its bound.
   */
  async function oneTokenPastTheBound(kid: string) {
    const keyEnv = envWith(await generateSigningJwk(kid));
    const tokens: string[] = [];
    for (let i = 0; i <= AUTH_LIMITS.verifiedTokenCacheMaxEntries; i += 1) {
      const { patient_token } = await issueSessionTokens(keyEnv, subjects());
      tokens.push(patient_token);
    }
    for (const token of tokens.slice(0, -1)) await verifySessionToken(keyEnv, token);
    return { keyEnv, tokens };
  }

  it(`remembers at most ${AUTH_LIMITS.verifiedTokenCacheMaxEntries} tokens, dropping the least recently used first`, async () => {
    const { keyEnv, tokens } = await oneTokenPastTheBound("remembered-bound");
    const [oldest = "", second = ""] = tokens;
    // Full: the newest token's entry drops the least recently used one (the oldest, never read since).
    await verifySessionToken(keyEnv, tokens.at(-1) ?? "");
    expect(await signatureChecks(() => verifySessionToken(keyEnv, second))).toBe(0);
    expect(await signatureChecks(() => verifySessionToken(keyEnv, oldest))).toBe(1);
  });

  it("keeps a token in use when full: the one dropped is the least recently used", async () => {
    const { keyEnv, tokens } = await oneTokenPastTheBound("remembered-in-use");
    const [first = "", second = ""] = tokens;
    // The first session's token is used again before the cache fills up: it stays, the second goes.
    expect(await signatureChecks(() => verifySessionToken(keyEnv, first))).toBe(0);
    await verifySessionToken(keyEnv, tokens.at(-1) ?? "");
    expect(await signatureChecks(() => verifySessionToken(keyEnv, first))).toBe(0);
    expect(await signatureChecks(() => verifySessionToken(keyEnv, second))).toBe(1);
  });
});

describe("JWKS", () => {
  it("publishes the current public key with kid, alg and use, and no private part", async () => {
    const jwk = JSON.parse(env.JWT_SIGNING_KEY) as { kid: string; x: string };
    const jwks = await getJwks(env);
    expect(jwks).toEqual({
      keys: [{ kty: "OKP", crv: "Ed25519", x: jwk.x, kid: jwk.kid, alg: "EdDSA", use: "sig" }],
    });
    expect(JSON.stringify(jwks)).not.toContain('"d"');
  });

  it("lists the previous keys after the current one, without any private part pasted by mistake", async () => {
    const oldKey = await generateSigningJwk("listed-old");
    const newKey = await generateSigningJwk("listed-new");
    const jwks = await getJwks(envWith(newKey, [oldKey]));
    expect(jwks.keys.map((key) => key.kid)).toEqual(["listed-new", "listed-old"]);
    expect(JSON.stringify(jwks)).not.toContain(oldKey.d);
    expect(JSON.stringify(jwks)).not.toContain(newKey.d);
  });

  it("verifies the service's tokens with a standard JWKS client", async () => {
    const { createLocalJWKSet, jwtVerify } = await import("jose");
    const { counselor_token } = await issueSessionTokens(env, subjects());
    const { payload } = await jwtVerify(counselor_token, createLocalJWKSet(await getJwks(env)), {
      issuer: env.JWT_ISSUER,
      audience: "counselor",
    });
    expect(payload.aud).toBe("counselor");
  });
});

describe("misconfigured keys", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["missing", { JWT_SIGNING_KEY: undefined }],
    ["empty", { JWT_SIGNING_KEY: "" }],
    ["not JSON", { JWT_SIGNING_KEY: "{secret-material" }],
    [
      "a public key only",
      { JWT_SIGNING_KEY: JSON.stringify({ kty: "OKP", crv: "Ed25519", x: "A".repeat(43), kid: "k" }) },
    ],
    [
      "without kid",
      {
        JWT_SIGNING_KEY: JSON.stringify({ kty: "OKP", crv: "Ed25519", x: "A".repeat(43), d: "B".repeat(43) }),
      },
    ],
    ["an RSA key", { JWT_SIGNING_KEY: JSON.stringify({ kty: "RSA", n: "x", e: "AQAB", d: "y", kid: "k" }) }],
    ["previous keys not an array", { JWT_PREVIOUS_PUBLIC_KEYS: '{"kty":"OKP"}' }],
    ["issuer missing", { JWT_ISSUER: "" }],
  ];

  for (const [what, overrides] of cases) {
    it(`makes issuing fail with a SigningKeyConfigError when the key is ${what}`, async () => {
      const broken = { ...envWith(JSON.parse(env.JWT_SIGNING_KEY) as object), ...overrides } as Parameters<
        typeof issueSessionTokens
      >[0];
      await expect(issueSessionTokens(broken, subjects())).rejects.toBeInstanceOf(SigningKeyConfigError);
    });
  }

  it("never puts key material in the error message", async () => {
    const real = JSON.parse(env.JWT_SIGNING_KEY) as { d: string; x: string };
    const truncated = env.JWT_SIGNING_KEY.slice(0, -2); // invalid JSON that holds the private key
    const mismatched = JSON.stringify({ ...(await generateSigningJwk("mismatch")), d: real.d });
    for (const secret of [truncated, mismatched]) {
      const error = await issueSessionTokens({ ...envWith({}), JWT_SIGNING_KEY: secret }, subjects()).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(SigningKeyConfigError);
      const text = `${String(error)} ${JSON.stringify(error)} ${String((error as Error).cause)}`;
      expect(text).not.toContain(real.d);
      expect(text).not.toContain(real.d.slice(0, 12));
    }
  });

  it("refuses a signing key whose private part does not belong to its public part", async () => {
    const a = await generateSigningJwk("pair-a");
    const b = await generateSigningJwk("pair-b");
    await expect(issueSessionTokens(envWith({ ...a, d: b.d }), subjects())).rejects.toThrow(/does not match/);
  });

  it("makes verification throw too, rather than blame the client's token", async () => {
    const { patient_token } = await issueSessionTokens(env, subjects());
    await expect(
      verifySessionToken({ ...envWith({}), JWT_SIGNING_KEY: "" }, patient_token),
    ).rejects.toBeInstanceOf(SigningKeyConfigError);
  });

  it("accepts a freshly generated key as JWT_SIGNING_KEY", async () => {
    const fresh = envWith(await generateSigningJwk());
    const { patient_token } = await issueSessionTokens(fresh, subjects());
    expect(await verifySessionToken(fresh, patient_token)).toMatchObject({ ok: true });
  });
});
