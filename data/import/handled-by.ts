// The registry's own links: a secondary's comment often names the primary that takes its calls
// ("PSAP is either a Duplicate or a Secondary PSAP. Calls are handled by PSAP #2095").

/** The PSAP id a comment names as the one that handles the calls, if any. */
export function handledByInComment(comment: string): string | null {
  const m =
    /handled by (?:the )?(?:primary )?psap\s*(?:#|no\.?|number)?\s*(\d{1,9})\b/i.exec(comment) ??
    /use (?:the )?primary psap\s*#?\s*(\d{1,9})\b/i.exec(comment);
  return m?.[1] ?? null;
}

export interface HandledByLink {
  /** The primary that answers for the secondary, after following chains; null when none is current. */
  primary: string | null;
  /** Why a named link was not kept, for the report. */
  problem?: string;
}

/**
 * Resolves every secondary's named link to a current primary: a link to another secondary is
 * followed (that one's primary answers), a link to an orphaned or unknown PSAP is dropped.
 */
export function resolveHandledBy(
  psaps: ReadonlyMap<string, { type: "primary" | "secondary"; named: string | null }>,
): Map<string, HandledByLink> {
  const out = new Map<string, HandledByLink>();
  for (const [id, p] of psaps) {
    if (p.type !== "secondary" || p.named === null) continue;
    const seen = new Set([id]);
    let target: string | null = p.named;
    let problem: string | undefined;
    while (target !== null) {
      const t = psaps.get(target);
      if (!t) {
        problem = `names PSAP #${target}, which is not in the current registry`;
        target = null;
        break;
      }
      if (t.type === "primary") break;
      if (seen.has(target) || t.named === null) {
        problem = `names PSAP #${p.named}, a secondary with no primary of its own`;
        target = null;
        break;
      }
      seen.add(target);
      target = t.named;
    }
    out.set(id, problem ? { primary: null, problem } : { primary: target });
  }
  return out;
}
