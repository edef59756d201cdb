// The platform an admin path names: its id, or 404 (checked before the body, in the contract's order).
import type { Context } from "hono";
import { platformExists } from "../auth/platforms.ts";
import { ProblemError, problem } from "../problem.ts";
import type { AppEnv } from "./context.ts";

/** The path's platform, or 404. */
export async function knownPlatform(c: Context<AppEnv>): Promise<string> {
  const platformId = c.req.param("platformId") ?? "";
  if (platformId.length === 0 || platformId.length > 64 || !(await platformExists(c.env.DB, platformId))) {
    throw noSuchPlatform();
  }
  return platformId;
}

export function noSuchPlatform(): ProblemError {
  return new ProblemError(problem("not_found", "No such platform."));
}
