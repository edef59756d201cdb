// The patient's page: the number to call where they are, and one honest line on whether the location
// was shared. Everything comes from the URL fragment (#token=...&api=...&ws=...); without a token the
// SDK uses the one this tab kept (a reload). No coordinate is ever shown, stored or put in a URL here.
import { PatientSDK } from "/sdk/patient.js";
import {
  aroundTheClockLine,
  businessLine,
  CONNECTION_BADGES,
  clockTime,
  distanceText,
  firstNumber,
  lineKindText,
  nationalPhone,
  numberLabel,
  telHref,
} from "./format.js";

const params = new URLSearchParams(location.hash.slice(1));
const $ = (id) => document.getElementById(id);

const SESSION = {
  active: ["active", "ok"],
  sos: ["emergency help requested", "sos"],
  ended: ["ended", ""],
  expired: ["ended", ""],
};
const GEO = {
  permission_denied:
    "Your location could not be shared: location is blocked for this page. Tell your counselor where you are. You can allow location in your browser's settings.",
  position_unavailable:
    "Your location could not be shared: your device cannot determine it right now. Tell your counselor where you are.",
  timeout:
    "Your location could not be shared: it took too long to determine. Tell your counselor where you are.",
};

/**
 * Where the location stands: `waiting` (not shared), `shared` (a submission succeeded: a result came
 * back; `sos`: for an emergency request, not the check at the start), `unavailable` (the browser
 * cannot give one) or `stopped` (the session is over).
 */
let loc = { state: "waiting", text: "", sos: false };
let session = null;

function showLocation(state, text, sos = false) {
  loc = { state, text, sos };
  const el = $("location-status");
  el.dataset.state = loc.state;
  el.dataset.tone = { shared: "ok", unavailable: "sos" }[loc.state] || "";
  el.textContent = loc.text;
}

function waiting() {
  showLocation(
    "waiting",
    session === "sos"
      ? "Your counselor asked for your location: sharing it…"
      : "Your location has not been shared.",
  );
}

function badge(id, [text, tone]) {
  $(id).textContent = text;
  $(id).dataset.tone = tone;
}

function notice(text) {
  $("notice").textContent = text || "";
  $("notice").hidden = !text;
}

const el = (tag, text, attrs = {}) => {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
};

const sdk = new PatientSDK({
  token: params.get("token") || undefined,
  apiBaseUrl: params.get("api") || location.origin,
  wsUrl: params.get("ws") || undefined,
  onStateChange: (s) => badge("conn", CONNECTION_BADGES[s]),
  onSessionState: (s) => {
    const was = session;
    session = s;
    badge("session", SESSION[s] || [s, ""]);
    $("help").hidden = s !== "sos";
    if (s === "ended" || s === "expired")
      return showLocation("stopped", "This session is over. Location sharing has stopped.");
    // An emergency request shares the location anew, also after the check at the start.
    if (s === "sos" && loc.state !== "unavailable" && !(loc.state === "shared" && loc.sos)) return waiting();
    if (s === "active" && was === "sos") {
      // A cancel: the service erased the location sent for the SOS; a new request would share it again.
      $("centres").hidden = true;
      return showLocation(
        "waiting",
        "Your counselor cancelled the emergency request. The location sent for it was erased.",
      );
    }
    if (s === "active" && loc.state === "waiting") waiting();
  },
  onEmergencyNumbers: (emergency) => {
    const first = firstNumber(emergency);
    const call = $("emergency-call");
    call.href = telHref(first);
    call.textContent = `Call ${first}`;
    const others = emergency.numbers.slice(1);
    $("other-numbers").hidden = others.length === 0;
    $("other-numbers").replaceChildren(
      ...(others.length ? [el("span", "Also: ")] : []),
      ...others.flatMap((n, i) => [
        ...(i ? [el("span", " · ")] : []),
        el("a", numberLabel(n), { href: telHref(n.number), class: "tel" }),
      ]),
    );
  },
  onPSAPResults: (psaps) => {
    // Results come back only for a location that reached the service: now it is shared. Outside an
    // emergency request, it was the check at the start of the session.
    const sos = session === "sos";
    const at = clockTime(new Date().toISOString());
    showLocation(
      "shared",
      sos
        ? `Your location was shared with your counselor at ${at}.`
        : `Your location was shared with your counselor at ${at}, for this session, so help can reach you faster.`,
      sos,
    );
    $("centres").hidden = psaps.length === 0;
    $("psaps").replaceChildren(
      ...psaps.map((p) => {
        const li = el("li");
        // As precise as the centre's position: "≈ 133 km (county centre)", never "133.4 km away".
        li.append(el("strong", p.name), el("span", distanceText(p, null), { class: "muted" }));
        const line = aroundTheClockLine(p) || businessLine(p);
        if (line)
          li.append(
            el("a", nationalPhone(line.phone), { href: telHref(line.phone), class: "tel" }),
            el("span", lineKindText(line.kind), { class: "muted small" }),
          );
        return li;
      }),
    );
  },
  onError: (err) => {
    if (err.name === "GeolocationError") {
      // A fix that was shared earlier stays shared; say only that no new one is coming.
      if (loc.state !== "shared") showLocation("unavailable", GEO[err.code] || err.message);
    } else notice(`Something went wrong (${err.code}). Your counselor can still help you.`);
  },
});
window.demo = { sdk };
sdk.init().catch((err) => notice(`Could not join the session (${err.code}).`));
