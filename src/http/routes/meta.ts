// Public keys for token verification, and the documentation every problem's `type` URL points at.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { getJwks } from "../../auth/jwks.ts";
import { PROBLEMS, type ProblemCode, ProblemError, problem } from "../../problem.ts";
import type { AppEnv } from "../context.ts";

export function mountMetaRoutes(app: OpenAPIHono<AppEnv>): void {
  app.get("/.well-known/jwks.json", async (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(await getJwks(c.env));
  });

  // RFC 9457: a problem's `type` is a URL a developer can open to read what it means.
  app.get("/errors", (c) => c.html(errorsPage(Object.keys(PROBLEMS) as ProblemCode[])));
  app.get("/errors/:code", (c) => {
    const code = c.req.param("code");
    if (!Object.hasOwn(PROBLEMS, code)) throw new ProblemError(problem("not_found", "No such problem code."));
    return c.html(errorsPage([code as ProblemCode]));
  });
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
