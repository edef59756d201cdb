// How `npm run dev` talks: short prefixed lines, and one error type for failures the user can fix.

export function log(message: string): void {
  console.log(`[dev] ${message}`);
}

export function warn(message: string): void {
  console.warn(`[dev] WARNING: ${message}`);
}

/** An expected failure: reported as one clear message, without a stack trace. */
export class DevError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DevError";
  }
}
