// The one bounded wait (src/timeout.ts) used by the lookup, its late answer and the outbox's queue send.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { withTimeout } from "../../src/timeout.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("withTimeout", () => {
  it("gives the work's value when it settles first, and leaves no timer behind", async () => {
    const result = withTimeout(Promise.resolve("answer"), 1_000, () => "too late");
    await expect(result).resolves.toBe("answer");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("gives the work's rejection when it fails first", async () => {
    const result = withTimeout(Promise.reject(new Error("KV down")), 1_000, () => "too late");
    await expect(result).rejects.toThrow("KV down");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("gives onTimeout's value once the time has passed", async () => {
    const result = withTimeout(new Promise<string>(() => {}), 1_000, () => null);
    await vi.advanceTimersByTimeAsync(999);
    let settled = false;
    void result.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toBeNull();
  });

  it("rejects with what onTimeout throws", async () => {
    const result = withTimeout(new Promise<string>(() => {}), 50, () => {
      throw new RangeError("no answer within 50 ms");
    });
    const checked = expect(result).rejects.toThrow(RangeError);
    await vi.advanceTimersByTimeAsync(50);
    await checked;
  });
});
