// CORS for the browser routes (token routes and /ws): any origin, on every answer, errors and 429s included.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context.ts";

const CORS_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "Retry-After",
} as const;

const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Authorization, Content-Type",
  "Access-Control-Max-Age": "86400",
} as const;

export function browserCors(): MiddlewareHandler<AppEnv> {
  return async function browserCorsMiddleware(c, next) {
    if (c.req.method === "OPTIONS") return new Response(null, { status: 204, headers: PREFLIGHT_HEADERS });
    await next();
    // A WebSocket handshake answer cannot be rebuilt, and needs no CORS.
    if (c.res.status === 101 || c.res.webSocket) return;
    // Our own answers take the headers as they are; one with immutable headers (from a Durable Object's
    // fetch) is copied first.
    try {
      setCorsHeaders(c.res.headers);
    } catch {
      const response = new Response(c.res.body, c.res);
      setCorsHeaders(response.headers);
      c.res = undefined;
      c.res = response;
    }
  };
}

function setCorsHeaders(headers: Headers): void {
  for (const [name, value] of Object.entries(CORS_HEADERS)) headers.set(name, value);
}
