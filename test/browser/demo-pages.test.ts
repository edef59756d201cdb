// The demo pages in the worst minute, in headless Chromium against `npm run dev` (the real FCC data):
// the console's call action (a tel: button, or a script to follow when no number is on file) inside the
// first screen at 360 and 1280 px, the patient's location and its copy button, county equivalents by
// their own names, honest distances, the map's markers, the patient page's number to call and honest
// location status, a patient abroad, and axe-core on both pages at both widths.
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDevVars } from "../../scripts/dev-vars.ts";
import type { SessionCreateResponse } from "../../sdk/src/protocol.ts";
import { launchChromium, ROOT, type Service, startService, waitFor } from "./harness.ts";
import { axeViolations, byId, inFirstScreen, text } from "./page-checks.ts";

/** Hazel Crest, Illinois: Southland Dispatch Center (FCC 8927) answers inside its city limits. */
const HAZEL_CREST = { latitude: 41.5725, longitude: -87.6945, accuracy: 25 };
const SOUTHLAND = "8927";
/** A fictional number (555) the test puts in the contact directory for Southland, and removes after. */
const SOUTHLAND_PHONE = "+17085551234";
/** Evanston, Illinois: its police department answers, and no number is on file for it. */
const EVANSTON = { latitude: 42.0451, longitude: -87.6877, accuracy: 30 };
/** London: outside the US, so no PSAP, and the UK's numbers. */
const LONDON = { latitude: 51.5074, longitude: -0.1278, accuracy: 40 };
/** Downtown Anchorage: the county equivalent is a municipality, the PSAP registered at the city's point. */
const ANCHORAGE = { latitude: 61.2176, longitude: -149.8997, accuracy: 20 };
/** Old San Juan, Puerto Rico: a municipio, whose places are all census-designated. */
const SAN_JUAN = { latitude: 18.4655, longitude: -66.1057, accuracy: 20 };
/** Cambridge, Massachusetts: its Emergency Communications (FCC 3163) answers; the test gives it only a business line. */
const CAMBRIDGE = { latitude: 42.3736, longitude: -71.1097, accuracy: 25 };
const CAMBRIDGE_ECC = "3163";
const CAMBRIDGE_BUSINESS_PHONE = "+16175550142";
/** Downtown Boston: several centres registered at the same city point. */
const BOSTON = { latitude: 42.3601, longitude: -71.0589, accuracy: 20 };
const ADDRESS = "17000 S Kedzie Ave, Hazel Crest, IL 60429";
/** A small phone's first screen, and a laptop's. */
const PHONE = { width: 360, height: 640 };
const DESKTOP = { width: 1280, height: 720 };
/** The call action's red (var(--sos)). */
const RED = "rgb(180, 35, 24)";

let service: Service;
let browser: Browser;
let adminToken = "";
const contexts: BrowserContext[] = [];

async function admin(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${service.apiBase}/v1/admin${path}`, {
    method,
    headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function newSession(patientAddress?: string): Promise<SessionCreateResponse> {
  // startSession has no address option: the platform's server sends it in the body itself.
  const res = await fetch(`${service.apiBase}/v1/platforms/${service.platformId}/sessions`, {
    method: "POST",
    headers: { "X-API-Key": service.apiKey, "Content-Type": "application/json" },
    body: JSON.stringify({
      meeting_id: `meeting-${Date.now()}`,
      counselor_id: "counselor-1",
      patient_id: "patient-1",
      ...(patientAddress ? { patient_address: patientAddress } : {}),
    }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as SessionCreateResponse;
}

async function newPage(options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, ...options });
  contexts.push(context);
  const page = await context.newPage();
  page.on("pageerror", (err) => console.error("page error:", err.message));
  return page;
}

function geo(position: typeof HAZEL_CREST, extra: BrowserContextOptions = {}): BrowserContextOptions {
  return { geolocation: position, permissions: ["geolocation"], ...extra };
}

function demoUrl(page: "counselor" | "patient", token: string): string {
  return `${service.pageBase}/demo/${page}.html#${new URLSearchParams({ token, api: service.apiBase })}`;
}

const state = (page: Page, id: string) => page.locator(byId(id)).getAttribute("data-state");

/** Every status a page showed, recorded in the page as it changes (so a flash of a wrong one is caught). */
async function recordStatuses(page: Page, id: string): Promise<() => Promise<string[]>> {
  await page.evaluate((testid) => {
    const el = document.querySelector(`[data-testid="${testid}"]`) as HTMLElement;
    const w = window as unknown as { seen: string[] };
    w.seen = [`${el.dataset.state}|${el.textContent}`];
    new MutationObserver(() => w.seen.push(`${el.dataset.state}|${el.textContent}`)).observe(el, {
      attributes: true,
      childList: true,
      characterData: true,
      subtree: true,
    });
  }, id);
  return () => page.evaluate(() => (window as unknown as { seen: string[] }).seen);
}

/** Both pages open and connected on a fresh session; the patient's context has the given options. */
async function openPair(patientOptions: BrowserContextOptions, address?: string, consoleOptions = {}) {
  const session = await newSession(address);
  const counselor = await newPage(consoleOptions);
  const patient = await newPage(patientOptions);
  await counselor.goto(demoUrl("counselor", session.counselor_token));
  await patient.goto(demoUrl("patient", session.patient_token));
  await waitFor("the console to connect", async () => (await text(counselor, "#conn")) === "connected");
  await waitFor("the patient page to connect", async () => (await text(patient, "#conn")) === "connected");
  await waitFor(
    "the console to be ready",
    async () => (await state(counselor, "console-status")) === "ready",
  );
  return { session, counselor, patient };
}

async function sos(counselor: Page, until: string): Promise<void> {
  await counselor.click(byId("sos-trigger"));
  await waitFor(
    `the console to show "${until}"`,
    async () => (await state(counselor, "console-status")) === until,
    30_000,
  );
}

const noSidewaysScroll = (page: Page) =>
  page.evaluate(() => (document.scrollingElement ?? document.documentElement).scrollWidth);

/** The call action is on the first screen at phone and desktop width. */
async function expectCallActionOnFirstScreen(page: Page): Promise<void> {
  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size);
    const where = await inFirstScreen(page, "call-action");
    expect(where.inside, `call action at ${size.width}×${size.height}: ${where.rect}`).toBe(true);
  }
}

const background = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) => getComputedStyle(el).backgroundColor);

/** Where the docs' screenshots go: docs/ with UPDATE_SCREENSHOTS=1, else test-results/ (git-ignored). */
function shotPath(name: string): string {
  const dir = join(ROOT, process.env.UPDATE_SCREENSHOTS ? "docs" : "test-results");
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

beforeAll(async () => {
  service = await startService();
  browser = await launchChromium();
  adminToken = parseDevVars(readFileSync(join(ROOT, ".dev.vars"), "utf8")).ADMIN_TOKEN ?? "";
  // Before any lookup of this server, so the contact cache reads it at once.
  const put = await admin("PUT", `/psaps/${SOUTHLAND}/contact`, {
    phone: SOUTHLAND_PHONE,
    phone_kind: "emergency",
    source: "browser test: a fictional 555 number",
  });
  expect(put.status).toBe(200);
  const business = await admin("PUT", `/psaps/${CAMBRIDGE_ECC}/contact`, {
    phone: CAMBRIDGE_BUSINESS_PHONE,
    phone_kind: "administrative",
    source: "browser test: a fictional 555 number",
  });
  expect(business.status).toBe(200);
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close().catch(() => {});
  if (service && adminToken) {
    await admin("DELETE", `/psaps/${SOUTHLAND}/contact`).catch(() => {});
    await admin("DELETE", `/psaps/${CAMBRIDGE_ECC}/contact`).catch(() => {});
  }
  await service?.stop();
});

describe("the counselor console in the worst minute", () => {
  it("puts a tel: button that says what it rings on the first screen; the location in words; copies it for the dispatcher", async () => {
    const { counselor, patient } = await openPair(
      geo(HAZEL_CREST, { viewport: { width: 390, height: 844 } }),
      ADDRESS,
      { viewport: PHONE, permissions: ["clipboard-read", "clipboard-write"] },
    );
    const patientStatuses = await recordStatuses(patient, "location-status");
    expect(await state(patient, "location-status")).toBe("waiting");
    expect(await patient.locator(byId("emergency-call")).getAttribute("href")).toBe("tel:911");
    expect(await counselor.locator(byId("call-first")).isVisible()).toBe(false);
    // Before an SOS the red control is the SOS button.
    expect(await background(counselor, byId("sos-trigger"))).toBe(RED);

    await sos(counselor, "results");
    const card = counselor.locator(byId("call-first"));
    expect(await card.isVisible()).toBe(true);
    expect(await text(counselor, byId("console-status"))).toBe("Location received. Call the centre below.");
    expect(await text(counselor, byId("call-first-name"))).toBe("Southland Dispatch Center");
    expect(await text(counselor, byId("call-first-why"))).toBe(
      "It answers 911 calls inside the city limits of Hazel Crest, where the patient is.",
    );
    expect(await text(counselor, "#call-first")).toMatch(/regional 911 centre/);
    const phone = counselor.locator(`${byId("call-action")} ${byId("call-first-phone")}`);
    expect(await phone.getAttribute("href")).toBe(`tel:${SOUTHLAND_PHONE}`);
    expect(await phone.textContent()).toBe("Call its 911 line: (708) 555-1234");
    expect(await text(counselor, byId("call-action"))).toContain("Rings the centre's 911 floor directly.");
    // What the line is, when it was checked and where it comes from, under the button.
    const kind = await text(counselor, byId("line-kind"));
    expect(kind).toContain("Emergency line, rings the 911 floor");
    expect(kind).toMatch(/checked \d{4}-\d{2}-\d{2}, set by this service's operator/);
    expect(kind).toContain("source: browser test: a fictional 555 number");
    expect(await counselor.locator(byId("console-status")).getAttribute("data-tone")).toBe("ok");
    expect(await counselor.locator(byId("copy-call-script")).count()).toBe(0);
    // After the SOS the red, dominant control is the call; asking again is secondary.
    expect(await background(counselor, byId("call-first-phone"))).toBe(RED);
    expect(await text(counselor, byId("sos-trigger"))).toBe("Ask for the location again");
    expect(await background(counselor, byId("sos-trigger"))).not.toBe(RED);
    await expectCallActionOnFirstScreen(counselor);
    expect(await counselor.locator(byId("no-numbers-note")).isVisible()).toBe(false);
    expect(await text(counselor, byId("emergency-numbers"))).toMatch(
      /911 \(all services\).*988 \(crisis line\)/,
    );

    const where = await text(counselor, byId("patient-location"));
    expect(where).toContain("Hazel Crest (city), Cook County, IL, US");
    expect(where).toContain("41.57250, -87.69450 (±25 m)");
    expect(where).toContain(ADDRESS);
    expect(await counselor.locator("#psaps li").count()).toBeGreaterThan(0);
    // The map: county outlines around the fix, and the patient's county named.
    await waitFor(
      "county outlines on the map",
      async () => (await counselor.locator("#plot path").count()) > 1,
    );
    await waitFor("the map caption", async () =>
      (await text(counselor, "#map-caption")).includes("Cook County"),
    );

    await counselor.click(byId("copy-location"));
    await waitFor("the copy to be confirmed", async () =>
      (await text(counselor, "#copied")).startsWith("Copied"),
    );
    const copied = await counselor.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain("Where: Hazel Crest (city), Cook County, IL, US");
    expect(copied).toContain("GPS: 41.57250, -87.69450 (latitude, longitude, accuracy ±25 m)");
    expect(copied).toContain(`Address on file: ${ADDRESS}`);
    expect(copied).toContain(
      "Answering 911 centre: Southland Dispatch Center (Hazel Crest, IL, (708) 555-1234 (Emergency line, rings the 911 floor))",
    );

    // The patient page: shared only now that a result came back; never before.
    await waitFor(
      "the patient page to say shared",
      async () => (await state(patient, "location-status")) === "shared",
    );
    const seen = await patientStatuses();
    expect(seen[0]).toMatch(/^waiting\|/);
    // Waiting until the result came back, shared from then on.
    const firstShared = seen.findIndex((s) => s.startsWith("shared"));
    expect(firstShared).toBeGreaterThan(0);
    expect(seen.slice(0, firstShared).every((s) => s.startsWith("waiting"))).toBe(true);
    expect(seen.slice(firstShared).every((s) => s.startsWith("shared"))).toBe(true);
    expect(await patient.locator(byId("emergency-call")).getAttribute("href")).toBe("tel:911");
    expect(await noSidewaysScroll(patient)).toBeLessThanOrEqual(390);
    // The patient page's distances are as exact as the centres' positions (city or county points).
    const centres = await text(patient, "#centres");
    expect(centres).toContain("(708) 555-1234");
    expect(centres).toContain("Emergency line, rings the 911 floor");
    expect(centres).not.toMatch(/\d+\.\d km/);

    // A cancel: one status, the card gone, SOS red again.
    await counselor.click("#cancel");
    await waitFor(
      "the console to say cancelled",
      async () => (await state(counselor, "console-status")) === "cancelled",
    );
    expect(await card.isVisible()).toBe(false);
    expect(await background(counselor, byId("sos-trigger"))).toBe(RED);
    await waitFor(
      "the patient page to stop saying shared",
      async () => (await state(patient, "location-status")) === "waiting",
    );
  });

  it("gives the counselor a location link for the call during an SOS: its expiry, a copy button, what it is for; gone with the SOS", async () => {
    const { counselor } = await openPair(geo(HAZEL_CREST), undefined, {
      viewport: PHONE,
      permissions: ["clipboard-read", "clipboard-write"],
    });
    expect(await counselor.locator(byId("location-uri")).isVisible()).toBe(false);
    await sos(counselor, "results");
    expect(await text(counselor, "#location-uri-what")).toMatch(/phone system or the 911 centre's equipment/);
    await counselor.click(byId("location-uri-make"));
    const shown = await waitFor("the link to be shown", async () =>
      (await counselor.locator(byId("location-uri-value")).count()) === 1
        ? text(counselor, byId("location-uri-value"))
        : "",
    );
    expect(shown).toMatch(new RegExp(`^${service.apiBase}/held/[A-Za-z0-9_-]{80}$`));
    expect(await text(counselor, byId("location-uri-expiry"))).toMatch(/^expires \d{1,2}:\d{2}/);
    expect(await noSidewaysScroll(counselor)).toBeLessThanOrEqual(PHONE.width);
    await counselor.click(`${byId("location-uri-item")} button`);
    await waitFor(
      "the copy to be confirmed",
      async () => (await text(counselor, "#uri-said")) === "Link copied.",
    );
    expect(await counselor.evaluate(() => navigator.clipboard.readText())).toBe(shown);
    await counselor.screenshot({ path: shotPath("counselor-location-link-360.png"), fullPage: true });
    // What the call's equipment reads from it: the patient's fix, as PIDF-LO.
    const pidf = await (await fetch(shown)).text();
    expect(pidf).toContain("<gml:pos>41.5725 -87.6945</gml:pos>");
    await counselor.click("#cancel");
    await waitFor(
      "the link card to go",
      async () => !(await counselor.locator(byId("location-uri")).isVisible()),
    );
    expect((await fetch(shown)).status).toBe(404);
  });

  it("with no number on file, puts a call script with a copy button on the first screen, and tells the operator", async () => {
    const { counselor, patient } = await openPair(geo(EVANSTON, { viewport: PHONE }), ADDRESS, {
      viewport: PHONE,
      permissions: ["clipboard-read", "clipboard-write"],
    });
    await sos(counselor, "results");
    expect(await text(counselor, byId("console-status"))).toBe(
      "Location received. No number on file: follow the script below.",
    );
    expect(await text(counselor, byId("call-first-name"))).toBe("Evanston Police Department");
    expect(await counselor.locator(byId("call-first-phone")).count()).toBe(0);
    // "No number on file" is no success: not in the success colour.
    expect(await counselor.locator(byId("console-status")).getAttribute("data-tone")).toBe("warn");
    const action = await text(counselor, byId("call-action"));
    expect(action).toContain("No number on file. Do this now:");
    expect(action).toContain(
      "Ask the patient, or someone with them, to dial 911 now if they can: their page has the button.",
    );
    expect(action).toContain(
      "If they cannot: call 911 where you are, say the patient is in Evanston, Cook County, IL, and ask to be transferred to Evanston Police Department, Cook County, IL.",
    );
    // The red, dominant control is the script's copy button.
    expect(await background(counselor, byId("copy-call-script"))).toBe(RED);
    expect(await background(counselor, byId("sos-trigger"))).not.toBe(RED);
    await expectCallActionOnFirstScreen(counselor);
    await counselor.setViewportSize(PHONE);
    expect((await inFirstScreen(counselor, "copy-call-script")).inside).toBe(true);
    // A distance to a city's point is not given as an exact figure.
    expect(await text(counselor, "#call-first")).toContain("registered in Evanston, where the patient is");
    expect(await text(counselor, "#call-first")).not.toMatch(/\d+\.\d km/);
    // For the operator: no numbers on file, and where to load them.
    const note = counselor.locator(byId("no-numbers-note"));
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toMatch(/No numbers on file:.*load the directory/s);

    await counselor.click(byId("copy-call-script"));
    await waitFor("the script on the clipboard", async () =>
      (await counselor.evaluate(() => navigator.clipboard.readText())).startsWith("Call script"),
    );
    const script = (await counselor.evaluate(() => navigator.clipboard.readText())).split("\n");
    expect(script[1]).toMatch(/^1\. Ask the patient, or someone with them, to dial 911 now/);
    expect(script[2]).toMatch(/^2\. If they cannot: call 911 where you are/);
    expect(script).toContain("Where: Evanston (city), Cook County, IL, US");
    expect(script).toContain(`Address on file: ${ADDRESS}`);
    expect(script.some((line) => line.startsWith("GPS: 42.04510, -87.68770"))).toBe(true);

    // The first screens the docs show: the console at 360 and 1280 px, the patient page beside it.
    await waitFor("the map caption", async () => (await text(counselor, "#map-caption")) !== "");
    await counselor.screenshot({ path: shotPath("counselor-console-360.png") });
    await patient.screenshot({ path: shotPath("patient-page-360.png") });
    await counselor.setViewportSize(DESKTOP);
    await patient.setViewportSize(DESKTOP);
    await counselor.screenshot({ path: shotPath("counselor-console-1280.png"), fullPage: true });
    await patient.screenshot({ path: shotPath("patient-page-1280.png"), fullPage: true });

    // A browser that refuses the clipboard API: the location falls back to a selected text box.
    await counselor.evaluate(() => {
      Object.defineProperty(navigator, "clipboard", {
        value: { writeText: () => Promise.reject(new Error("denied")) },
        configurable: true,
      });
    });
    await counselor.click(byId("copy-location"));
    const box = counselor.locator("#copy-text");
    await waitFor("the fallback text box", () => box.isVisible());
    expect(await box.inputValue()).toContain("Where: Evanston (city), Cook County, IL, US");
    expect(await box.inputValue()).toContain(
      "Answering 911 centre: Evanston Police Department (Evanston, IL, no number on file)",
    );
    expect(await text(counselor, "#copied")).not.toBe("");
  });

  it("with only a business line on file, keeps the transfer path first and offers the business line second", async () => {
    const { counselor } = await openPair(geo(CAMBRIDGE, { viewport: PHONE }), ADDRESS, {
      viewport: PHONE,
      permissions: ["clipboard-read", "clipboard-write"],
    });
    await sos(counselor, "results");
    expect(await text(counselor, byId("console-status"))).toBe(
      "Location received. No 24/7 line on file: follow the script below.",
    );
    expect(await counselor.locator(byId("console-status")).getAttribute("data-tone")).toBe("warn");
    expect(await text(counselor, byId("call-first-name"))).toBe("Cambridge Emergency Communications");
    // No tel: button for a line that may ring out at night.
    expect(await counselor.locator(byId("call-first-phone")).count()).toBe(0);
    const action = await text(counselor, byId("call-action"));
    expect(action).toContain("No 24/7 line on file. Do this now:");
    const steps = await counselor.locator(`${byId("call-first-no-number")} li`).allTextContents();
    expect(steps[1]).toMatch(/^If they cannot: call 911 where you are/);
    expect(steps[2]).toBe("If the transfer fails: business line (617) 555-0142, may not answer at night.");
    expect(await text(counselor, byId("line-kind"))).toContain("Business line: may not answer at night");
    await expectCallActionOnFirstScreen(counselor);
    await counselor.setViewportSize(PHONE);
    await counselor.click(byId("copy-call-script"));
    await waitFor("the script on the clipboard", async () =>
      (await counselor.evaluate(() => navigator.clipboard.readText())).startsWith("Call script"),
    );
    const copied = await counselor.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain("3. If the transfer fails: business line (617) 555-0142");
  });

  it("says at once that the patient's page is not connected, with the transfer path and the address on file", async () => {
    const session = await newSession(ADDRESS);
    const counselor = await newPage({ viewport: PHONE });
    await counselor.goto(demoUrl("counselor", session.counselor_token));
    await waitFor(
      "the console to be ready",
      async () => (await state(counselor, "console-status")) === "ready",
    );
    await counselor.click(byId("sos-trigger"));
    // Long before the 30 s deadline: the trigger's own answer says no patient page is connected.
    await waitFor("the console to say the patient's page is away", async () =>
      (await text(counselor, byId("console-status"))).includes(
        "The patient's page is not connected right now",
      ),
    );
    const action = await text(counselor, byId("call-action"));
    expect(action).toContain("The patient's page is not connected. Do this now:");
    expect(action).toContain(`give the address on file (${ADDRESS})`);
    expect(await state(counselor, "console-status")).toBe("waiting");
    await expectCallActionOnFirstScreen(counselor);
  });

  it("names county equivalents by their own words and distances as exact as the centre's position", async () => {
    const anchorage = await openPair(geo(ANCHORAGE));
    await sos(anchorage.counselor, "results");
    const alaska = `${await text(anchorage.counselor, "#call-first")}\n${await text(anchorage.counselor, byId("patient-location"))}\n${await text(anchorage.counselor, "#others")}`;
    expect(alaska).toContain("Anchorage (city), Municipality of Anchorage, AK, US");
    expect(alaska).toContain("registered in Anchorage, where the patient is");
    expect(alaska).not.toMatch(/Anchorage County|Anchorage Borough|\d+\.\d km/);

    const sanJuan = await openPair(geo(SAN_JUAN));
    await sos(sanJuan.counselor, "results");
    const pr = `${await text(sanJuan.counselor, "#call-first")}\n${await text(sanJuan.counselor, byId("patient-location"))}`;
    expect(pr).toContain("San Juan, PR (municipio)");
    expect(pr).toContain("the municipio of San Juan");
    expect(pr).not.toMatch(/San Juan County|unincorporated|statewide/);
  });

  it("draws the centre to call first on top on the map, and keeps markers at one spot apart", async () => {
    const { counselor } = await openPair(geo(BOSTON));
    await sos(counselor, "results");
    await waitFor("the markers", async () => (await counselor.locator("#plot text").count()) > 1);
    const markers = await counselor.evaluate(() =>
      [...document.querySelectorAll("#plot circle")]
        .filter((c) => ["#b42318", "#5b6675"].includes(c.getAttribute("fill") ?? ""))
        .map((c) => ({
          x: Number(c.getAttribute("cx")),
          y: Number(c.getAttribute("cy")),
          r: Number(c.getAttribute("r")),
          first: c.getAttribute("fill") === "#b42318",
        })),
    );
    expect(markers.length).toBeGreaterThan(1);
    // Drawn last: nothing covers it.
    expect(markers.at(-1)?.first).toBe(true);
    expect(markers.filter((m) => m.first)).toHaveLength(1);
    for (const a of markers)
      for (const b of markers)
        if (a !== b) expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeGreaterThanOrEqual(a.r + b.r);
  });

  it("a refused geolocation: the patient page says unavailable (never shared), the console says so once, with the address on file", async () => {
    const { counselor, patient } = await openPair({}, ADDRESS); // no geolocation permission
    const consoleStatuses = await recordStatuses(counselor, "console-status");
    const patientStatuses = await recordStatuses(patient, "location-status");
    await counselor.click(byId("sos-trigger"));
    await waitFor(
      "the console to hear that no location is coming",
      async () => (await state(counselor, "console-status")) === "unavailable",
      20_000,
    );
    await waitFor(
      "the patient page to say unavailable",
      async () => (await state(patient, "location-status")) === "unavailable",
    );
    const status = await text(counselor, byId("console-status"));
    expect(status).toMatch(/refused to share the location/);
    expect(status).toContain(ADDRESS);
    expect(status).not.toMatch(/waiting/i);
    expect(await text(counselor, byId("patient-location"))).toContain(ADDRESS);
    expect(await counselor.locator(byId("call-first")).isVisible()).toBe(false);
    // A moment later nothing has changed its mind.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await state(counselor, "console-status")).toBe("unavailable");
    const seenConsole = (await consoleStatuses()).map((s) => s.split("|")[0]);
    expect(seenConsole.at(-1)).toBe("unavailable");
    expect(seenConsole).not.toContain("results");
    const seenPatient = await patientStatuses();
    expect(seenPatient.some((s) => s.startsWith("shared") || /was shared/.test(s))).toBe(false);
    expect(await text(patient, byId("location-status"))).toMatch(/could not be shared/);
  });

  it("a patient abroad: the patient page dials the country's number, the console says whom the patient should call", async () => {
    const { counselor, patient } = await openPair(geo(LONDON));
    await sos(counselor, "outside");
    expect(await text(counselor, byId("console-status"))).toMatch(
      /outside the United States \(GB\).*dial 999/,
    );
    expect(await text(counselor, byId("call-first-name"))).toBe("No US 911 centre serves there");
    expect(await text(counselor, byId("call-first-why"))).toMatch(/should dial 999 now/);
    // The call action abroad: the patient's own call, and what to do if they cannot make it.
    const action = await text(counselor, byId("call-action"));
    expect(action).toContain("to dial 999 now if they can (United Kingdom)");
    expect(action).toContain("call your own emergency number, give the patient's country (United Kingdom)");
    expect(await counselor.locator(byId("copy-call-script")).isVisible()).toBe(true);
    await expectCallActionOnFirstScreen(counselor);
    expect(await text(counselor, byId("emergency-numbers"))).toMatch(/\(GB\).*999 \(all services\).*112/);
    expect(await counselor.locator("#psaps li").count()).toBe(0);
    expect(await counselor.locator("#others").isVisible()).toBe(false);
    expect(await text(counselor, byId("patient-location"))).toContain("United Kingdom (GB)");
    expect(await counselor.locator("#map-card").isVisible()).toBe(false);

    await waitFor(
      "the patient page to offer 999",
      async () => (await patient.locator(byId("emergency-call")).getAttribute("href")) === "tel:999",
    );
    expect(await text(patient, byId("emergency-call"))).toBe("Call 999");
    expect(await state(patient, "location-status")).toBe("shared");
  });
});

describe("both pages at phone width and for assistive technology", () => {
  it("have no sideways scroll at 360 and 390 px and pass axe-core (no serious or critical violation) at 360 and 1280 px, before and after an SOS", async () => {
    const { counselor, patient } = await openPair(geo(EVANSTON), ADDRESS);
    const pages = { counselor, patient };
    /** axe at both widths, each page; the violations by width and page. */
    const axeAtBothWidths = async (when: string) => {
      const found: string[] = [];
      for (const size of [PHONE, DESKTOP])
        for (const [name, page] of Object.entries(pages)) {
          await page.setViewportSize(size);
          for (const v of await axeViolations(page)) found.push(`${when}, ${name} at ${size.width} px: ${v}`);
        }
      return found;
    };
    expect(await axeAtBothWidths("before the SOS")).toEqual([]);
    await sos(counselor, "results");
    await waitFor(
      "the patient page to say shared",
      async () => (await state(patient, "location-status")) === "shared",
    );
    // With every card shown: the call script, the location, the map, the others, the operator's note.
    expect(await axeAtBothWidths("after the SOS")).toEqual([]);
    for (const width of [360, 390]) {
      for (const page of [counselor, patient]) {
        await page.setViewportSize({ width, height: 800 });
        expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(width);
      }
    }
    // The patient's call button is on the first screen of a phone too.
    await patient.setViewportSize(PHONE);
    expect((await inFirstScreen(patient, "emergency-call")).inside).toBe(true);
  });
});
