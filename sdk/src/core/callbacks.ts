// Runs user callbacks so that one that throws can never break the SDK.

/** Calls `fn` with `arg`; a throw is reported on the console and otherwise ignored. */
export function safeCall<T>(fn: ((arg: T) => void) | undefined, arg: T): void {
  if (!fn) return;
  try {
    fn(arg);
  } catch (err) {
    console.error("sos-sdk: a callback threw", err);
  }
}
