// How a route is declared: its contract (`createRoute`) and its handler, side by side in one `route()`
// in the feature's file under routes/; `serve` puts the contract in the OpenAPI document and the handler
// on the app. The document, the 405s and what is served are one list: the registry `serve` fills.
//
// The contract describes; it does not validate. @hono/zod-openapi's validators would answer before the
// handler could check what comes first, so each handler reads its input itself (body.ts) and the
// contract's order of checks holds: 413, 415, 400, then the session object's 404 and 410 (docs/contract.md, section 7).
import { type OpenAPIHono, type RouteConfig, z } from "@hono/zod-openapi";
import type { Handler } from "hono";
import type { Env } from "../env.ts";
import { type Problem, ProblemError, problem, problemResponse } from "../problem.ts";
import type { AppEnv } from "./context.ts";
import { EmptyRequest, ProblemResponse } from "./schemas.ts";

export type App = OpenAPIHono<AppEnv>;

/** A contract as `createRoute` returns it: the OpenAPI path (`{id}`) and the app's (`:id`). */
type Contract = RouteConfig & { getRoutingPath(): string };

export interface RouteOptions {
  /**
   * Whether the deployment serves the route (a setting such as `LOST_ENABLED`): where it does not, every
   * method on its path answers 404 as an unknown path does. The document describes it either way.
   */
  servedWhen?: (env: Env) => boolean;
}

/** A contract with its handler, ready to be served. */
export interface DeclaredRoute {
  readonly contract: Contract;
  /** Puts the contract in the document and the handler on the app. */
  readonly mountOn: (app: App) => void;
}

/**
 * Pairs a contract with its handler, which runs after the contract's `middleware` (its credential
 * check); the handler's `c.req.param()` knows the path's names.
 */
export function route<R extends Contract>(
  contract: R,
  handler: Handler<AppEnv, ReturnType<R["getRoutingPath"]>>,
  options: RouteOptions = {},
): DeclaredRoute {
  const { middleware, hide: _describedAnyway, ...described } = contract;
  const guards = middleware === undefined ? [] : Array.isArray(middleware) ? middleware : [middleware];
  const { servedWhen } = options;
  return {
    contract,
    mountOn(app) {
      app.openAPIRegistry.registerPath(described);
      // Before the route and before its 405s: a route that is off is no route at all.
      if (servedWhen) {
        app.use(contract.getRoutingPath(), async (c, next) => {
          if (!servedWhen(c.env)) throw new ProblemError(noSuchRoute());
          await next();
        });
      }
      app.on(contract.method.toUpperCase(), [contract.getRoutingPath()], ...guards, handler);
    },
  };
}

/** Serves the routes in this order (the order matters where one path could read as another's parameter). */
export function serve(app: App, ...routes: readonly DeclaredRoute[]): void {
  for (const declared of routes) declared.mountOn(app);
}

/** What an unknown path (or a route that is off) answers. */
export function noSuchRoute(): Problem {
  return problem("not_found", "No such route.");
}

/** A known path with another method: 405 with the methods the document gives it, from the same registry. */
export function mountMethodNotAllowed(app: App): void {
  const methodsByPath = new Map<string, string[]>();
  for (const definition of app.openAPIRegistry.definitions) {
    if (definition.type !== "route") continue;
    const path = definition.route.path.replaceAll(/\{(\w+)\}/g, ":$1");
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), definition.route.method.toUpperCase()]);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = methods.join(", ");
    app.all(path, () =>
      problemResponse(problem("method_not_allowed", `Use ${allow} on this route.`), { Allow: allow }),
    );
  }
}

// ---------------------------------------------------------------------------
// Pieces every contract uses.

export const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

export const problemContent = { "application/problem+json": { schema: ProblemResponse } };

/** A route that takes no body: nothing, or `{}` (anything else is refused: 400, 413, 415). */
export const noBody = { content: json(EmptyRequest), required: false };

/** A problem+json answer for each status. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [status, { description: "Problem details", content: problemContent }]),
  );

export const platformId = z
  .string()
  .openapi({ param: { name: "platformId", in: "path" }, example: "plt_x1y2z3" });
export const platformParams = z.object({ platformId });
export const sessionParams = z.object({
  platformId,
  sessionId: z.uuid().openapi({ param: { name: "sessionId", in: "path" } }),
});

/** The credentials a route can ask for, as the document names them (openapi.ts registers each). */
export const SECURITY_SCHEMES = {
  AdminToken: { type: "http", scheme: "bearer" },
  ApiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
  /** LoST only: HTTP Basic with the platform id as the user and its API key as the password. */
  LostBasic: { type: "http", scheme: "basic" },
  CounselorToken: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
  PatientToken: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
} as const;

/** A contract's `security`: the one credential it asks for. */
export const needs = (scheme: keyof typeof SECURITY_SCHEMES) => [{ [scheme]: [] }];
