// Turns a session object's outcome into the HTTP answer.
import { type Outcome, ProblemError } from "../problem.ts";

export function respond<T>(outcome: Outcome<T>, headers: Record<string, string> = {}): Response {
  if (!outcome.ok) throw new ProblemError(outcome.problem);
  return Response.json(outcome.body, { status: outcome.status, headers });
}
