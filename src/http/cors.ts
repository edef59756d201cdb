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
    // Answers from a Durable Object have immutable headers: copy before adding.
    const response = new Response(c.res.body, c.res);
    for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
    c.res = undefined;
    c.res = response;
  };
}
