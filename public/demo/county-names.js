// County equivalents by their own names, as a dispatcher says them: "Orleans Parish", "Municipality of
// Anchorage", "Nome Census Area", "City of Richmond", "municipio of San Juan"; "Cook County" elsewhere.
//
// What the service gives: `area.county` is the bare Census name, as us-atlas spells it ("Cook",
// "Orleans", "Anchorage", "Kodiak Island", "Nome", "Juneau", "San Juan"); an independent city reads
// "Richmond city", "Baltimore city", "St. Louis city" (lower-case "city", as the Census writes it; Virginia
// also has a Richmond County). The console map's outlines (us-atlas) give the bare name and the FIPS
// code, whose county part is 500 or more for an independent city.
//
// Sources: US Census Bureau, "Substantial changes to counties and county equivalent entities" and the
// 2020 county list (LSAD of each entity); Alaska: the State of Alaska's list of boroughs and census areas.

/** Alaska's county equivalents (Census LSAD) by name: boroughs, census areas, municipalities, cities and boroughs. */
const ALASKA = {
  "Aleutians East": "Aleutians East Borough",
  "Aleutians West": "Aleutians West Census Area",
  Anchorage: "Municipality of Anchorage",
  Bethel: "Bethel Census Area",
  "Bristol Bay": "Bristol Bay Borough",
  Chugach: "Chugach Census Area",
  "Copper River": "Copper River Census Area",
  Denali: "Denali Borough",
  Dillingham: "Dillingham Census Area",
  "Fairbanks North Star": "Fairbanks North Star Borough",
  Haines: "Haines Borough",
  "Hoonah-Angoon": "Hoonah-Angoon Census Area",
  Juneau: "City and Borough of Juneau",
  "Kenai Peninsula": "Kenai Peninsula Borough",
  "Ketchikan Gateway": "Ketchikan Gateway Borough",
  "Kodiak Island": "Kodiak Island Borough",
  Kusilvak: "Kusilvak Census Area",
  "Lake and Peninsula": "Lake and Peninsula Borough",
  "Matanuska-Susitna": "Matanuska-Susitna Borough",
  Nome: "Nome Census Area",
  "North Slope": "North Slope Borough",
  "Northwest Arctic": "Northwest Arctic Borough",
  Petersburg: "Petersburg Borough",
  "Prince of Wales-Hyder": "Prince of Wales-Hyder Census Area",
  Sitka: "City and Borough of Sitka",
  Skagway: "Municipality of Skagway",
  "Southeast Fairbanks": "Southeast Fairbanks Census Area",
  "Valdez-Cordova": "Valdez-Cordova Census Area",
  "Wade Hampton": "Wade Hampton Census Area",
  Wrangell: "City and Borough of Wrangell",
  Yakutat: "City and Borough of Yakutat",
  "Yukon-Koyukuk": "Yukon-Koyukuk Census Area",
};

/** The island areas' county equivalents: districts (AS), municipalities (MP), islands (VI); Guam is one. */
const ISLAND_AREAS = {
  AS: (name) => `${name} District`,
  MP: (name) => `${name} (municipality)`,
  VI: (name) => `${name} (island)`,
  GU: (name) => name,
};

/** Virginia counties whose names end in "City": counties, not independent cities. */
const VIRGINIA_CITY_COUNTIES = new Set(["Charles City", "James City"]);

/** Cities outside any county that are named as cities, whatever their FIPS code says. */
const STANDS_AS_IS = new Set(["NV:Carson City", "DC:District of Columbia"]);

/** Independent cities have a FIPS county code of 500 or more in these states (Census). */
const INDEPENDENT_CITY_STATES = new Set(["VA", "MD", "MO"]);

/**
 * The county equivalent named as a dispatcher says it. `state` is the two-letter code; `fips` (optional,
 * "51760") tells an independent city when the name alone does not.
 */
export function countyName(county, state, fips) {
  if (!county) return "";
  if (STANDS_AS_IS.has(`${state}:${county}`)) return county;
  // "Richmond city" (the Census's spelling); the FCC registry writes "Richmond City" in these states.
  const independent =
    /^(.+) city$/.exec(county) ??
    (INDEPENDENT_CITY_STATES.has(state) && !VIRGINIA_CITY_COUNTIES.has(county)
      ? /^(.+) City$/.exec(county)
      : null);
  if (independent) return `City of ${independent[1]}`;
  if (fips && INDEPENDENT_CITY_STATES.has(state) && Number(String(fips).slice(2)) >= 500)
    return `City of ${county}`;
  // Alaska by its own table, also when the registry already added a kind ("Anchorage Borough").
  if (state === "AK") return ALASKA[county.replace(/ (Borough|Census Area|Municipality)$/, "")] ?? county;
  if (/ (County|Parish|Borough|Census Area|Municipality|Municipio)$/.test(county)) return county;
  if (state === "LA") return `${county} Parish`;
  if (state === "PR") return `municipio of ${county}`;
  if (ISLAND_AREAS[state]) return ISLAND_AREAS[state](county);
  return `${county} County`;
}

/** The same name inside a sentence: "for the City of Richmond", "for the municipio of San Juan", "for Cook County". */
export function countyInSentence(county, state, fips) {
  const name = countyName(county, state, fips);
  return /^(City of|City and Borough of|Municipality of|municipio of) /.test(name) ? `the ${name}` : name;
}
