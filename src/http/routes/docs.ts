// GET /docs: the API reference, Swagger UI rendering /v1/openapi.json in the reader's browser. Every script
// and style comes from this service (public/docs/, the Swagger UI files copied there by `npm run build:sdk`),
// never a CDN: a deployment may not reach one, and the page's policy below allows none.
import { createRoute, z } from "@hono/zod-openapi";
import { type App, route, serve } from "../route.ts";

/** Where the page's files are served from (public/docs/; swagger-ui/ is written by the build). */
export const DOCS_ASSETS = {
  script: "/docs/swagger-ui/swagger-ui-bundle.js",
  style: "/docs/swagger-ui/swagger-ui.css",
  start: "/docs/reference.js",
  overrides: "/docs/reference.css",
} as const;

/**
 * Only this origin, for scripts, styles, the document and images. Inline styles are allowed: Swagger UI's
 * React components set `style` attributes; no inline script runs (the page starts from reference.js).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export function mountDocsRoute(app: App): void {
  serve(app, docsRoute);
}

const docsRoute = route(
  createRoute({
    method: "get",
    path: "/docs",
    tags: ["Meta"],
    summary: "This API reference (HTML): every route of /v1/openapi.json, rendered by Swagger UI",
    responses: {
      200: { description: "The reference page", content: { "text/html": { schema: z.string() } } },
    },
  }),
  (c) => {
    c.header("Content-Security-Policy", DOCS_CSP);
    c.header("X-Content-Type-Options", "nosniff");
    return c.html(PAGE);
  },
);

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference: emergency-session (SOS) service</title>
<link rel="stylesheet" href="${DOCS_ASSETS.style}">
<link rel="stylesheet" href="${DOCS_ASSETS.overrides}">
</head>
<body>
<main id="reference" data-openapi="/v1/openapi.json">
<h1>API reference: emergency-session (SOS) service</h1>
<p>Loading the reference from <a href="/v1/openapi.json">the OpenAPI document</a>; it needs JavaScript.</p>
</main>
<script src="${DOCS_ASSETS.script}"></script>
<script src="${DOCS_ASSETS.start}"></script>
</body>
</html>
`;
