// Public keys for token verification, and the documentation every problem's `type` URL points at.
import { createRoute, z } from "@hono/zod-openapi";
import { PROBLEM_CODES, type ProblemCode } from "../../../sdk/src/protocol.ts";
import { getJwks } from "../../auth/jwks.ts";
import { PROBLEMS, ProblemError, problem } from "../../problem.ts";
import { type App, errors, json, route, serve } from "../route.ts";
import { JwksResponse } from "../schemas.ts";

export function mountMetaRoutes(app: App): void {
  serve(app, jwksRoute, problemTypesRoute, problemTypeRoute);
}

const jwksRoute = route(
  createRoute({
    method: "get",
    path: "/.well-known/jwks.json",
    tags: ["Meta"],
    summary: "Public keys that verify session tokens",
    responses: { 200: { description: "JWKS", content: json(JwksResponse) } },
  }),
  async (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(await getJwks(c.env));
  },
);

const html = { "text/html": { schema: z.string() } };

// RFC 9457: a problem's `type` is a URL a developer can open to read what it means.
const problemTypesRoute = route(
  createRoute({
    method: "get",
    path: "/errors",
    tags: ["Meta"],
    summary: "Every problem type of the service: code, status and title (HTML)",
    responses: { 200: { description: "The table of problem types", content: html } },
  }),
  (c) => c.html(errorsPage(PROBLEM_CODES)),
);

const problemTypeRoute = route(
  createRoute({
    method: "get",
    path: "/errors/{code}",
    tags: ["Meta"],
    summary: "One problem type: where a problem's `type` URL points (HTML)",
    request: { params: z.object({ code: z.string().openapi({ param: { name: "code", in: "path" } }) }) },
    responses: { 200: { description: "The problem type", content: html }, ...errors(404) },
  }),
  (c) => {
    const code = c.req.param("code");
    if (!isProblemCode(code)) throw new ProblemError(problem("not_found", "No such problem code."));
    return c.html(errorsPage([code]));
  },
);

function isProblemCode(code: string): code is ProblemCode {
  return Object.hasOwn(PROBLEMS, code);
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"]/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch] ?? ch,
  );
}

function errorsPage(codes: readonly ProblemCode[]): string {
  const rows = codes
    .map((code) => {
      const { status, title } = PROBLEMS[code];
      return `<tr id="${code}"><td><code>${code}</code></td><td>${status}</td><td>${escapeHtml(title)}</td></tr>`;
    })
    .join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Problem types</title></head><body><h1>Problem types of the SOS service</h1><p>Every error answer is <code>application/problem+json</code> (RFC 9457) with one of these codes; see <a href="/v1/openapi.json">the OpenAPI document</a>.</p><table><thead><tr><th>code</th><th>status</th><th>title</th></tr></thead><tbody>${rows}</tbody></table></body></html>`;
}
