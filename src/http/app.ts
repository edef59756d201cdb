// The Hono app: every route, problem+json for every error (unknown routes and methods included), never a stack trace.
import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { errorSummary } from "../error-name.ts";
import { type Problem, ProblemError, problem, problemResponse, setProblemTypeBase } from "../problem.ts";
import type { AppEnv } from "./context.ts";
import { mountOpenApi } from "./openapi.ts";
import { type App, mountMethodNotAllowed, noSuchRoute } from "./route.ts";
import { mountAdminRoutes } from "./routes/admin.ts";
import { mountAdminPsapRoutes } from "./routes/admin-psaps.ts";
import { mountBrowserRoutes } from "./routes/browser.ts";
import { mountDocsRoute } from "./routes/docs.ts";
import { mountHeldRoutes } from "./routes/held.ts";
import { mountLostRoutes } from "./routes/lost.ts";
import { mountMetaRoutes } from "./routes/meta.ts";
import { mountPlatformRoutes } from "./routes/platform.ts";
import { mountSocketRoute } from "./routes/socket.ts";
import { mountWebhookRoutes } from "./routes/webhooks.ts";

export function createApp(): App {
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
  mountLostRoutes(app);
  mountHeldRoutes(app);
  mountMetaRoutes(app);
  mountOpenApi(app);
  mountDocsRoute(app);
  // Last: only a path no route above answered for this method reaches it.
  mountMethodNotAllowed(app);

  app.notFound(() => problemResponse(noSuchRoute()));
  app.onError((error) => problemResponse(problemOf(error)));
  return app;
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
