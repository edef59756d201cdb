// Pieces every OpenAPI route description uses: JSON content, problem answers, the platform path parameter.
import { z } from "@hono/zod-openapi";
import { EmptyRequest, ProblemResponse } from "./schemas.ts";

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

export const admin = [{ AdminToken: [] }];
