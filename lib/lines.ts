// The order of a centre's lines, one rule for the import, the lookup and the admin routes: most urgent kind
// first (emergency, dispatch, administrative); within a kind an operator's line before the directory's;
// one line per number (its most urgent reading wins); at most CONTACT_LIMITS.maxLinesPerPsap.
import { PHONE_KINDS, type PsapLine } from "../sdk/src/protocol.ts";
import { CONTACT_LIMITS } from "./config.ts";

const ORIGIN_RANK = { operator: 0, directory: 1 } as const;

function compareLines(a: PsapLine, b: PsapLine): number {
  return (
    PHONE_KINDS.indexOf(a.kind) - PHONE_KINDS.indexOf(b.kind) ||
    ORIGIN_RANK[a.origin] - ORIGIN_RANK[b.origin] ||
    // Newer reading first, so that the shown date is the freshest one for the same kind.
    b.checked_on.localeCompare(a.checked_on)
  );
}

/** The lines as a record lists them (a new array; the inputs are not changed). */
export function orderLines(lines: readonly PsapLine[]): PsapLine[] {
  const seen = new Set<string>();
  const out: PsapLine[] = [];
  for (const line of [...lines].sort(compareLines)) {
    if (seen.has(line.phone)) continue;
    seen.add(line.phone);
    out.push(line);
    if (out.length === CONTACT_LIMITS.maxLinesPerPsap) break;
  }
  return out;
}

/** True for a line answered around the clock (the only kind LoST routes to and a call action dials). */
export function isAroundTheClock(line: Pick<PsapLine, "kind">): boolean {
  return line.kind === "emergency" || line.kind === "dispatch";
}

/** A record's `phone` and `phone_kind`: those of its best line, or null. */
export function bestOf(lines: readonly PsapLine[]): {
  phone: string | null;
  phone_kind: PsapLine["kind"] | null;
} {
  const best = lines[0];
  return best ? { phone: best.phone, phone_kind: best.kind } : { phone: null, phone_kind: null };
}

/** Whether a line was last read more than CONTACT_LIMITS.staleAfterDays before `now`. */
export function isStale(line: Pick<PsapLine, "checked_on">, now: Date): boolean {
  const read = Date.parse(`${line.checked_on}T00:00:00Z`);
  if (Number.isNaN(read)) return true;
  // Whole days, from the day it was read to today (UTC): the time of day of the question changes nothing.
  const today = Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
  return (today - read) / 86_400_000 > CONTACT_LIMITS.staleAfterDays;
}
