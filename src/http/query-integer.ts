// A whole-number query parameter, written as digits only: `1e2`, `0x10`, ` 5` or `1.0` are refused, not
// read as numbers (the same strictness on every route that pages).
import { z } from "@hono/zod-openapi";

/** Up to 16 digits (the largest safe integer has 16); `min` and `max` bound the value. */
export const queryInteger = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,16}$/, `${name} must be a whole number`)
    .transform(Number)
    .pipe(z.number().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`));
