// The Hono app: every route, problem+json for every error (unknown routes and methods included), never a stack trace.
import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { errorSummary } from "../error-name.ts";
import { type Problem, ProblemError, problem, problemResponse, setProblemTypeBase } from "../problem.ts";
import type { AppEnv } from "./context.ts";
import { mountOpenApi, ROUTES } from "./openapi.ts";
import { mountAdminRoutes } from "./routes/admin.ts";
import { mountAdminPsapRoutes } from "./routes/admin-psaps.ts";
import { mountBrowserRoutes } from "./routes/browser.ts";
import { mountMetaRoutes } from "./routes/meta.ts";
import { mountPlatformRoutes } from "./routes/platform.ts";
import { mountSocketRoute } from "./routes/socket.ts";
import { mountWebhookRoutes } from "./routes/webhooks.ts";

export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use(async function problemTypes(c, next) {
    setProblemTypeBase(c.env.PROBLEM_TYPE_BASE);
    await next();
  });
  mountBrowserRoutes(app);
  mountSocketRoute(app);
  mountAdminRoutes(app);
  mountAdminPsapRoutes(app);
  mountPlatformRoutes(app);
  mountWebhookRoutes(app);
  mountMetaRoutes(app);
  mountOpenApi(app);
  mountMethodNotAllowed(app);

  app.notFound(() => problemResponse(problem("not_found", "No such route.")));
  app.onError((error) => problemResponse(problemOf(error)));
  return app;
}

/** A known path with another method: 405 with the methods it has. */
function mountMethodNotAllowed(app: OpenAPIHono<AppEnv>): void {
  const methodsByPath = new Map<string, Set<string>>();
  for (const route of [...ROUTES, { path: "/v1/openapi.json", method: "get" }]) {
    const path = route.path.replaceAll(/\{(\w+)\}/g, ":$1");
    const methods = methodsByPath.get(path) ?? new Set<string>();
    methods.add(route.method.toUpperCase());
    methodsByPath.set(path, methods);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = [...methods].join(", ");
    app.all(path, () =>
      problemResponse(problem("method_not_allowed", `Use ${allow} on this route.`), { Allow: allow }),
    );
  }
}

function problemOf(error: unknown): Problem {
  if (error instanceof ProblemError) return error.problem;
  if (error instanceof HTTPException && error.status < 500) {
    return problem("invalid_request", error.message || "The request is invalid.");
  }
  // Log the kind of failure only: request bodies (which may hold coordinates) never reach a log line.
  console.error(`unhandled error: ${errorSummary(error)}`);
  return problem("internal_error", "Something went wrong on our side. The request can be retried.");
}
