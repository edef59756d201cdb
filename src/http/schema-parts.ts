// The pieces every schema file is built of: how a time is written, and a whole number read from a query.
import { z } from "@hono/zod-openapi";

/** Every time on the wire: ISO 8601 in UTC with milliseconds, as `Date.prototype.toISOString` writes it. */
export const isoTimestamp = z.string().openapi({ format: "date-time", example: "2026-11-22T15:00:00.000Z" });

/**
 * A whole-number query parameter, written as digits only: `1e2`, `0x10`, ` 5` or `1.0` are refused, not
 * read as numbers (the same strictness on every route that pages). Up to 16 digits (the largest safe
 * integer has 16); `min` and `max` bound the value.
 */
export const queryInteger = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,16}$/, `${name} must be a whole number`)
    .transform(Number)
    .pipe(z.number().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`));
