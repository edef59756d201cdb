// The OpenAPI 3.1 document at /v1/openapi.json: every route's contract as `serve` registered it (each
// declared once, beside its handler, in routes/), the credentials they name, and this route itself.
import { createRoute, z } from "@hono/zod-openapi";
import packageJson from "../../package.json";
import { type App, json, route, SECURITY_SCHEMES, serve } from "./route.ts";

const DOCUMENT = {
  openapi: "3.1.0",
  info: {
    title: "Emergency-session (SOS) service",
    version: packageJson.version,
    description:
      "Finds the nearest 911 PSAPs for a telehealth patient and delivers them to patient and counselor.",
  },
};

/** Registers the credentials and serves the document (built at each request from the registry: always whole). */
export function mountOpenApi(app: App): void {
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) {
    app.openAPIRegistry.registerComponent("securitySchemes", name, scheme);
  }
  serve(
    app,
    route(
      createRoute({
        method: "get",
        path: "/v1/openapi.json",
        tags: ["Meta"],
        summary: "This document: every route, its credentials, bodies and answers, and the webhook events",
        responses: {
          200: { description: "OpenAPI 3.1", content: json(z.record(z.string(), z.unknown())) },
        },
      }),
      (c) => c.json(app.getOpenAPI31Document(DOCUMENT)),
    ),
  );
}
