// The operator's admin token check (`Authorization: Bearer <ADMIN_TOKEN>` on /v1/admin routes).
import type { Env } from "../env.ts";

/**
 * Whether `presented` is the configured admin token. Both sides are hashed first and the digests
 * compared in constant time, so neither the token's length nor its content leaks through timing.
 * An unset or empty ADMIN_TOKEN matches nothing.
 */
export async function isAdminToken(
  env: Pick<Env, "ADMIN_TOKEN">,
  presented: string | null | undefined,
): Promise<boolean> {
  const expected = env.ADMIN_TOKEN;
  if (typeof expected !== "string" || expected === "" || typeof presented !== "string") return false;
  const [a, b] = await Promise.all([sha256(expected), sha256(presented)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

function sha256(value: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
}
