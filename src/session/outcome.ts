// What a session object's method answers: a status and body for the route to send, or a problem.
import type { Problem } from "../http/problem.ts";

export type Outcome<T> = { ok: true; status: number; body: T } | { ok: false; problem: Problem };

export function success<T>(body: T, status = 200): Outcome<T> {
  return { ok: true, status, body };
}

export function failure<T = never>(problem: Problem): Outcome<T> {
  return { ok: false, problem };
}
