// Zod schemas of the LoST routes' JSON (the LoST exchange itself is XML: src/lost/).
import { z } from "@hono/zod-openapi";
import type { LostUsageDay } from "../lost/usage-object.ts";

const LostUsageDaySchema = z.object({
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .openapi({ description: "UTC day", example: "2026-11-27" }),
  queries: z.number().int().nonnegative(),
}) satisfies z.ZodType<LostUsageDay>;

export const LostUsageResponse = z
  .object({
    platform_id: z.string(),
    days: z
      .array(LostUsageDaySchema)
      .openapi({ description: "Newest first; days without a query are absent" }),
  })
  .openapi("LostUsageResponse");
