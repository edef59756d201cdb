// Every PSAP classified (by a named rule of jurisdiction.ts or an override row with its reason) and linked
// to the counties, municipality and places its registry texts name (link.ts).
import type { PsapJurisdiction } from "../../sdk/src/protocol.ts";
import type { CountyMatcher } from "./counties.ts";
import type { Drafts } from "./drafts.ts";
import { type Classification, classifyPsap } from "./jurisdiction.ts";
import { linkPsap, nearCounties, type PsapLinks } from "./link.ts";
import type { PlaceIndex } from "./places.ts";

/** The rule name every override row is counted under. */
export const OVERRIDE_RULE = "operator override";

export interface Classified {
  classified: Map<string, Classification>;
  links: Map<string, PsapLinks>;
  /** How many PSAPs each rule decided. */
  rules: Record<string, number>;
  /** Registry county texts that match no Census county, with how many PSAPs name each. */
  unmatched: Map<string, { state: string; county: string; psaps: number }>;
}

export function isTribalRule(rule: string): boolean {
  return rule.startsWith("tribal");
}

export function classifyAndLink(
  { drafts, overrides, geocodeOf }: Pick<Drafts, "drafts" | "overrides" | "geocodeOf">,
  countyMatcher: CountyMatcher,
  places: PlaceIndex,
): Classified {
  const classified = new Map<string, Classification>();
  const links = new Map<string, PsapLinks>();
  const unmatched = new Map<string, { state: string; county: string; psaps: number }>();
  const rules: Record<string, number> = {};
  for (const d of drafts.values()) {
    const counties = d.county ? countyMatcher.match(d.state, d.county).counties : [];
    const byRule = classifyPsap(
      d.name,
      d.state,
      d.city ?? "",
      d.county ?? "",
      {
        isPlaceName: (text) => places.byName(d.state, text).some((pl) => pl.incorporated),
        isLocalMunicipality: (text) =>
          places
            .byExactName(d.state, text)
            .some(
              (pl) =>
                pl.incorporated &&
                (counties.length === 0 || nearCounties(counties, pl.interior[1], pl.interior[0])),
            ),
      },
      counties.map((k) => k.name),
    );
    const o = overrides.get(d.id);
    const final: Classification = o?.jurisdiction
      ? { jurisdiction: o.jurisdiction, rule: OVERRIDE_RULE, unclassified: false }
      : byRule;
    classified.set(d.id, final);
    rules[final.rule] = (rules[final.rule] ?? 0) + 1;
    const geocode = geocodeOf.get(d.id);
    const l = linkPsap(
      {
        name: d.name,
        state: d.state,
        county: d.county ?? "",
        city: d.city ?? "",
        municipal: final.jurisdiction === "municipal",
        tribal: isTribalRule(final.rule),
        cityGeocode: geocode ? [geocode.longitude, geocode.latitude] : null,
      },
      countyMatcher,
      places,
    );
    links.set(d.id, l);
    for (const part of l.unmatchedCounties) {
      const key = `${d.state}:${part}`;
      const u = unmatched.get(key) ?? { state: d.state, county: part, psaps: 0 };
      u.psaps++;
      unmatched.set(key, u);
    }
  }
  return { classified, links, rules, unmatched };
}

/** A later rule that settles a PSAP's jurisdiction: its classification and the count of each rule follow. */
export function reclassify(
  c: Classified,
  psap: { id: string; jurisdiction: PsapJurisdiction },
  jurisdiction: PsapJurisdiction,
  rule: string,
): void {
  const before = c.classified.get(psap.id) as Classification;
  c.rules[before.rule] = (c.rules[before.rule] ?? 1) - 1;
  c.rules[rule] = (c.rules[rule] ?? 0) + 1;
  psap.jurisdiction = jurisdiction;
  c.classified.set(psap.id, { jurisdiction, rule, unclassified: false });
}
