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

/**
 * Classifies one PSAP by its registry name. `state` is its USPS code, `city` and `county` its
 * registry texts (a name that is just its city, "Rosenberg", is that city's centre).
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
  const isPlaceName = names.isPlaceName;
  const decide = (jurisdiction: PsapJurisdiction, rule: string): Classification => ({
    jurisdiction,
    rule,
    unclassified: false,
  });
  const stateName = STATE_NAMES[state] ?? "";
  const statePattern = stateName.replace(/ /g, "\\s+");
  const plainName = name.replace(/\./g, "").trim();
  const namesState = stateName !== "" && new RegExp(`\\b${statePattern}\\b`, "i").test(plainName);
  // A statewide centre is named for the state itself ("Rhode Island E9-1-1", "State Of New Hampshire - Concord"),
  // not for a part of it ("North Texas Emergency Communications", "Southwest Georgia Regional E911").
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
  // The rules below read what follows the municipality the name opens with, if any.
  const opening = onlyTheState ? null : municipalHead(name.trim(), names.isLocalMunicipality);
  const head = opening?.head ?? null;
  const rest = head ? name.trim().slice(head.length) : name;
  const duty = rest.replace(SECOND_DUTY, "");
  const core = name.replace(SECOND_DUTY, "");
  if (BACKUP.test(duty)) return decide("special", "backup or alternate site");
  if (ADMINISTRATION.test(duty)) return decide("special", "911 administration office");
  if (onlyTheState && (/^state of\b/i.test(plainName) || STATEWIDE.test(name)) && !LAW_WORDS.test(name)) {
    return decide("state", "statewide centre");
  }
  // A department of public safety that names no city, only a site after a dash ("Department Of Public
  // Safety - Tucson"), is the state's: a city's names the city first ("Dillingham Department Of Public Safety").
  const stateSite = /^(state\s+)?department of public safety\s+-\s*\S/i.test(plainName);
  if (STATE_LAW.test(rest) && (namesState || stateSite || !/department of public safety/i.test(rest))) {
    return decide("special", "highway patrol or state police");
  }
  if (MILITARY.test(rest) || ARMY_POSTS.test(rest.trim())) return decide("special", "military");
  if (CAMPUS.test(rest)) return decide("special", "campus");
  if (TRANSPORT.test(rest)) return decide("special", "airport, port or transit");
  if (OTHER_SPECIAL.test(rest)) return decide("special", "other special site");
  if (FIRE_EMS.test(duty) && !NOT_ONLY_FIRE.test(name)) return decide("special", "fire/EMS only");
  // A tribal police answers for its reservation community (its registered place), like a town's police.
  if (TRIBAL.test(rest)) return decide("municipal", "tribal police (its registered community)");
  // A sheriff's office or station is the county's, even when it names the contract cities it covers.
  if (/\b(sheriff|sheriffs|sheriff's|lasd)\b/i.test(name) && !/\b(counties|parishes)\b/i.test(name)) {
    const counties = new Set(
      [...name.matchAll(/([a-z][\w.'-]*)\s+county\b/gi)].map((m) => m[1]?.toLowerCase()),
    );
    if (counties.size <= 1) return decide("county", "sheriff");
  }
  const countyBases = [county.replace(/\s+(county|parish|borough|census area)$/i, ""), ...countyNames]
    .map(plain)
    .filter((k) => k.length > 0);
  // "Hamden Central Communications", "Montville Emergency Communications Center", "Hamilton Township PD -
  // Mercer County", "Orangetown": a municipality's name and role words only is that municipality's centre;
  // a county named in them (not as a "- Mercer County" site) makes it the county's ("Muskogee City/county
  // 9-1-1"), and so does a name that is its county's as much as a town's ("Dakota 911", registered elsewhere
  // in Dakota County).
  const restCore = rest.replace(COUNTY_SITE, " ").replace(/\s-\s*[^-]*$/, " ");
  if (head && onlyRoleWords(restCore) && !COUNTY_WORDS.test(restCore)) {
    if (/\bcounty\b/i.test(head)) return decide("county", "consolidated city-county");
    const base = plain(opening?.municipality ?? "");
    const bare = head === opening?.municipality;
    if (bare && countyBases.includes(base) && plain(city) !== base && !NEW_ENGLAND.has(state))
      return decide("county", "named after its county");
    if (HOSTS_REGION.test(rest)) return decide("regional", "regional centre named for its host town");
    if (POLICE.test(rest)) return decide("municipal", "city or town police");
    return decide("municipal", "named after its municipality");
  }
  if (listsSeveral(core)) return decide("regional", "serves several places or counties");
  // Boroughs are county governments in Alaska, and towns in Pennsylvania and New Jersey.
  if (state === "AK" && /\b(borough|municipality)\b/i.test(name)) return decide("county", "borough");
  // One county named: its county-wide centre, even when it calls itself regional or consolidated; where
  // counties have no government, the towns of the county that joined it.
  if (COUNTY_WORDS.test(name)) {
    if (NO_COUNTY_GOVERNMENT.has(state)) return decide("regional", "named for a county without government");
    return decide("county", /sheriff/i.test(name) ? "sheriff" : "county");
  }
  // A metropolitan police department is a city-county consolidation's ("Las Vegas Metropolitan Police
  // Department" answers for the city and unincorporated Clark County): it answers for its county.
  if (/\bmetro(politan)?\s+police\b/i.test(name)) return decide("regional", "metropolitan police");
  if (POLICE.test(name)) {
    // A police department named for its county ("Miami-Dade Police Department") is the county's.
    const base = plain(municipalBaseName(name));
    // Not in New England, where counties have no police and many towns share their county's name
    // ("Plymouth Police", "Norfolk Police Department", "Hampden Police" are the towns').
    if (base && countyBases.includes(base) && !isPlaceName(base) && !NEW_ENGLAND.has(state))
      return decide("county", "county police");
    return decide("municipal", "city or town police");
  }
  if (REGIONAL.test(name)) return decide("regional", "regional or consolidated");
  if (MUNICIPAL.test(name)) return decide("municipal", "city or town");
  const n = plain(name);
  const c = plain(city);
  // The longer of the two wins: "Miami-Dade Communications Center" in Miami is the county's.
  const k = countyBases.find((b) => n === b || n.startsWith(`${b} `)) ?? "";
  if (k && k.length > c.length) return decide("county", "named after its county");
  if (c && (n === c || n.startsWith(`${c} `))) return decide("municipal", "named after its city");
  if (k) return decide("county", "named after its county");
  // "Aurora911", "Southside Place", "Jacinto City": the name of an incorporated place of the state.
  const bare = plain(name.replace(/(e?9-?1-?1|comm?|dispatch|communications?)$/i, ""));
  if (bare && isPlaceName(bare)) return decide("municipal", "named after a city");
  if (REGION_NAME.test(core) && !head) return decide("regional", "named for a region");
  return { jurisdiction: "county", rule: "unclassified (county assumed)", unclassified: true };
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
