// The served document and the routes are one list: every route the app serves is in /v1/openapi.json,
// every route the document describes is served, and every described path answers another method with
// 405 and exactly the methods the document gives it.

import { env } from "cloudflare:workers";
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { mountMethodNotAllowed, route, serve } from "../../src/http/route.ts";
import { ProblemError, problemResponse } from "../../src/problem.ts";
import { call } from "./helpers.ts";

/** Hono's method for middleware (`app.use`) and for the 405 answers (`app.all`): neither is a route. */
const NOT_A_ROUTE = "ALL";

interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
}

async function documented(): Promise<Map<string, string[]>> {
  const doc = await (await call("/v1/openapi.json")).json<OpenApiDocument>();
  return new Map(
    Object.entries(doc.paths).map(([path, operations]) => [
      path,
      Object.keys(operations).map((method) => method.toUpperCase()),
    ]),
  );
}

/** `METHOD /path/{name}` for each route the app serves, in OpenAPI's spelling of parameters. */
function served(): string[] {
  return createApp()
    .routes.filter((r) => r.method !== NOT_A_ROUTE)
    .map((r) => `${r.method} ${r.path.replaceAll(/:(\w+)/g, "{$1}")}`);
}

describe("the OpenAPI document and the routes", () => {
  it("describes every route the app serves, and the app serves every route it describes", async () => {
    const described = [...(await documented())].flatMap(([path, methods]) =>
      methods.map((method) => `${method} ${path}`),
    );
    expect(described.length).toBeGreaterThanOrEqual(25);
    expect(new Set(served())).toEqual(new Set(described));
    // Each route declared once: a second declaration of a method and path would shadow the first.
    const declared = createApp()
      .openAPIRegistry.definitions.flatMap((d) => (d.type === "route" ? [d.route] : []))
      .map((route) => `${route.method} ${route.path}`);
    expect(declared.length).toBe(new Set(declared).size);
  });

  it("answers any other method on a described path with 405 and the methods the document lists", async () => {
    for (const [path, methods] of await documented()) {
      const url = path.replaceAll(/\{\w+\}/g, "x");
      const res = await call(url, { method: "PATCH" });
      expect(res.status, `PATCH ${url}`).toBe(405);
      expect(res.headers.get("Content-Type")).toBe("application/problem+json");
      expect((await res.json<{ code: string }>()).code).toBe("method_not_allowed");
      expect(res.headers.get("Allow")?.split(", ").sort(), `Allow of ${path}`).toEqual([...methods].sort());
    }
  });
});

describe("a route a deployment may switch off", () => {
  function appWith(served: () => boolean) {
    const app = new OpenAPIHono<AppEnv>();
    const contract = createRoute({
      method: "post",
      path: "/switchable",
      responses: { 200: { description: "Served" } },
    });
    serve(
      app,
      route(contract, (c) => c.text("served"), { servedWhen: served }),
    );
    mountMethodNotAllowed(app);
    app.onError((error) => {
      if (error instanceof ProblemError) return problemResponse(error.problem);
      throw error;
    });
    return app;
  }

  it("answers every method with 404, as an unknown path, while it is off, and is described all the same", async () => {
    const app = appWith(() => false);
    for (const method of ["POST", "GET"]) {
      const res = await app.request("/switchable", { method }, env);
      expect(res.status, method).toBe(404);
      expect((await res.json<{ code: string }>()).code).toBe("not_found");
    }
    expect(
      app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } }).paths,
    ).toHaveProperty("/switchable");
  });

  it("is served, with its 405 for another method, while it is on", async () => {
    const app = appWith(() => true);
    expect(await (await app.request("/switchable", { method: "POST" }, env)).text()).toBe("served");
    const other = await app.request("/switchable", { method: "GET" }, env);
    expect(other.status).toBe(405);
    expect(other.headers.get("Allow")).toBe("POST");
  });
});
