// Which webhook URLs are accepted: https anywhere public; plain http only to this machine, and only in local development.
import { WEBHOOK_LIMITS } from "../config.ts";

export type UrlCheck = { ok: true; url: string } | { ok: false; message: string };

/** `localhost`, 127.0.0.0/8 and ::1: reachable only from the machine the service runs on. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Checks a webhook URL. `allowLoopbackHttp` is set by local development only (WEBHOOK_ALLOW_LOOPBACK_HTTP),
 * so a receiver on 127.0.0.1 can be tried there; a deployed service refuses http and loopback hosts alike.
 */
export function checkWebhookUrl(raw: string, allowLoopbackHttp: boolean): UrlCheck {
  if (raw.length > WEBHOOK_LIMITS.maxUrlLength) {
    return { ok: false, message: `must be at most ${WEBHOOK_LIMITS.maxUrlLength} characters` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: "must be an absolute https URL" };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, message: "must not carry a user name or password" };
  }
  if (url.hash !== "") return { ok: false, message: "must not have a #fragment" };
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === "https:") {
    if (loopback && !allowLoopbackHttp) return { ok: false, message: "must be a public host, not loopback" };
    return { ok: true, url: url.href };
  }
  if (url.protocol === "http:") {
    if (loopback && allowLoopbackHttp) return { ok: true, url: url.href };
    return {
      ok: false,
      message: allowLoopbackHttp
        ? "must use https (http only to a loopback host such as 127.0.0.1 in local development)"
        : "must use https",
    };
  }
  return { ok: false, message: "must be an absolute https URL" };
}
