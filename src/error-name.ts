// How a failure is named in a log line: by its kind, and by its message only where the message is ours.
// Payloads (request bodies, coordinates, addresses, secrets) never reach either.

/** The error's `name` (`TypeError`, `PsapLookupFailedError`), or the type of a thrown non-error. */
export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/** `name: message`, for failures whose messages hold no coordinate or payload (our own, the runtime's). */
export function errorSummary(error: unknown): string {
  return `${errorName(error)}: ${error instanceof Error ? error.message : ""}`;
}
