// Unbiased random strings from the platform CSPRNG (crypto.getRandomValues), for secrets and ids.

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Bytes at or above this are dropped: 248 = 4 × 62, so `byte % 62` is uniform below it (no modulo bias). */
const UNBIASED_LIMIT = 256 - (256 % BASE62.length);

const MAX_RANDOM_BYTES = 65_536;

/** `length` characters drawn uniformly from [0-9A-Za-z]. */
export function randomBase62(length: number): string {
  if (!Number.isInteger(length) || length < 0) throw new RangeError("length must be a non-negative integer");
  let out = "";
  // About 3 % of bytes are rejected; ask for a little more than needed so one round nearly always
  // suffices, but never more than getRandomValues gives at once (64 KiB).
  const buffer = new Uint8Array(Math.min(Math.ceil(length * 1.1) + 8, MAX_RANDOM_BYTES));
  while (out.length < length) {
    crypto.getRandomValues(buffer);
    for (const byte of buffer) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += BASE62.charAt(byte % BASE62.length);
      if (out.length === length) break;
    }
  }
  return out;
}
