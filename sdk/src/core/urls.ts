// Base-address handling: trailing slashes, and a bare host meaning `wss://`.

/** `https://x/` → `https://x`. */
export function trimBase(url: string): string {
  return url.replace(/\/+$/, "");
}

/** WebSocket base: `wss://` kept, `https://` → `wss://`, `http://` → `ws://`, a bare host → `wss://host`. */
export function wsBase(url: string): string {
  const u = trimBase(url);
  return /^wss?:\/\//i.test(u) ? u : /^https?:\/\//i.test(u) ? u.replace(/^http/i, "ws") : `wss://${u}`;
}

/** HTTP base for a WebSocket base, used when only `wsUrl` is given. */
export function httpBase(url: string): string {
  return wsBase(url).replace(/^ws/i, "http");
}

/** `{apiBase}/v1/platforms/{pid}/sessions[/{sid}][/suffix]`, with each id escaped. */
export function sessionsPath(apiBase: string, pid: string, sid?: string, suffix = ""): string {
  const e = encodeURIComponent;
  return `${apiBase}/v1/platforms/${e(pid)}/sessions${sid === undefined ? "" : `/${e(sid)}`}${suffix}`;
}
