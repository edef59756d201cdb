// Standard Webhooks signing with Web Crypto: `whsec_` secrets, and `v1,<base64 HMAC-SHA256>` of "{id}.{timestamp}.{body}".
import { WEBHOOK_LIMITS } from "../../lib/config.ts";

const SECRET_PREFIX = "whsec_";

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(WEBHOOK_LIMITS.secretBytes));
  return `${SECRET_PREFIX}${toBase64(bytes)}`;
}

/** The `webhook-signature` header: one `v1,` signature per secret, separated by spaces (several during a rotation). */
export async function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<string> {
  const content = new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`);
  const signatures = await Promise.all(
    secrets.map(async (secret) => {
      const key = await crypto.subtle.importKey(
        "raw",
        secretKeyBytes(secret),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      const mac = await crypto.subtle.sign("HMAC", key, content);
      return `v1,${toBase64(new Uint8Array(mac))}`;
    }),
  );
  return signatures.join(" ");
}

/** The HMAC key: the base64-decoded part after `whsec_`. */
function secretKeyBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error("a webhook secret starts with whsec_");
  const binary = atob(secret.slice(SECRET_PREFIX.length));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
