// Plain-words formatting for the demo pages: phone numbers, why a centre was chosen, where the patient is.
// No DOM here, so the node tests can check every sentence a counselor reads in the worst minute.

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

/** `Cook` → `Cook County`; Louisiana's parishes and names that already say what they are stay right. */
export function countyLabel(county, state) {
  if (!county) return "";
  if (/\b(county|parish|borough|census area|municipality|city|municipio|island|district)$/i.test(county))
    return county;
  return `${county} ${state === "LA" ? "Parish" : "County"}`;
}

const JURISDICTION = {
  municipal: "the city's or town's own 911 centre",
  county: "a county 911 centre",
  regional: "a regional 911 centre (several cities or counties)",
  state: "the statewide 911 centre",
  special: "a special centre (campus, airport, state police or similar)",
};

/** What kind of centre it is, in words. */
export function jurisdictionLabel(jurisdiction) {
  return JURISDICTION[jurisdiction] || jurisdiction || "a 911 centre";
}

/** Why this centre, in the words a counselor can repeat to a dispatcher. */
export function whyChosen(psap, area) {
  const place = area?.place;
  const county = countyLabel(area?.county || psap.county, area?.state || psap.state);
  switch (psap.match) {
    case "boundary":
      return "Its registered service area contains the patient's location.";
    case "city":
      return place
        ? `It answers 911 calls inside the city limits of ${place}, where the patient is.`
        : "It answers 911 calls for the city the patient is in.";
    case "county":
      return county
        ? `It answers 911 calls for ${county}, where the patient is${place && area?.place_kind === "community" ? ` (${place} is unincorporated)` : ""}.`
        : "It answers 911 calls for the patient's county.";
    default:
      return `No centre on file answers for this exact spot: it is the nearest one (${psap.distance_km.toFixed(1)} km).`;
  }
}

/** `GB` → `United Kingdom` (the code itself where the browser has no name for it). */
export function countryName(code) {
  try {
    return new Intl.DisplayNames(["en"], { type: "region" }).of(code) || code;
  } catch {
    return code;
  }
}

/**
 * `Hazel Crest (city), Cook County, IL, US`: the place in a dispatcher's words; outside the US only the
 * country is known: `United Kingdom (GB)`. "" when nothing is known.
 */
export function placeLine(area) {
  if (!area) return "";
  if (area.country && area.country !== "US") return `${countryName(area.country)} (${area.country})`;
  const kind = area.place_kind === "community" ? "unincorporated community" : area.place_kind;
  return [
    area.place && (kind ? `${area.place} (${kind})` : area.place),
    countyLabel(area.county, area.state),
    area.state,
    area.country,
  ]
    .filter(Boolean)
    .join(", ");
}

/** `41.57250, -87.69450 (±25 m)`. */
export function coordinatesLine(location) {
  if (!location) return "";
  const acc = location.accuracy == null ? "" : ` (±${Math.round(location.accuracy)} m)`;
  return `${location.latitude.toFixed(5)}, ${location.longitude.toFixed(5)}${acc}`;
}

/**
 * The text the copy button puts on the clipboard: what a dispatcher asks for, in the order they ask.
 * `result` is what the counselor SDK's onPSAPResults gave (or null), `address` the address on file.
 */
export function dispatcherText(result, address, now = new Date()) {
  const lines = [
    `Patient location (telehealth SOS, ${now.toISOString().slice(0, 16).replace("T", " ")} UTC)`,
  ];
  const place = placeLine(result?.area);
  if (place) lines.push(`Where: ${place}`);
  if (result?.location) {
    const { latitude, longitude, accuracy } = result.location;
    const acc = accuracy == null ? "" : `, accuracy ±${Math.round(accuracy)} m`;
    lines.push(`GPS: ${latitude.toFixed(5)}, ${longitude.toFixed(5)} (latitude, longitude${acc})`);
  }
  lines.push(`Address on file: ${address || "none"}`);
  const first = result?.psaps?.[0];
  if (first) {
    const phone = first.phone ? `, ${nationalPhone(first.phone)}` : ", no number on file";
    lines.push(
      `Answering 911 centre: ${first.name} (${[first.city, first.state].filter(Boolean).join(", ")}${phone})`,
    );
  }
  return lines.join("\n");
}
