// Runs user callbacks so that one that throws can never break the SDK.

/** Calls `fn` with `args`; a throw is reported on the console and otherwise ignored. */
export function safeCall<A extends unknown[]>(fn: ((...args: A) => void) | undefined, ...args: A): void {
  if (!fn) return;
  try {
    fn(...args);
  } catch (err) {
    console.error("sos-sdk: a callback threw", err);
  }
}
