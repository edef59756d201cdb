// What a PSAP serves, read from its registry name: one city or town, a county, several of them, a whole
// state, or a special site (campus, airport, base, highway patrol, port, transit, fire/EMS only, backup).
// The rules are ordered: the first that matches decides, and its name is kept for the import report.
import type { PsapJurisdiction } from "../../sdk/src/protocol.ts";
import { STATE_NAMES } from "./states.ts";

export interface Classification {
  jurisdiction: PsapJurisdiction;
  /** The rule that decided, for the report ("fire/EMS only", "sheriff", "unclassified", ...). */
  rule: string;
  /** No rule recognised the name: the default applies and the report lists it. */
  unclassified: boolean;
}

const BACKUP = /\b(back[\s-]?up|alternate|alt\.? psap|training|test psap|disaster recovery|coop site)\b/i;
// "... Communications and Training Center", "... and Mutual Aid": a second duty after the name's head, not
// what the centre is.
const SECOND_DUTY = /\s+(and|&)\s+(training|mutual aid)\b.*$/i;
// A county's 911 administration office ("Hillsborough County 9-1-1 Administration") runs the system; the
// sheriff or the county's communications centre registered beside it takes the calls.
const ADMINISTRATION = /\b(e?9[\s-]?1[\s-]?1|e-911)\s+(administration|admin|program office)\b/i;
const STATEWIDE =
  /\b(e[\s-]?9[\s-]?1[\s-]?1|9[\s-]?1[\s-]?1|emergency telephone|emergency communications|division of emergency)/i;
const LAW_WORDS = /\b(police|patrol|trooper|troop|highway|dps|university|college|port|airport)\b/i;
const STATE_LAW =
  /\b(highway patrol|state police|state patrol|state trooper|troop [a-z0-9]\b|(chp|thp|fhp|mhp|ohp|nhp|ghp|khp|shp|whp|ihp|nchp|schp|wvsp|ksp|isp|psp|nysp|msp|csp|vsp|dsp|osp|wsp)\b|dps\b|department of public safety|turnpike)/i;
const ARMY_POSTS =
  /\b(fort|ft\.?)\s+(bragg|liberty|hood|cavazos|campbell|carson|drum|leonard wood|riley|sill|stewart|polk|johnson|knox|benning|moore|gordon|eisenhower|rucker|novosel|huachuca|bliss|irwin|lee|gregg-adams|meade|eustis|belvoir|jackson|wainwright|greely|leavenworth|detrick|hamilton|mccoy|dix|lewis|story|walker|barfoot|buchanan|shafter|hunter liggett|indiantown gap)\b/i;
const MILITARY =
  /\b(us navy|u\.s\. navy|navy|army|air force|afb|air force base|nas|naval|marine corps|marines|mcas|mcb|military|national guard|joint base|arsenal|proving ground|coast guard|ldc|jrb|air reserve|air national|ang|angb|air guard|(fighter|airlift|air|refueling|flying training|space|bomb|mission support|air mobility) wing|army depot|base defense|bdoc|presidio|missile range|missile defense|hunter ligget|hunter liggett|usma|directorate of emergency services)\b/i;
// University systems are often registered by their initials: "UW-Milwaukee", "Unc-chapel Hill", "Uconn".
const CAMPUS =
  /\b(university|univ|college|campus|school|schools|isd|c\s?s\s?u|uc|uw|unc|uconn|umass|unlv|ucla|institute|academy|seminary|polytechnic|tech)\b/i;
const TRANSPORT =
  /\b(airport|airports|aviation|airfield|a\/p authority|port of|port authority|port police|seaport|harbor|harbour|transit|transportation|mta|bart|patco|drpa|amtrak|railroad|railway|rail|turnpike|toll|bridge|tunnel|lax)\b/i;
const OTHER_SPECIAL =
  /\b(park police|park ranger|rangers|national parks?|forest service|game warden|wildlife|capitol police|veterans|va medical|hospital|medical center|casino|nuclear|department of energy|federal|fbi|border patrol|secret service|zoo|pentagon|health system|health|nps|nra|interagency|lifeguard|lifeguards)\b/i;
// "Mutual aid" alone is no fire-only mark: a county mutual-aid centre can answer every 911 call of its towns.
const FIRE_EMS = /\b(fire|ems|ambulance|rescue squad|amr|gmr|medical|paramedic|esd|medcom)\b/i;
const NOT_ONLY_FIRE = /\b(police|sheriff|sheriffs|sheriff's|public safety|9[\s-]?1[\s-]?1|e911|e-911)\b/i;
// "Indian" alone is no tribe ("Indian River County Sheriffs Office", "Indian Harbour Beach Police"), nor
// "Pueblo" alone ("Pueblo Police Department" is Pueblo, Colorado's): "Pueblo Of Laguna", "Isleta Pueblo".
const TRIBAL =
  /\b(tribal|tribe|tribes|nation|pueblo of|[a-z]+ pueblo|reservation|indian (community|colony|nation|reservation|tribe|tribal|police)|band of|rancheria|bia|bureau of indian affairs)\b/i;
// A direction names a region ("North Texas Emergency Communications", "Southland Dispatch", "Eastside
// Communications"), a word that merely starts like one names a town ("Weston", "Westerville", "Southbury").
const REGIONAL =
  /\b(regional|region|consolidated|central dispatch|combined|joint|authority|council of governments|cog|tri[\s-]?(county|city|cities|state|com)|bi[\s-]?county|multi[\s-]?county|metro|metropolitan|inter[\s-]?city|intercity|area communications|area 9[\s-]?1[\s-]?1|area e9[\s-]?1[\s-]?1|((north|south|east|west)(ern|east|west|eastern|western|land|side)?|central)\s+(\w+\s+)?(communications|dispatch|emergency)|[a-z]*comm?(911)?|[a-z]+com\s+(east|west|north|south))\b/i;
// A centre named for a region rather than a municipality or county ("Willamette Valley Communications
// Center", "Central Utah 911", "Eastern Shore Va 9-1-1", "South Sound 911"): what it names is the region.
const REGION_NAME =
  /^((north|south|east|west)(ern|east|west)?|central|mid|upper|lower|great|greater)\b|\b(valley|shore|plains|rivers|sound|coast|lakes|mountains?|basin|delta)\b/i;
const COUNTY_WORDS = /\b(county|counties|parish|sheriff|sheriffs|sheriff's|census area|cnty)\b/i;
const NEW_ENGLAND = new Set(["CT", "MA", "ME", "NH", "RI", "VT"]);
/** States whose counties have no government of their own: a centre named for one serves the towns that joined it. */
const NO_COUNTY_GOVERNMENT = new Set(["CT", "MA", "RI"]);
/** Words after a municipality's name that make its centre a regional one ("Brookfield Regional Dispatch"). */
const HOSTS_REGION =
  /\b(regional|region|consolidated|joint|authority|district|metro|metropolitan|combined|area|zone)\b/i;
const POLICE = /\b(police|pd|public safety|marshal|marshals|constable)\b/i;
const MUNICIPAL = /\b(city of|town of|village of|borough of|township|city|town|village)\b/i;

const ROLE_WORDS =
  /\b(police|pd|fire|rescue|ems|sheriff's|sheriffs|sheriff|office|department|dept|division|emergency|communications?|comm|center|centre|dispatch|9[\s-]?1[\s-]?1|e9[\s-]?1[\s-]?1|e-?911|psap|public|safety|services?|management|operations|eoc|oem|ecc|system|telephone|board|etsb|and|of|the|city|town|village|county|counties|parish|borough|regional|central|consolidated|joint|authority|agency|council|governments|inc|llc|partnership|area|unified|co|emerg|mgt|civil|def|detention|addressing|zone|command|data|station|trust|enhanced|[a-z]{2}(?=\s*$))\b\.?/gi;

/** The distinct proper names a PSAP name lists ("Saline/Gallatin County 911" -> saline, gallatin). */
export function namedSegments(name: string): string[] {
  const bases = name
    .replace(/\([^)]*\)/g, " ")
    .split(/\s*(?:\/|&|,|\band\b)\s*/i)
    .map((seg) =>
      seg
        .replace(ROLE_WORDS, " ")
        .replace(/[^a-z0-9' ]/gi, " ")
        .replace(/\s+/g, " ")
        .trim()
        .toLowerCase(),
    )
    .filter((b) => b.length > 1);
  return [...new Set(bases)];
}

function plain(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9 ]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** "Scottsbluff County Communications/ Banner / Sioux", "Hancock, Henderson Counties", "Tri-County": several. */
export function listsSeveral(name: string): boolean {
  if (
    /\b(counties|parishes|tri[\s-]?(county|city|cities|state)|bi[\s-]?county|multi[\s-]?county)\b/i.test(name)
  ) {
    return true;
  }
  const counties = new Set(
    [...name.matchAll(/([a-z][\w.'-]*)\s+(county|parish)\b/gi)].map((m) => (m[1] ?? "").toLowerCase()),
  );
  return counties.size >= 2 || namedSegments(name).length >= 2;
}

/** What the classifier knows of the state's municipalities (an incorporated place, a town or a township). */
export interface MunicipalityNames {
  /** The text names one of the state's municipalities, as the registry may write it ("Agawam" for "Agawam Town"). */
  isPlaceName(text: string): boolean;
  /** The text is exactly the name of a municipality in or next to the PSAP's registered county. */
  isLocalMunicipality(text: string): boolean;
}

const NO_NAMES: MunicipalityNames = { isPlaceName: () => false, isLocalMunicipality: () => false };

/** Leading words that say a municipality follows ("Town of Colonie Police"). */
const MUNICIPAL_PREFIX = /^(city|town|village|borough|township|twp|charter township) of\s+/i;
/** A municipality's kind, right after its name ("Old Bridge Township Police", "Jersey City Police"). */
const KIND_AFTER = /^(charter\s+township|township|twp\.?|town|city|village|borough|boro)\b\.?/i;
/** The county a municipality's centre names as its site ("Hamilton Township PD-mercer County"). */
const COUNTY_SITE = /\s*-\s*[a-z][\w .'-]*\b(county|parish)\s*$/i;
/** What turns the words before it into a county's name ("Washington County Sheriff"), not a municipality's. */
const COUNTY_AFTER = /^(county|counties|parish|parishes|co\.?)\b/i;

/**
 * The municipality a PSAP's name opens with, as far as the municipality's own name goes: "Old Bridge
 * Township" of "Old Bridge Township Police", "Overland Park" of "Overland Park Police", "Town of Colonie"
 * of "Town of Colonie Police". The words of a municipality's name never decide what the centre is (a
 * "Bridge", a "Park", a "College" inside it), so the rules read only what follows. Null when the name
 * opens with no municipality of the state, or with a county's name ("Washington County Sheriff").
 */
export function municipalHead(
  name: string,
  isMunicipality: (text: string) => boolean,
): { head: string; municipality: string } | null {
  const prefix = MUNICIPAL_PREFIX.exec(name)?.[0] ?? "";
  const body = name.slice(prefix.length);
  const words = [...body.matchAll(/[^\s/,()]+/g)];
  for (let k = Math.min(words.length, 6); k >= 1; k--) {
    const last = words[k - 1] as RegExpMatchArray;
    const end = (last.index ?? 0) + last[0].length;
    const municipality = body.slice(0, end).replace(/[-.'&]+$/, "");
    if (!municipality || !isMunicipality(municipality)) continue;
    const after = body.slice(end).replace(/^[\s-]+/, "");
    if (COUNTY_AFTER.test(after)) return null;
    const kind = KIND_AFTER.exec(after)?.[0];
    const head = kind
      ? prefix + body.slice(0, body.indexOf(kind, end) + kind.length)
      : prefix + body.slice(0, end);
    return { head, municipality };
  }
  return null;
}

/** True when the text holds nothing but role words ("Police Department", "Central Communications", "911"). */
function onlyRoleWords(text: string): boolean {
  return namedSegments(text.replace(/\s-\s*[^-]*$/, " ")).length === 0;
}

const decide = (jurisdiction: PsapJurisdiction, rule: string): Classification => ({
  jurisdiction,
  rule,
  unclassified: false,
});

/** A PSAP's name read once: what opens it (the state, a municipality) and what the rules read after that. */
interface NameParts {
  name: string;
  state: string;
  /** The name without dots. */
  plain: string;
  /** The name names its state ("Vermont State Police - Williston"). */
  namesState: boolean;
  /** The name is its state's and nothing else's ("Rhode Island E9-1-1", "State Of New Hampshire - Concord"). */
  onlyTheState: boolean;
  /** The municipality the name opens with, as written ("Old Bridge Township"), and its own name ("Old Bridge"). */
  head: string | null;
  municipality: string | null;
  /** What follows the head (the whole name without one). */
  rest: string;
  /** The rest without a second duty ("... and Training Center"). */
  duty: string;
  /** The whole name without a second duty. */
  core: string;
}

function nameParts(name: string, state: string, names: MunicipalityNames): NameParts {
  const stateName = STATE_NAMES[state] ?? "";
  const statePattern = stateName.replace(/ /g, "\\s+");
  const plainName = name.replace(/\./g, "").trim();
  // A statewide centre is named for the state itself ("Rhode Island E9-1-1", "State Of New Hampshire - Concord"),
  // not for a part of it ("North Texas Emergency Communications", "Southwest Georgia Regional E911")...
  const startsWithState =
    stateName !== "" && new RegExp(`^(state of\\s+)?${statePattern}\\b`, "i").test(plainName);
  // ...and for nothing else: "Virginia Beach Emergency Communications" is a city's. What remains once the
  // state's name, a "- Concord" site qualifier and the role words are taken out must be nothing.
  const onlyTheState =
    startsWithState &&
    !new RegExp(`^(state of\\s+)?${statePattern}\\s+(county|parish|city)\\b`, "i").test(plainName) &&
    !/public safety/i.test(plainName) &&
    namedSegments(
      plainName
        .replace(new RegExp(`^(state of\\s+)?${statePattern}\\b`, "i"), " ")
        .replace(/\s-\s*[^-]*$/, " "),
    ).length === 0;
  // The rules read what follows the municipality the name opens with, if any.
  const opening = onlyTheState ? null : municipalHead(name.trim(), names.isLocalMunicipality);
  const rest = opening ? name.trim().slice(opening.head.length) : name;
  return {
    name,
    state,
    plain: plainName,
    namesState: stateName !== "" && new RegExp(`\\b${statePattern}\\b`, "i").test(plainName),
    onlyTheState,
    head: opening?.head ?? null,
    municipality: opening?.municipality ?? null,
    rest,
    duty: rest.replace(SECOND_DUTY, ""),
    core: name.replace(SECOND_DUTY, ""),
  };
}

/** Sites that answer no ordinary area (special), a statewide centre (state), and a tribal police (municipal). */
function siteRule(n: NameParts): Classification | null {
  if (BACKUP.test(n.duty)) return decide("special", "backup or alternate site");
  if (ADMINISTRATION.test(n.duty)) return decide("special", "911 administration office");
  if (n.onlyTheState && (/^state of\b/i.test(n.plain) || STATEWIDE.test(n.name)) && !LAW_WORDS.test(n.name)) {
    return decide("state", "statewide centre");
  }
  // A department of public safety that names no city, only a site after a dash ("Department Of Public
  // Safety - Tucson"), is the state's: a city's names the city first ("Dillingham Department Of Public Safety").
  const stateSite = /^(state\s+)?department of public safety\s+-\s*\S/i.test(n.plain);
  if (STATE_LAW.test(n.rest) && (n.namesState || stateSite || !/department of public safety/i.test(n.rest))) {
    return decide("special", "highway patrol or state police");
  }
  if (MILITARY.test(n.rest) || ARMY_POSTS.test(n.rest.trim())) return decide("special", "military");
  if (CAMPUS.test(n.rest)) return decide("special", "campus");
  if (TRANSPORT.test(n.rest)) return decide("special", "airport, port or transit");
  if (OTHER_SPECIAL.test(n.rest)) return decide("special", "other special site");
  if (FIRE_EMS.test(n.duty) && !NOT_ONLY_FIRE.test(n.name)) return decide("special", "fire/EMS only");
  // A tribal police answers for its reservation community (its registered place), like a town's police.
  if (TRIBAL.test(n.rest)) return decide("municipal", "tribal police (its registered community)");
  // A sheriff's office or station is the county's, even when it names the contract cities it covers.
  if (/\b(sheriff|sheriffs|sheriff's|lasd)\b/i.test(n.name) && !/\b(counties|parishes)\b/i.test(n.name)) {
    const counties = new Set(
      [...n.name.matchAll(/([a-z][\w.'-]*)\s+county\b/gi)].map((m) => m[1]?.toLowerCase()),
    );
    if (counties.size <= 1) return decide("county", "sheriff");
  }
  return null;
}

/**
 * "Hamden Central Communications", "Montville Emergency Communications Center", "Hamilton Township PD -
 * Mercer County", "Orangetown": a municipality's name and role words only is that municipality's centre;
 * a county named in them (not as a "- Mercer County" site) makes it the county's ("Muskogee City/county
 * 9-1-1"), and so does a name that is its county's as much as a town's ("Dakota 911", registered elsewhere
 * in Dakota County).
 */
function municipalityRule(n: NameParts, city: string, countyBases: readonly string[]): Classification | null {
  const restCore = n.rest.replace(COUNTY_SITE, " ").replace(/\s-\s*[^-]*$/, " ");
  if (!n.head || !onlyRoleWords(restCore) || COUNTY_WORDS.test(restCore)) return null;
  if (/\bcounty\b/i.test(n.head)) return decide("county", "consolidated city-county");
  const base = plain(n.municipality ?? "");
  const bare = n.head === n.municipality;
  if (bare && countyBases.includes(base) && plain(city) !== base && !NEW_ENGLAND.has(n.state))
    return decide("county", "named after its county");
  if (HOSTS_REGION.test(n.rest)) return decide("regional", "regional centre named for its host town");
  if (POLICE.test(n.rest)) return decide("municipal", "city or town police");
  return decide("municipal", "named after its municipality");
}

/** What the name's words say of the area it serves: several, a county, a metro, a city's police, a region. */
function areaWordsRule(
  n: NameParts,
  countyBases: readonly string[],
  isPlaceName: (text: string) => boolean,
): Classification | null {
  if (listsSeveral(n.core)) return decide("regional", "serves several places or counties");
  // Boroughs are county governments in Alaska, and towns in Pennsylvania and New Jersey.
  if (n.state === "AK" && /\b(borough|municipality)\b/i.test(n.name)) return decide("county", "borough");
  // One county named: its county-wide centre, even when it calls itself regional or consolidated; where
  // counties have no government, the towns of the county that joined it.
  if (COUNTY_WORDS.test(n.name)) {
    if (NO_COUNTY_GOVERNMENT.has(n.state)) return decide("regional", "named for a county without government");
    return decide("county", /sheriff/i.test(n.name) ? "sheriff" : "county");
  }
  // A metropolitan police department is a city-county consolidation's ("Las Vegas Metropolitan Police
  // Department" answers for the city and unincorporated Clark County): it answers for its county.
  if (/\bmetro(politan)?\s+police\b/i.test(n.name)) return decide("regional", "metropolitan police");
  if (POLICE.test(n.name)) {
    // A police department named for its county ("Miami-Dade Police Department") is the county's.
    const base = plain(municipalBaseName(n.name));
    // Not in New England, where counties have no police and many towns share their county's name
    // ("Plymouth Police", "Norfolk Police Department", "Hampden Police" are the towns').
    if (base && countyBases.includes(base) && !isPlaceName(base) && !NEW_ENGLAND.has(n.state))
      return decide("county", "county police");
    return decide("municipal", "city or town police");
  }
  if (REGIONAL.test(n.name)) return decide("regional", "regional or consolidated");
  if (MUNICIPAL.test(n.name)) return decide("municipal", "city or town");
  return null;
}

/** A bare name: its county's, its city's, a municipality's of the state, or a region's. */
function bareNameRule(
  n: NameParts,
  city: string,
  countyBases: readonly string[],
  isPlaceName: (text: string) => boolean,
): Classification | null {
  const name = plain(n.name);
  const c = plain(city);
  // The longer of the two wins: "Miami-Dade Communications Center" in Miami is the county's.
  const k = countyBases.find((b) => name === b || name.startsWith(`${b} `)) ?? "";
  if (k && k.length > c.length) return decide("county", "named after its county");
  if (c && (name === c || name.startsWith(`${c} `))) return decide("municipal", "named after its city");
  if (k) return decide("county", "named after its county");
  // "Aurora911", "Southside Place", "Jacinto City": the name of an incorporated place of the state.
  const bare = plain(n.name.replace(/(e?9-?1-?1|comm?|dispatch|communications?)$/i, ""));
  if (bare && isPlaceName(bare)) return decide("municipal", "named after a city");
  if (REGION_NAME.test(n.core) && !n.head) return decide("regional", "named for a region");
  return null;
}

/**
 * Classifies one PSAP by its registry name. `state` is its USPS code, `city` and `county` its
 * registry texts (a name that is just its city, "Rosenberg", is that city's centre). The rules are
 * tried in order; none matching, the name is unclassified (county assumed) and the report lists it.
 */
export function classifyPsap(
  name: string,
  state: string,
  city: string,
  county: string,
  names: MunicipalityNames = NO_NAMES,
  /** Census names of the counties the PSAP is registered in ("Miami-Dade" for the registry's "Dade"). */
  countyNames: readonly string[] = [],
): Classification {
  const n = nameParts(name, state, names);
  const countyBases = [county.replace(/\s+(county|parish|borough|census area)$/i, ""), ...countyNames]
    .map(plain)
    .filter((k) => k.length > 0);
  return (
    siteRule(n) ??
    municipalityRule(n, city, countyBases) ??
    areaWordsRule(n, countyBases, names.isPlaceName) ??
    bareNameRule(n, city, countyBases, names.isPlaceName) ?? {
      jurisdiction: "county",
      rule: "unclassified (county assumed)",
      unclassified: true,
    }
  );
}

/** The part of a municipal name before its role words: "Windcrest Police Department" -> "Windcrest". */
export function municipalBaseName(name: string): string {
  const head = name
    .replace(/^(city|town|village|borough|township) of\s+/i, "")
    .split(
      /\s*(?:\bpolice\b|\bpd\b|\bdepartment\b|\bdept\b|\bpublic safety\b|\bfire\b|\b9[\s-]?1[\s-]?1\b|\be9?-?1-?1\b|\bemergency\b|\bcommunications\b|\bdispatch\b|\bmarshal|\s-\s|\(|,)/i,
    )[0];
  return (head ?? "").trim();
}

/** A county named after a dash or in parentheses: "Chp Ukiah (mendocino)", "NYPD - Bronx". */
export function qualifierOf(name: string): string | null {
  const paren = /\(([^)]+)\)\s*$/.exec(name);
  if (paren?.[1]) return paren[1].trim();
  const dash = /\s-\s*([^-]+)$/.exec(name) ?? /\S-\s+([^-]+)$/.exec(name) ?? /\s-([a-z][^-]+)$/i.exec(name);
  return dash?.[1]?.trim() ?? null;
}
