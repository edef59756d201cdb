// The counselor console: one state variable (`view`) decides the one status line; the cards show the
// latest result. Everything comes from the URL fragment (#token=...&api=...&ws=...), never sent to a server.
import { CounselorSDK } from "/sdk/counselor.js";
import {
  ageText,
  aroundTheClockLine,
  awayScript,
  businessLine,
  CONNECTION_BADGES,
  callScript,
  checkLine,
  checkNote,
  clockTime,
  coordinatesLine,
  dispatcherText,
  distanceText,
  firstNumber,
  jurisdictionLabel,
  lineKindText,
  lineProvenance,
  lineWithKind,
  nationalPhone,
  numberLabel,
  placeLine,
  sourceHref,
  telHref,
  whyChosen,
} from "./format.js";
import { drawMap } from "./map.js";

const params = new URLSearchParams(location.hash.slice(1));
const token = params.get("token");
const $ = (id) => document.getElementById(id);

const SESSION = {
  active: ["active", "ok"],
  sos: ["SOS in progress", "sos"],
  ended: ["ended", ""],
  expired: ["expired", ""],
};
const NO_FIX = {
  permission_denied: "The patient's browser refused to share the location.",
  position_unavailable: "The patient's device cannot determine its location.",
  timeout: "No location arrived within 30 seconds.",
  lookup_failed: "The location arrived but the 911 centre lookup failed on our side.",
};

/** Why no location link was made, in the counselor's words. */
const URI_REFUSED = {
  not_found: "This service does not offer location links.",
  location_uri_limit: "Three links are live for this SOS already: use one of them.",
  not_in_sos: "A link is made only during an SOS.",
};

/**
 * What the console is doing now. Kinds: setup, connecting, error, ready, sending, waiting, results,
 * outside, unavailable, failed, cancelled, ended, expired. The status line is a function of it alone.
 */
let view = { kind: token ? "connecting" : "setup" };
/** The session's own state, as the service last said. */
let session = null;
/** The latest result (onPSAPResults), or null: none yet, or erased by a cancel or the end. */
let result = null;
/** The latest location check (onLocationCheck), or null: none, or erased by the end. */
let check = null;
/** The address on file for the visit, as the service last said. */
let address = null;
/** The location links (URIs) made for the SOS under way, as the service told them: `{ uri, expires_at }`. */
let uris = [];

/**
 * What the cards show: the SOS's result; during an SOS without one, the location check's (marked with
 * its age wherever it is shown); else nothing.
 */
function shown() {
  if (result) return result;
  return session === "sos" && check?.outcome === "located" ? check : null;
}

function statusText() {
  const hasFix = Boolean(result);
  const fromCheck =
    !hasFix && shown() ? ` The location check of ${clockTime(check.checked_at)} is below.` : "";
  const ask = `Ask the patient where they are${address ? ` (address on file: ${address})` : ""}.`;
  switch (view.kind) {
    case "setup":
      return "Open this page with a counselor token: counselor.html#token=…&api=…";
    case "connecting":
      return "Connecting…";
    case "error":
      return `Could not join the session (${view.code}).`;
    case "ready":
      return "Ready. Press SOS if the patient may be in danger.";
    case "sending":
      return "Sending the SOS…";
    case "waiting":
      return hasFix
        ? "Asked for the location again: waiting. The last location received is below."
        : `SOS sent: waiting for the patient's location…${view.away ? " The patient's page is not connected right now: the request reaches it when it reconnects." : ""}${fromCheck && `${fromCheck} Until a fresh one comes, call its centre.`}`;
    case "results":
      if (aroundTheClockLine(result?.psaps[0])) return "Location received. Call the centre below.";
      return businessLine(result?.psaps[0])
        ? "Location received. No 24/7 line on file: follow the script below."
        : "Location received. No number on file: follow the script below.";
    case "outside":
      return `The patient is outside the United States${result?.area?.country ? ` (${result.area.country})` : ""}: no US 911 centre can help there. They should dial ${firstNumber(result?.emergency)}.`;
    case "unavailable":
      return `${NO_FIX[view.reason] || view.reason} ${hasFix ? "The last location received is below. " : fromCheck ? `${fromCheck.trim()} ` : ""}${ask}`;
    case "failed":
      return `The ${view.what} did not go through (${view.code}). Try again.`;
    case "cancelled":
      return "SOS cancelled (false alarm): the location sent for the SOS was erased.";
    case "ended":
    case "expired":
      return `The session has ${view.kind}. The patient's location was erased.`;
    default:
      return "";
  }
}

function setView(next) {
  view = next;
  render();
}

// Elements are built with textContent, never innerHTML: names in the data are shown as text.
function el(tag, text, attrs = {}) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function badge(id, [text, tone]) {
  $(id).textContent = text;
  $(id).dataset.tone = tone;
}

function render() {
  const status = $("status");
  status.dataset.state = view.kind;
  // Green only when there is a line to call around the clock: "no number on file" is no success.
  const canCall = Boolean(aroundTheClockLine(result?.psaps[0]));
  status.dataset.tone =
    { results: canCall ? "ok" : "warn", outside: "sos", unavailable: "sos", failed: "sos", error: "sos" }[
      view.kind
    ] || "";
  status.textContent = statusText();
  const live = session === "active" || session === "sos";
  $("sos").disabled = !live || view.kind === "sending";
  // Once an SOS is on, the call action is the red, dominant control; asking again is secondary.
  $("sos").textContent = session === "sos" ? "Ask for the location again" : "SOS: get patient location";
  $("sos").className = session === "sos" ? "secondary" : "sos";
  $("cancel").disabled = session !== "sos";
  // Once an SOS is on, every line counts on a phone's first screen: the instructions make way.
  $("intro").hidden = session === "sos" || Boolean(result);
  renderCheck();
  renderUris();
  renderFirst();
  renderLocation();
  renderOthers();
  // For the operator: the centres shown have no number (the FCC registry has none).
  const cards = shown();
  $("ops-note").hidden = !cards?.psaps.length || cards.psaps.some((p) => p.phone);
}

/** The location links of the SOS, each with its expiry and a copy button; only during an SOS. */
function renderUris() {
  $("location-uri").hidden = session !== "sos";
  $("uri-list").replaceChildren(
    ...uris.map(({ uri, expires_at }) => {
      const li = el("li", null, { class: "uri-item", "data-testid": "location-uri-item" });
      const copy = el("button", "Copy link", { type: "button", class: "secondary" });
      copy.addEventListener("click", () => void copyText(uri, $("uri-said"), $("uri-text"), "Link copied."));
      li.append(
        el("code", uri, { class: "uri", "data-testid": "location-uri-value" }),
        el("span", `expires ${clockTime(expires_at)}, or when the SOS ends`, {
          class: "small muted",
          "data-testid": "location-uri-expiry",
        }),
        copy,
      );
      return li;
    }),
  );
}

/** The check in one line, before an SOS (during one, the cards show it until the SOS's own fix comes). */
function renderCheck() {
  $("check").hidden = !check || session === "sos" || session === "ended" || session === "expired";
  $("check-line").textContent = check ? checkLine(check) : "";
}

/** Every age on the page, kept current (the status line is left alone: screen readers announce it). */
function refreshAges() {
  if (!check) return;
  $("check-line").textContent = checkLine(check);
  for (const note of document.querySelectorAll('[data-testid="check-note"]'))
    note.textContent = checkNote(check);
  const age = document.querySelector('[data-testid="location-checked"]');
  if (age) age.textContent = checkedAt(check);
  if ($("call-first-from").textContent)
    $("call-first-from").textContent = ` · location check, ${checkedAt(check)}`;
}

const checkedAt = (c) => `${clockTime(c.checked_at)} (${ageText(c.checked_at)})`;

/** The emergency numbers where the patient is, for the patient (or someone with them) to dial. */
function numbersLine(emergency) {
  const p = el("p", null, { "data-testid": "emergency-numbers" });
  const where = emergency?.country ? ` (${emergency.country})` : "";
  p.append(el("strong", `Numbers where the patient is${where}: `));
  p.append((emergency?.numbers || []).map(numberLabel).join(" · ") || "911");
  p.append(
    el(
      "span",
      " For the patient to dial: an emergency call from your own phone reaches the centre where you are, not theirs.",
      {
        class: "muted",
      },
    ),
  );
  return p;
}

/** A line's kind, the day it was checked and where it is published, in small print. */
function lineNote(line) {
  const p = el("p", null, { class: "small", "data-testid": "line-kind" });
  p.append(el("strong", lineKindText(line.kind)), ` · ${lineProvenance(line)} · `);
  const href = sourceHref(line);
  p.append(
    href
      ? el("a", "source", { href, target: "_blank", rel: "noopener noreferrer" })
      : el("span", `source: ${line.source}`),
  );
  return p;
}

/** The call action with a line answered around the clock: a tel: button that says what it rings. */
function callButton(line) {
  const box = el("div", null, { class: "call-action", "data-testid": "call-action" });
  const emergencyLine = line.kind === "emergency";
  box.append(
    el("a", `Call ${emergencyLine ? "its 911 line" : "its dispatch line"}: ${nationalPhone(line.phone)}`, {
      class: "call",
      href: telHref(line.phone),
      "data-testid": "call-first-phone",
      "data-kind": line.kind,
    }),
    el(
      "p",
      emergencyLine
        ? "Rings the centre's 911 floor directly."
        : "Answered by the centre's dispatchers around the clock: say it is an emergency.",
      { class: "small" },
    ),
    lineNote(line),
  );
  return box;
}

/** The call action without a number (none on file, or the patient abroad): a script to follow, and its copy. */
function scriptBox(away = false) {
  const make = () => (away ? awayScript(address) : callScript(shown(), address));
  const script = make();
  const box = el("div", null, { class: "call-action script", "data-testid": "call-action" });
  const steps = el("ol", null, { "data-testid": "call-first-no-number" });
  steps.append(...script.steps.map((step) => el("li", step)));
  const row = el("div", null, { class: "row" });
  const copy = el("button", "Copy the call script", {
    type: "button",
    class: "sos",
    "data-testid": "copy-call-script",
  });
  const said = el("span", "", { class: "small", role: "status", "aria-live": "polite" });
  const fallback = el("textarea", null, {
    class: "copy-fallback",
    "aria-label": "Call script",
    readonly: "",
    hidden: "",
  });
  copy.addEventListener("click", () => void copyText(make().copyText, said, fallback));
  row.append(copy, said);
  box.append(el("p", script.heading, { class: "strong" }), steps, row, fallback);
  return box;
}

function renderFirst() {
  const card = $("call-first");
  const body = $("call-first-body");
  const cards = shown();
  // Without a fix and with the patient's page away, the call action is the transfer path with the address.
  const away = !cards && session === "sos" && view.kind === "waiting" && view.away;
  card.hidden = !cards && !away;
  // A result from the check is marked as such right in the heading, on the first screen with its age.
  $("call-first-from").textContent =
    cards && cards !== result ? ` · location check, ${checkedAt(cards)}` : "";
  if (away) return body.replaceChildren(scriptBox(true));
  if (!cards) return body.replaceChildren();
  const first = cards.psaps[0];
  const dial = firstNumber(cards.emergency);
  // A result from the check says so, under the call action (which stays on the first screen).
  const note =
    cards === result ? [] : [el("p", checkNote(check), { class: "check-note", "data-testid": "check-note" })];
  if (!first) {
    body.replaceChildren(
      el("p", "No US 911 centre serves there", {
        class: "first-name",
        "data-testid": "call-first-name",
      }),
      scriptBox(),
      ...note,
      el(
        "p",
        `Only the patient's own call reaches help there: they should dial ${dial} now (their page shows it as a button).`,
        {
          class: "first-why",
          "data-testid": "call-first-why",
        },
      ),
      numbersLine(cards.emergency),
    );
    return;
  }
  body.replaceChildren(
    el("p", first.name, { class: "first-name", "data-testid": "call-first-name" }),
    aroundTheClockLine(first) ? callButton(aroundTheClockLine(first)) : scriptBox(),
    // A business line's kind, date and source, under the script that offers it second.
    ...(!aroundTheClockLine(first) && businessLine(first) ? [lineNote(businessLine(first))] : []),
    ...note,
    el(
      "p",
      [
        [first.city, first.state].filter(Boolean).join(", "),
        jurisdictionLabel(first.jurisdiction, first.state, first.name),
        distanceText(first, cards.area),
      ]
        .filter(Boolean)
        .join(" · "),
      { class: "muted small" },
    ),
    el("p", whyChosen(first, cards.area), { class: "first-why", "data-testid": "call-first-why" }),
    numbersLine(cards.emergency),
  );
}

function fact(term, value, testid) {
  const wrap = el("div");
  wrap.append(el("dt", term), el("dd", value, testid ? { "data-testid": testid } : {}));
  return wrap;
}

function renderLocation() {
  const card = $("patient-location");
  const cards = shown();
  // Shown with a fix (or the check's), or when none is coming and there is an address to give instead.
  card.hidden = !cards && !(view.kind === "unavailable" && address);
  if (card.hidden) return;
  const facts = [];
  if (cards) {
    facts.push(fact("Where", placeLine(cards.area) || "not known", "location-place"));
    if (cards.location) facts.push(fact("GPS", coordinatesLine(cards.location), "location-coordinates"));
  } else facts.push(fact("Where", "not shared: ask the patient"));
  facts.push(fact("Address on file", address || "none", "location-address"));
  if (cards === result && result) facts.push(fact("Received", clockTime(result.computed_at)));
  else if (cards) facts.push(fact("Location check", checkedAt(cards), "location-checked"));
  $("where").replaceChildren(...facts);
}

function renderOthers() {
  const cards = shown();
  const others = cards ? cards.psaps.slice(1) : [];
  $("others").hidden = others.length === 0;
  $("psaps").replaceChildren(
    ...others.map((p) => {
      const li = el("li");
      li.append(el("strong", p.name));
      li.append(
        el(
          "span",
          [
            jurisdictionLabel(p.jurisdiction, p.state, p.name),
            [p.city, p.state].filter(Boolean).join(", "),
            distanceText(p, cards.area),
          ]
            .filter(Boolean)
            .join(" · "),
          { class: "muted" },
        ),
      );
      const best = aroundTheClockLine(p) || businessLine(p);
      li.append(
        best
          ? el("a", lineWithKind(best), { href: telHref(best.phone), class: "tel" })
          : el("span", "no number on file", { class: "muted" }),
      );
      li.append(el("span", whyChosen(p, cards.area)));
      return li;
    }),
  );
  $("meta").textContent = cards ? `Data: ${cards.data_version}` : "";
}

async function renderMap() {
  const card = $("map-card");
  const drawn = shown();
  // The outlines are US counties: abroad the map would be a lone dot.
  card.hidden = !drawn?.location || drawn.area?.country !== "US";
  if (card.hidden) return $("plot").replaceChildren();
  const label = await drawMap($("plot"), drawn);
  // A newer result (or a cancel) while the shapes loaded: the newer call draws.
  if (drawn !== shown()) return;
  $("plot").setAttribute("aria-label", `Map. ${label}`);
  $("map-caption").textContent = label;
}

function clearResult() {
  result = null;
  $("copied").textContent = "";
  $("copy-text").hidden = true;
  void renderMap();
}

/**
 * Puts `text` on the clipboard and says so in `said`; without the clipboard API (or its permission) it
 * shows the text selected in `fallback`, copied there if the browser still allows it.
 */
async function copyText(
  text,
  said,
  fallback,
  copied = "Copied: paste it, or read it out to the dispatcher.",
) {
  const done = (msg) => (said.textContent = msg);
  try {
    await navigator.clipboard.writeText(text);
    fallback.hidden = true;
    done(copied);
  } catch {
    fallback.value = text;
    fallback.hidden = false;
    fallback.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    done(ok ? copied : "Select the text below and copy it.");
  }
}

function copyLocation() {
  return copyText(dispatcherText(shown(), address), $("copied"), $("copy-text"));
}

if (!token) {
  render();
} else {
  const sdk = new CounselorSDK({
    sessionToken: token,
    apiBaseUrl: params.get("api") || location.origin,
    wsUrl: params.get("ws") || undefined,
    onStateChange: (s) => badge("conn", CONNECTION_BADGES[s]),
    onSessionState: (s) => {
      const was = session;
      session = s;
      // A link lives only as long as its SOS: gone with a cancel or the end.
      if (s !== "sos") uris = [];
      address = sdk.patientAddress;
      badge("session", SESSION[s] || [s, ""]);
      if (s === "ended" || s === "expired") {
        clearResult();
        // The service erased the check with the location.
        check = null;
        address = null;
        return setView({ kind: s });
      }
      if (s === "active") {
        if (was === "sos") {
          // Cancelled (here or in another tab): the service erased the location.
          clearResult();
          return setView({ kind: "cancelled" });
        }
        if (view.kind !== "cancelled") return setView({ kind: "ready" });
        return render();
      }
      if (s === "sos" && !result && view.kind !== "unavailable") {
        setView({ kind: "waiting" });
        // The check's result, shown until the SOS's own fix comes.
        return void renderMap();
      }
      render();
    },
    onPSAPResults: (r) => {
      result = r;
      address = r.patient_address;
      setView({ kind: r.psaps.length ? "results" : "outside" });
      void renderMap();
    },
    onLocationUnavailable: (reason, patientAddress, lastCheck) => {
      address = patientAddress;
      if (lastCheck) check = lastCheck;
      setView({ kind: "unavailable", reason });
      void renderMap();
    },
    onLocationCheck: (latest) => {
      check = latest;
      address = latest.patient_address;
      render();
      void renderMap();
    },
    onLocationUri: (made) => {
      if (!uris.some((u) => u.uri === made.uri)) uris = [...uris, made];
      render();
    },
    onError: (err) => console.warn("counselor SDK:", err.name, err.code),
  });
  window.demo = { sdk };

  $("sos").addEventListener("click", async () => {
    setView({ kind: "sending" });
    try {
      const res = await sdk.trigger();
      // The socket may have brought the session state first (then the view is already "waiting", without
      // knowing whether the patient's page is there) or even a result: only the result wins over this answer.
      if (view.kind === "sending" || (view.kind === "waiting" && !result))
        setView({ kind: "waiting", away: !res.patient_connected });
    } catch (err) {
      setView({ kind: "failed", what: "SOS", code: err.code || "error" });
    }
  });
  $("cancel").addEventListener("click", async () => {
    try {
      await sdk.cancel();
      clearResult();
      setView({ kind: "cancelled" });
    } catch (err) {
      setView({ kind: "failed", what: "cancel", code: err.code || "error" });
    }
  });
  $("copy").addEventListener("click", () => void copyLocation());
  $("uri-make").addEventListener("click", async () => {
    $("uri-said").textContent = "";
    try {
      // The socket tells every counselor tab (onLocationUri); this answer shows it here at once.
      const made = await sdk.requestLocationUri();
      if (!uris.some((u) => u.uri === made.uri)) uris = [...uris, made];
      render();
    } catch (err) {
      $("uri-said").textContent = URI_REFUSED[err.code] || `No link was made (${err.code || "error"}).`;
    }
  });

  render();
  setInterval(refreshAges, 15_000);
  sdk.connect().catch((err) => {
    if (view.kind === "connecting") setView({ kind: "error", code: err.code || "error" });
  });
}
