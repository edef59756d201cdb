// Plain-words formatting for the demo pages: phone numbers, why a centre was chosen, where the patient is,
// what to do when no number is on file. No DOM here, so the node tests can check every sentence a
// counselor reads (or copies) in the worst minute.
import { countyInSentence, countyName } from "./county-names.js";

/** The connection badge of both pages (the SDK's onStateChange states): its words and its colour class. */
export const CONNECTION_BADGES = {
  connecting: ["connecting…", "warn"],
  open: ["connected", "ok"],
  reconnecting: ["reconnecting…", "warn"],
  closed: ["closed", ""],
};

/** `+17085551234` → `(708) 555-1234` (North American numbers); any other E.164 number is shown as it is. */
export function nationalPhone(e164) {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(e164 || "");
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : e164 || "";
}

/** A `tel:` address: digits and a leading `+` only (`116 123` → `tel:116123`). */
export function telHref(number) {
  return `tel:${String(number).replace(/[^\d+]/g, "")}`;
}

const SERVICES = {
  all: "all services",
  police: "police",
  ambulance: "ambulance",
  fire: "fire",
  crisis: "crisis line",
};

/** `{ number: "988", service: "crisis" }` → `988 (crisis line)`. */
export function numberLabel(n) {
  return `${n.number} (${SERVICES[n.service] || n.service})`;
}

/** The first number to dial where the patient is: the first of `emergency`, else 911. */
export function firstNumber(emergency) {
  return emergency?.numbers?.[0]?.number || "911";
}

const JURISDICTION = {
  municipal: "the city's or town's own 911 centre",
  county: "a county 911 centre",
  regional: "a regional 911 centre (several cities or counties)",
  state: "the statewide 911 centre",
  special: "a special centre (campus, airport, state police or similar)",
};

/**
 * What a `special` centre is, read from its name where the name says it: a card names a base's centre a
 * military base's, not "campus, airport, state police or similar".
 */
const SPECIAL_KINDS = [
  [
    /\b(air force|afb|army|navy|naval|marine corps|fort|camp|joint base|military|national guard)\b/i,
    "a military base's own centre",
  ],
  [/\b(university|college|campus)\b/i, "a campus's own centre"],
  [/\b(airport|aviation)\b/i, "an airport's own centre"],
  [/\b(state police|highway patrol|state patrol|troopers?)\b/i, "the state police"],
  [/\b(national park|park service)\b/i, "a National Park's own centre"],
];

/** US territories: a centre for all of one is territory-wide, not statewide. */
const TERRITORIES = new Set(["PR", "GU", "VI", "AS", "MP"]);

/** What kind of centre it is, in words (`state` tells a territory's centre from a state's; `name` a special one's kind). */
export function jurisdictionLabel(jurisdiction, state, name = "") {
  if (jurisdiction === "state" && TERRITORIES.has(state)) return "the territory-wide 911 centre";
  if (jurisdiction === "special") {
    const kind = SPECIAL_KINDS.find(([pattern]) => pattern.test(name));
    if (kind) return kind[1];
  }
  return JURISDICTION[jurisdiction] || jurisdiction || "a 911 centre";
}

// ---------------------------------------------------------------------------
// A centre's lines: what each is, in words a counselor acts on.

const LINE_KINDS = {
  emergency: "Emergency line, rings the 911 floor",
  dispatch: "Dispatch, 24/7",
  administrative: "Business line: may not answer at night",
};

/** The kind of a line in words: `Dispatch, 24/7`, `Business line: may not answer at night`. */
export function lineKindText(kind) {
  return LINE_KINDS[kind] || LINE_KINDS.administrative;
}

/** The best line answered around the clock (emergency, else dispatch), or null: the only one a call action dials. */
export function aroundTheClockLine(psap) {
  return (psap?.lines || []).find((l) => l.kind === "emergency" || l.kind === "dispatch") || null;
}

/** The best business line, or null: offered only after the transfer path. */
export function businessLine(psap) {
  return (psap?.lines || []).find((l) => l.kind === "administrative") || null;
}

/** `checked 2026-11-28` and where it is published, for the line's small print. */
export function lineProvenance(line) {
  return `checked ${line.checked_on}${line.origin === "operator" ? ", set by this service's operator" : ""}`;
}

/** A source that is a web address, to link; null for a document's title. */
export function sourceHref(line) {
  return /^https?:\/\//i.test(line?.source || "") ? line.source : null;
}

/** `(708) 555-1234 (Dispatch, 24/7)`: a number with its kind, as copied. */
export function lineWithKind(line) {
  return `${nationalPhone(line.phone)} (${lineKindText(line.kind)})`;
}

/** Whole kilometres, or "< 1": a distance to a city's or county's centre is no finer than that. */
const roughKm = (km) => (km < 1 ? "< 1" : String(Math.round(km)));

/**
 * How far the centre is, as honest as its position: to the building when the operator gave it; else the
 * registry placed it at its city's (or county's) centre, so: where it is registered when that is where the
 * patient is, or an approximate distance to that centre. Never an exact-looking figure it does not have.
 */
export function distanceText(psap, area) {
  const sameState = !area?.state || area.state === psap.state;
  switch (psap.location_precision) {
    case "building":
      return `${psap.distance_km.toFixed(1)} km away`;
    case "county":
      return psap.county && sameState && area?.county === psap.county
        ? `registered in ${countyInSentence(psap.county, psap.state)}, where the patient is`
        : `≈ ${roughKm(psap.distance_km)} km (county centre)`;
    default:
      return psap.city && sameState && area?.place?.toLowerCase() === psap.city.toLowerCase()
        ? `registered in ${psap.city}, where the patient is`
        : `≈ ${roughKm(psap.distance_km)} km (city centre)`;
  }
}

/** Why this centre, in the words a counselor can repeat to a dispatcher. */
export function whyChosen(psap, area) {
  const place = area?.place;
  const state = area?.state || psap.state;
  const county = countyInSentence(area?.county || psap.county, state);
  switch (psap.match) {
    case "boundary":
      return "Its registered service area contains the patient's location.";
    case "city":
      if (!place) return "It answers 911 calls for the city or town the patient is in.";
      return area?.place_kind === "town"
        ? `It answers 911 calls in the ${TOWNSHIP_STATES.has(state) ? "township" : "town"} of ${place}, where the patient is.`
        : `It answers 911 calls inside the city limits of ${place}, where the patient is.`;
    case "county":
      return county
        ? `It answers 911 calls for ${county}, where the patient is${place && area?.place_kind === "community" && state !== "PR" ? ` (${place} is unincorporated)` : ""}.`
        : "It answers 911 calls for the patient's county.";
    default:
      return `No centre on file answers for this exact spot: it is the nearest one, ${distanceText(psap, area)}.`;
  }
}

/** The centre as a dispatcher finds it: `Southland Dispatch Center, Cook County, IL`. */
export function centreLine(psap) {
  return [psap.name, countyName(psap.county, psap.state), psap.state].filter(Boolean).join(", ");
}

/** `GB` → `United Kingdom` (the code itself where the browser has no name for it). */
export function countryName(code) {
  try {
    return new Intl.DisplayNames(["en"], { type: "region" }).of(code) || code;
  } catch {
    return code;
  }
}

/** States whose county subdivisions that govern are townships (the others' are towns). */
const TOWNSHIP_STATES = new Set(["NJ", "PA", "MI", "MN", "OH"]);

/** What kind of place, in words: city, town or township, unincorporated community; none in Puerto Rico. */
function placeKind(kind, state) {
  if (state === "PR") return null; // every place there is census-designated: the municipio says where
  if (kind === "community") return "unincorporated community";
  if (kind === "town") return TOWNSHIP_STATES.has(state) ? "township" : "town";
  return kind;
}

/**
 * `Hazel Crest (city), Cook County, IL, US`: the place in a dispatcher's words (`Cherry Hill (township),
 * Camden County, NJ, US`; `San Juan, PR (municipio), US`); outside the US only the country is known:
 * `United Kingdom (GB)`. "" when nothing is known.
 */
export function placeLine(area) {
  if (!area) return "";
  if (area.country && area.country !== "US") return `${countryName(area.country)} (${area.country})`;
  if (area.state === "PR" && area.county) {
    const place = area.place && area.place !== area.county ? area.place : null;
    return [place, `${area.county}, PR (municipio)`, area.country].filter(Boolean).join(", ");
  }
  const kind = placeKind(area.place_kind, area.state);
  return [
    area.place && (kind ? `${area.place} (${kind})` : area.place),
    countyName(area.county, area.state),
    area.state,
    area.country,
  ]
    .filter(Boolean)
    .join(", ");
}

/**
 * The place as said on the phone: `Evanston, Cook County, IL`, `San Juan, PR (municipio)`; abroad the
 * country's name. "" when nothing is known.
 */
export function spokenPlace(area) {
  if (!area) return "";
  if (area.country && area.country !== "US") return countryName(area.country);
  if (area.state === "PR" && area.county) {
    const place = area.place && area.place !== area.county ? area.place : null;
    return [place, `${area.county}, PR (municipio)`].filter(Boolean).join(", ");
  }
  return [area.place, countyName(area.county, area.state), area.state].filter(Boolean).join(", ");
}

/** `41.57250, -87.69450 (±25 m)`. */
export function coordinatesLine(location) {
  if (!location) return "";
  const acc = location.accuracy == null ? "" : ` (±${Math.round(location.accuracy)} m)`;
  return `${location.latitude.toFixed(5)}, ${location.longitude.toFixed(5)}${acc}`;
}

const utcMinute = (now) => `${now.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** `GPS: 41.57250, -87.69450 (latitude, longitude, accuracy ±25 m)`, or null without a fix. */
function gpsLine(location) {
  if (!location) return null;
  const { latitude, longitude, accuracy } = location;
  const acc = accuracy == null ? "" : `, accuracy ±${Math.round(accuracy)} m`;
  return `GPS: ${latitude.toFixed(5)}, ${longitude.toFixed(5)} (latitude, longitude${acc})`;
}

/**
 * The text the location copy button puts on the clipboard: what a dispatcher asks for, in the order they
 * ask. `result` is what the counselor SDK's onPSAPResults gave (or null), `address` the address on file.
 */
export function dispatcherText(result, address, now = new Date()) {
  const lines = [`Patient location (telehealth SOS, ${utcMinute(now)})`];
  const place = placeLine(result?.area);
  if (place) lines.push(`Where: ${place}${checkedSuffix(result)}`);
  const gps = gpsLine(result?.location);
  if (gps) lines.push(gps);
  lines.push(`Address on file: ${address || "none"}`);
  const first = result?.psaps?.[0];
  if (first) {
    const best = aroundTheClockLine(first) || businessLine(first);
    const phone = best ? `, ${lineWithKind(best)}` : ", no number on file";
    lines.push(
      `Answering 911 centre: ${first.name} (${[first.city, first.state].filter(Boolean).join(", ")}${phone})`,
    );
  }
  return lines.join("\n");
}

/**
 * What the counselor does when there is no 24/7 line to call (none on file, only a business line, or the
 * patient is abroad): the steps to follow at once, the transfer path first and a business line only after
 * it, as shown, and the same with every detail to read out, as copied.
 * `result` is what onPSAPResults gave; `address` the address on file.
 */
export function callScript(result, address, now = new Date()) {
  const dial = firstNumber(result?.emergency);
  const first = result?.psaps?.[0];
  const place = placeLine(result?.area);
  const where = spokenPlace(result?.area) || "the location below";
  const country = result?.area?.country;
  const abroad = !first && country && country !== "US";
  const business = businessLine(first);
  const ask = `Ask the patient, or someone with them, to dial ${dial} now if they can${abroad ? ` (${countryName(country)})` : ""}: their page has the button.`;
  const steps = first
    ? [
        ask,
        `If they cannot: call 911 where you are, say the patient is in ${where}, and ask to be transferred to ${centreLine(first)}.`,
        ...(business
          ? [
              `If the transfer fails: business line ${nationalPhone(business.phone)}, may not answer at night.`,
            ]
          : []),
      ]
    : [
        ask,
        `If they cannot: call your own emergency number, give the patient's country (${where}) and location, and ask for help to reach the emergency services there.`,
      ];
  const details = [
    `Where: ${place || "not known"}${checkedSuffix(result)}`,
    gpsLine(result?.location),
    `Address on file: ${address || "none"}`,
  ].filter(Boolean);
  const say = first
    ? `Say: "I am a telehealth counselor. My patient is in danger in ${where}. Please transfer me to ${centreLine(first)}${first.phone ? "" : ", which has no number on file here"}."`
    : null;
  const copyText = [
    `Call script (telehealth SOS, ${utcMinute(now)})`,
    `1. ${steps[0]}`,
    `2. ${steps[1]}`,
    ...(say ? [`   ${say}`] : []),
    ...steps.slice(2).map((step, i) => `${i + 3}. ${step}`),
    ...details,
  ].join("\n");
  return {
    heading: !first
      ? "Do this now:"
      : business
        ? "No 24/7 line on file. Do this now:"
        : "No number on file. Do this now:",
    steps,
    copyText,
  };
}

// ---------------------------------------------------------------------------
// The location check: where the patient was when the session started, dated and aged.

/** `10:02`: the local time of day, 24-hour, as a counselor says it. */
export function clockTime(iso) {
  const d = new Date(iso);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

/** How long ago: `just now`, `4 min ago`, `1 h 5 min ago`, `3 h ago`. */
export function ageText(iso, now = new Date()) {
  const minutes = Math.floor((now.getTime() - new Date(iso).getTime()) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const rest = minutes % 60;
  return `${Math.floor(minutes / 60)} h${rest ? ` ${rest} min` : ""} ago`;
}

/** Why a check has no location, in the counselor's words. */
const CHECK_WITHOUT_FIX = {
  permission_denied: "the patient's browser refused to share the location",
  position_unavailable: "the patient's device could not determine its location",
  timeout: "no location came in time",
};

/** The place as the check found it: `Cherry Hill (township), Camden County, NJ` (abroad, the country). */
function checkedPlace(area) {
  const line = placeLine(area);
  return area?.country === "US" ? line.replace(/, US$/, "") : line;
}

/** Whom to call first for a check, in a few words: the centre and its number, or the number abroad. */
function callFirst(check) {
  const first = check.psaps?.[0];
  if (!first) return `no US 911 centre; the patient dials ${firstNumber(check.emergency)}`;
  const best = aroundTheClockLine(first) || businessLine(first);
  return `${first.name}, ${best ? lineWithKind(best) : "no number on file"}`;
}

/**
 * The location check in one line, with its age: `Checked at 10:02 (4 min ago): Cherry Hill (township),
 * Camden County, NJ; call first: Cherry Hill Police, (856) 555-0100 (Dispatch, 24/7)`; without a fix, why.
 */
export function checkLine(check, now = new Date()) {
  const when = `Checked at ${clockTime(check.checked_at)} (${ageText(check.checked_at, now)})`;
  if (check.outcome !== "located") return `${when}: ${CHECK_WITHOUT_FIX[check.outcome] || check.outcome}.`;
  return `${when}: ${checkedPlace(check.area) || "place not known"}; call first: ${callFirst(check)}`;
}

/** The mark on a result shown from the check during an SOS: it is not a fresh fix. */
export function checkNote(check, now = new Date()) {
  return `From the location check at ${clockTime(check.checked_at)} (${ageText(check.checked_at, now)}), not a fresh fix: the patient may have moved since.`;
}

/** In the copied texts, a location from the check says so, with its time in UTC. */
function checkedSuffix(result) {
  return result?.checked_at
    ? ` (location check at ${utcMinute(new Date(result.checked_at))}, not a fresh fix)`
    : "";
}

/**
 * When the SOS was sent but the patient's page is not connected: what to do at once, without a fix. The
 * address on file is the only place known; the request reaches the page when it reconnects.
 */
export function awayScript(address, now = new Date()) {
  const steps = [
    "Try to reach the patient: the location request reaches their page when it reconnects.",
    address
      ? `If they may be in danger now: call 911 where you are, give the address on file (${address}), and ask for the 911 centre there.`
      : "If they may be in danger now: call 911 where you are, say where the patient may be, and ask for the 911 centre there.",
  ];
  const copyText = [
    `Call script (telehealth SOS, ${utcMinute(now)})`,
    `1. ${steps[0]}`,
    `2. ${steps[1]}`,
    `Address on file: ${address || "none"}`,
  ].join("\n");
  return { heading: "The patient's page is not connected. Do this now:", steps, copyText };
}
