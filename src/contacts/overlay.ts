// Lookups show the operator's line (admin API, kept in D1) beside the lines the import stored, read through
// an isolate cache of CONTACT_LIMITS.cacheMs. A cache older than that is never served while a read can
// succeed: the lookup waits for the fresh copy, so a corrected or deleted number reaches the next counselor
// within the 60 s the contract allows, even on a server that was quiet for longer. Only when D1 cannot be
// read is a copy served that is younger than CONTACT_LIMITS.changeVisibleWithinMs (a failure of ours must not drop a number that is
// right); older than that, the imported lines alone are served and the next lookup tries again.

import { CONTACT_LIMITS } from "../../lib/config.ts";
import { bestOf, orderLines } from "../../lib/lines.ts";
import type { PhoneKind, PsapLine, PsapRecord } from "../../sdk/src/protocol.ts";
import { errorName } from "../error-name.ts";

export type ContactNumbers = ReadonlyMap<string, PsapLine>;

/** An operator's contact as D1 keeps it. */
export interface OperatorContact {
  psap_id: string;
  phone: string;
  phone_kind: PhoneKind;
  source: string;
  updated_at: string;
}

/** Where the current numbers come from: a D1 database, or anything that lists them (tests). */
export interface ContactSource {
  list(): Promise<OperatorContact[]>;
}

/** What an operator's line is called, by its kind (the admin API takes no label). */
const OPERATOR_LABELS: Readonly<Record<PhoneKind, string>> = {
  emergency: "Emergency line: rings the 911 floor",
  dispatch: "Answered by dispatch 24/7",
  administrative: "Business line",
};

/** The line an operator's contact gives. */
export function operatorLine(contact: OperatorContact): PsapLine {
  return {
    phone: contact.phone,
    kind: contact.phone_kind,
    label: OPERATOR_LABELS[contact.phone_kind],
    source: contact.source,
    checked_on: contact.updated_at.slice(0, 10),
    origin: "operator",
  };
}

interface Cached {
  numbers: ContactNumbers;
  readAt: number;
}

let cached: Cached | null = null;
let refreshing: Promise<ContactNumbers> | null = null;

async function refresh(source: ContactSource): Promise<ContactNumbers> {
  const rows = await source.list();
  const numbers = new Map(rows.map((r) => [r.psap_id, operatorLine(r)]));
  cached = { numbers, readAt: Date.now() };
  return numbers;
}

/**
 * The current operator lines: the cached copy while it is younger than CONTACT_LIMITS.cacheMs, else a
 * fresh read (one at a time per isolate). An unreadable D1 gives the last copy if it is recent enough,
 * else none.
 */
export function currentContacts(source: ContactSource): ContactNumbers | Promise<ContactNumbers> {
  const now = Date.now();
  if (cached && now - cached.readAt < CONTACT_LIMITS.cacheMs) return cached.numbers;
  if (!refreshing) {
    refreshing = refresh(source).finally(() => {
      refreshing = null;
    });
  }
  const last = cached;
  return refreshing.catch((error: unknown) => {
    // A copy is served only while D1 fails, and only within the 60 s the contract gives a change.
    const usable = last && Date.now() - last.readAt < CONTACT_LIMITS.changeVisibleWithinMs;
    console.error(
      `contact directory unreadable (${usable ? "serving the copy read moments ago" : "serving imported lines only"}): ${errorName(error)}`,
    );
    return usable ? last.numbers : new Map();
  });
}

/** Forgets the cached numbers (tests). */
export function resetContactCache(): void {
  cached = null;
  refreshing = null;
}

/** The records with the operator's line among their lines wherever one is set. */
export function withContacts<T extends Pick<PsapRecord, "id" | "phone" | "phone_kind" | "lines">>(
  records: readonly T[],
  numbers: ContactNumbers,
): T[] {
  return records.map((r) => {
    const line = numbers.get(r.id);
    if (!line) return r;
    const lines = orderLines([line, ...r.lines]);
    return { ...r, lines, ...bestOf(lines) };
  });
}
