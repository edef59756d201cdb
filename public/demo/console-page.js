// The counselor console: one state variable (`view`) decides the one status line; the cards show the
// latest result. Everything comes from the URL fragment (#token=...&api=...&ws=...), never sent to a server.
import { CounselorSDK } from "/sdk/counselor.js";
import {
  CONNECTION_BADGES,
  coordinatesLine,
  dispatcherText,
  firstNumber,
  jurisdictionLabel,
  nationalPhone,
  numberLabel,
  placeLine,
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

/**
 * What the console is doing now. Kinds: setup, connecting, error, ready, sending, waiting, results,
 * outside, unavailable, failed, cancelled, ended, expired. The status line is a function of it alone.
 */
let view = { kind: token ? "connecting" : "setup" };
/** The session's own state, as the service last said. */
let session = null;
/** The latest result (onPSAPResults), or null: none yet, or erased by a cancel or the end. */
let result = null;
/** The address on file for the visit, as the service last said. */
let address = null;

function statusText() {
  const hasFix = Boolean(result);
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
        : `SOS sent: waiting for the patient's location…${view.away ? " The patient's page is not connected right now: the request reaches it when it reconnects." : ""}`;
    case "results":
      return "Location received. Call the centre below.";
    case "outside":
      return `The patient is outside the United States${result?.area?.country ? ` (${result.area.country})` : ""}: no US 911 centre can send help there. The patient should dial ${firstNumber(result?.emergency)}.`;
    case "unavailable":
      return `${NO_FIX[view.reason] || view.reason} ${hasFix ? "The last location received is below. " : ""}${ask}`;
    case "failed":
      return `The ${view.what} did not go through (${view.code}). Try again.`;
    case "cancelled":
      return "SOS cancelled (false alarm): the patient's location was erased.";
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
  status.dataset.tone =
    { results: "ok", outside: "sos", unavailable: "sos", failed: "sos", error: "sos" }[view.kind] || "";
  status.textContent = statusText();
  const live = session === "active" || session === "sos";
  $("sos").disabled = !live || view.kind === "sending";
  $("sos").textContent = session === "sos" ? "Ask for the location again" : "SOS: get patient location";
  $("cancel").disabled = session !== "sos";
  renderFirst();
  renderLocation();
  renderOthers();
}

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

function renderFirst() {
  const card = $("call-first");
  const body = $("call-first-body");
  card.hidden = !result;
  if (!result) return body.replaceChildren();
  const first = result.psaps[0];
  const dial = firstNumber(result.emergency);
  if (!first) {
    body.replaceChildren(
      el("p", "No US 911 centre serves this location", {
        class: "first-name",
        "data-testid": "call-first-name",
      }),
      el(
        "p",
        `The patient, or someone with them, should dial ${dial} now: their page shows it as a button.`,
        {
          class: "first-why",
          "data-testid": "call-first-why",
        },
      ),
      numbersLine(result.emergency),
    );
    return;
  }
  const parts = [
    el("p", first.name, { class: "first-name", "data-testid": "call-first-name" }),
    el(
      "p",
      [
        [first.city, first.state].filter(Boolean).join(", "),
        jurisdictionLabel(first.jurisdiction),
        `${first.distance_km.toFixed(1)} km away`,
      ]
        .filter(Boolean)
        .join(" · "),
      { class: "muted" },
    ),
    el("p", whyChosen(first, result.area), { class: "first-why", "data-testid": "call-first-why" }),
  ];
  if (first.phone) {
    const call = el("p", null, { class: "row" });
    call.append(
      el("a", `Call ${nationalPhone(first.phone)}`, {
        class: "call",
        href: telHref(first.phone),
        "data-testid": "call-first-phone",
      }),
      el(
        "span",
        first.phone_kind === "emergency"
          ? "rings the 911 floor"
          : "business line: say it is an emergency and ask for the 911 dispatcher",
        { class: "muted" },
      ),
    );
    parts.push(call);
  } else {
    const box = el("div", null, { class: "nonumber", "data-testid": "call-first-no-number" });
    box.append(el("p", "No phone number on file for this centre. Instead:", { class: "strong" }));
    const steps = el("ol");
    steps.append(
      el(
        "li",
        `Ask the patient, or someone with them, to dial ${dial} now: their page shows it as a button. That call reaches this centre.`,
      ),
      el(
        "li",
        `To reach the centre yourself, give its name, “${first.name}, ${[first.city, first.state].filter(Boolean).join(", ")}”, to a relay service or directory assistance, or look up its 10-digit emergency line.`,
      ),
    );
    box.append(steps);
    parts.push(box);
  }
  parts.push(numbersLine(result.emergency));
  body.replaceChildren(...parts);
}

function fact(term, value, testid) {
  const wrap = el("div");
  wrap.append(el("dt", term), el("dd", value, testid ? { "data-testid": testid } : {}));
  return wrap;
}

function renderLocation() {
  const card = $("patient-location");
  // Shown with a fix, or when none is coming and there is an address to give instead.
  card.hidden = !result && !(view.kind === "unavailable" && address);
  if (card.hidden) return;
  const facts = [];
  if (result) {
    facts.push(fact("Where", placeLine(result.area) || "not known", "location-place"));
    if (result.location) facts.push(fact("GPS", coordinatesLine(result.location), "location-coordinates"));
  } else facts.push(fact("Where", "not shared: ask the patient"));
  facts.push(fact("Address on file", address || "none", "location-address"));
  if (result) facts.push(fact("Received", new Date(result.computed_at).toLocaleTimeString()));
  $("where").replaceChildren(...facts);
}

function renderOthers() {
  const others = result ? result.psaps.slice(1) : [];
  $("others").hidden = others.length === 0;
  $("psaps").replaceChildren(
    ...others.map((p) => {
      const li = el("li");
      li.append(el("strong", p.name));
      li.append(
        el(
          "span",
          [
            jurisdictionLabel(p.jurisdiction),
            [p.city, p.state].filter(Boolean).join(", "),
            `${p.distance_km.toFixed(1)} km`,
          ]
            .filter(Boolean)
            .join(" · "),
          { class: "muted" },
        ),
      );
      li.append(
        p.phone
          ? el("a", nationalPhone(p.phone), { href: telHref(p.phone), class: "tel" })
          : el("span", "no number on file", { class: "muted" }),
      );
      li.append(el("span", whyChosen(p, result.area)));
      return li;
    }),
  );
  $("meta").textContent = result ? `Data: ${result.data_version}` : "";
}

async function renderMap() {
  const card = $("map-card");
  // The outlines are US counties: abroad the map would be a lone dot.
  card.hidden = !result?.location || result.area?.country !== "US";
  if (card.hidden) return $("plot").replaceChildren();
  const shown = result;
  const label = await drawMap($("plot"), shown);
  // A newer result (or a cancel) while the shapes loaded: the newer call draws.
  if (shown !== result) return;
  $("plot").setAttribute("aria-label", `Map. ${label}`);
  $("map-caption").textContent = label;
}

function clearResult() {
  result = null;
  $("copied").textContent = "";
  $("copy-text").hidden = true;
  void renderMap();
}

async function copyLocation() {
  const text = dispatcherText(result, address);
  const done = (msg) => ($("copied").textContent = msg);
  try {
    await navigator.clipboard.writeText(text);
    $("copy-text").hidden = true;
    done("Copied: paste it, or read it out to the dispatcher.");
  } catch {
    // No clipboard API or no permission: copy from a selected text box, or let the counselor do it.
    const box = $("copy-text");
    box.value = text;
    box.hidden = false;
    box.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    done(ok ? "Copied: paste it, or read it out to the dispatcher." : "Select the text below and copy it.");
  }
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
      address = sdk.patientAddress;
      badge("session", SESSION[s] || [s, ""]);
      if (s === "ended" || s === "expired") {
        clearResult();
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
      if (s === "sos" && !result && view.kind !== "unavailable") return setView({ kind: "waiting" });
      render();
    },
    onPSAPResults: (r) => {
      result = r;
      address = r.patient_address;
      setView({ kind: r.psaps.length ? "results" : "outside" });
      void renderMap();
    },
    onLocationUnavailable: (reason, patientAddress) => {
      address = patientAddress;
      setView({ kind: "unavailable", reason });
    },
    onError: (err) => console.warn("counselor SDK:", err.name, err.code),
  });
  window.demo = { sdk };

  $("sos").addEventListener("click", async () => {
    setView({ kind: "sending" });
    try {
      const res = await sdk.trigger();
      // The socket may have brought the session state (or even a result) first.
      if (view.kind === "sending") setView({ kind: "waiting", away: !res.patient_connected });
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

  render();
  sdk.connect().catch((err) => {
    if (view.kind === "connecting") setView({ kind: "error", code: err.code || "error" });
  });
}
