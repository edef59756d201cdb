// The SDKs' HTTP rule: 429 is retried (Retry-After, else 1 s, 2 s, 4 s less up to half at random),
// everything else fails at once.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, RateLimitError, SdkError } from "../../sdk/src/core/errors.ts";
import { MAX_RETRY_AFTER_MS, requestJson, retryDelayMs } from "../../sdk/src/core/http.ts";
import { fakeFetch, json, problem } from "./sdk-fakes.ts";

const URL_ = "https://sos.test/v1/thing";

function setup(answers: (() => Response)[]) {
  vi.useFakeTimers();
  let i = 0;
  const http = fakeFetch([
    ["/v1/thing", () => (answers[Math.min(i++, answers.length - 1)] as () => Response)()],
  ]);
  vi.stubGlobal("fetch", http.fn);
  return http;
}

/** Runs the request and records when (in fake time) each fetch happened. */
async function run(http: ReturnType<typeof fakeFetch>, maxRetryAttempts?: number) {
  const start = Date.now();
  const times: number[] = [];
  const original = http.fn.getMockImplementation();
  http.fn.mockImplementation(async (input, init) => {
    times.push(Date.now() - start);
    return (original as NonNullable<typeof original>)(input, init);
  });
  const result = requestJson<unknown>({ maxRetryAttempts }, "POST", URL_, { "X-Test": "1" }, {}).then(
    (value) => ({ value, error: undefined as unknown }),
    (error: unknown) => ({ value: undefined, error }),
  );
  await vi.runAllTimersAsync();
  return { ...(await result), times };
}

// The backoff's random draw is pinned at 0 (nothing taken off), so each wait is the full step; the
// spread itself has its own test below.
beforeEach(() => {
  vi.spyOn(Math, "random").mockReturnValue(0);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("retry delay", () => {
  it("waits 1 s, 2 s, 4 s, 8 s without Retry-After", () => {
    expect([0, 1, 2, 3].map((n) => retryDelayMs(null, n))).toEqual([1000, 2000, 4000, 8000]);
  });

  it("spreads the waits without Retry-After: up to half of each step is taken off at random", () => {
    vi.spyOn(Math, "random").mockReturnValue(0.999_999);
    const shortest = [0, 1, 2, 3].map((n) => retryDelayMs(null, n));
    shortest.forEach((ms, n) => {
      expect(ms).toBeGreaterThan(1000 * 2 ** n * 0.5);
      expect(ms).toBeLessThan(1000 * 2 ** n * 0.5 + 1);
    });
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    expect(retryDelayMs(null, 2)).toBe(3000);
  });

  it("keeps the service's Retry-After as it is, whatever the random draw", () => {
    vi.spyOn(Math, "random").mockReturnValue(0.999_999);
    expect(retryDelayMs("7", 0)).toBe(7000);
    const now = Date.parse("2026-11-22T10:00:00Z");
    expect(retryDelayMs("Sun, 22 Nov 2026 10:00:05 GMT", 0, now)).toBe(5000);
  });

  it("reads Retry-After as delta-seconds", () => {
    expect(retryDelayMs("7", 0)).toBe(7000);
    expect(retryDelayMs("0", 2)).toBe(0);
    expect(retryDelayMs(" 1.5 ", 0)).toBe(1500);
  });

  it("reads Retry-After as an HTTP date", () => {
    const now = Date.parse("2026-11-22T10:00:00Z");
    expect(retryDelayMs("Sun, 22 Nov 2026 10:00:05 GMT", 0, now)).toBe(5000);
    expect(retryDelayMs("Sun, 22 Nov 2026 09:59:00 GMT", 0, now)).toBe(0);
  });

  it("bounds a huge Retry-After and ignores garbage", () => {
    expect(retryDelayMs("86400", 0)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryDelayMs("soon", 1)).toBe(2000);
    expect(retryDelayMs("-3", 0)).toBe(1000);
  });
});

/** Three 429s without Retry-After, then a 200. */
function threeRefusalsThenAnswer(): (() => Response)[] {
  const refused = () => problem(429, "rate_limited");
  return [refused, refused, refused, () => json(200, { ok: true })];
}

describe("requestJson", () => {
  it("retries a 429 after 1 s, 2 s and 4 s, then succeeds", async () => {
    const http = setup(threeRefusalsThenAnswer());
    const r = await run(http);
    expect(r.value).toEqual({ ok: true });
    expect(r.times).toEqual([0, 1000, 3000, 7000]);
  });

  it("comes back sooner by up to half of each step when the draw says so", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    const http = setup(threeRefusalsThenAnswer());
    const r = await run(http);
    expect(r.value).toEqual({ ok: true });
    expect(r.times).toEqual([0, 750, 2250, 5250]);
  });

  it("waits the Retry-After seconds when the service sends them", async () => {
    const http = setup([() => problem(429, "rate_limited", { "Retry-After": "3" }), () => json(200, {})]);
    const r = await run(http);
    expect(r.times).toEqual([0, 3000]);
  });

  it("waits until the Retry-After date when the service sends one", async () => {
    vi.useFakeTimers({ now: Date.parse("2026-11-22T10:00:00Z") });
    const http = fakeFetch([
      [
        "/v1/thing",
        () =>
          http.requests.length === 1
            ? problem(429, "rate_limited", { "Retry-After": new Date(Date.now() + 2000).toUTCString() })
            : json(200, {}),
      ],
    ]);
    vi.stubGlobal("fetch", http.fn);
    const r = await run(http);
    expect(r.times).toEqual([0, 2000]);
  });

  it("throws RateLimitError after exactly maxRetryAttempts retries (default 3)", async () => {
    const http = setup([() => problem(429, "rate_limited")]);
    const r = await run(http);
    expect(http.requests).toHaveLength(4);
    expect(r.error).toBeInstanceOf(RateLimitError);
    expect(r.error).toMatchObject({ name: "RateLimitError", code: "rate_limited", status: 429, retries: 3 });
    expect(r.error).toBeInstanceOf(SdkError);
  });

  it("honours a custom maxRetryAttempts, including 0", async () => {
    const five = setup([() => problem(429, "rate_limited")]);
    await run(five, 5);
    expect(five.requests).toHaveLength(6);
    const none = setup([() => problem(429, "rate_limited")]);
    const r = await run(none, 0);
    expect(none.requests).toHaveLength(1);
    expect(r.error).toBeInstanceOf(RateLimitError);
  });

  it.each([400, 401, 403, 404, 409, 410, 500, 503])(
    "does not retry a %i: ApiError at once",
    async (status) => {
      const http = setup([() => problem(status, `code_${status}`), () => json(200, {})]);
      const r = await run(http);
      expect(http.requests).toHaveLength(1);
      expect(r.error).toBeInstanceOf(ApiError);
      expect(r.error).toMatchObject({
        name: "ApiError",
        status,
        code: `code_${status}`,
        detail: `detail of code_${status}`,
      });
    },
  );

  it("makes an ApiError from a status whose body is not problem+json", async () => {
    const http = setup([() => new Response("<html>bad gateway</html>", { status: 502 })]);
    const r = await run(http);
    expect(r.error).toMatchObject({ name: "ApiError", status: 502, code: "http_502" });
  });

  it("reports no answer at all as ApiError status 0, not retried", async () => {
    vi.useFakeTimers();
    const fn = vi.fn(async () => {
      throw new TypeError("Failed to fetch");
    });
    vi.stubGlobal("fetch", fn);
    const p = requestJson({}, "GET", URL_, {}).catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    expect(await p).toMatchObject({ name: "ApiError", status: 0, code: "network_error" });
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("gives up on a request that hangs, with request_timeout", async () => {
    vi.useFakeTimers();
    vi.stubGlobal(
      "fetch",
      (_url: string, init: RequestInit) =>
        new Promise((_resolve, reject) =>
          init.signal?.addEventListener("abort", () => reject(new Error("aborted"))),
        ),
    );
    const p = requestJson({}, "GET", URL_, {}).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(await p).toMatchObject({ name: "ApiError", status: 0, code: "request_timeout" });
  });

  it("sends JSON with its headers", async () => {
    const http = setup([() => json(201, { id: 1 })]);
    await run(http);
    expect(http.requests[0]).toMatchObject({
      method: "POST",
      url: URL_,
      headers: { "x-test": "1", "content-type": "application/json" },
      body: {},
    });
  });
});
