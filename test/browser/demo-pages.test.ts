// The demo pages in the worst minute, in headless Chromium against `npm run dev` (the real FCC data):
// the console's call-first card, the patient's location and its copy button, the patient page's number
// to call and honest location status, a patient abroad, phone widths, and axe-core on both pages.
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDevVars } from "../../scripts/dev-vars.ts";
import type { SessionCreateResponse } from "../../sdk/src/protocol.ts";
import { launchChromium, ROOT, type Service, startService, waitFor } from "./harness.ts";

/** Hazel Crest, Illinois: Southland Dispatch Center (FCC 8927) answers inside its city limits. */
const HAZEL_CREST = { latitude: 41.5725, longitude: -87.6945, accuracy: 25 };
const SOUTHLAND = "8927";
/** A fictional number (555) the test puts in the contact directory for Southland, and removes after. */
const SOUTHLAND_PHONE = "+17085551234";
/** Evanston, Illinois: its police department answers, and no number is on file for it. */
const EVANSTON = { latitude: 42.0451, longitude: -87.6877, accuracy: 30 };
/** London: outside the US, so no PSAP, and the UK's numbers. */
const LONDON = { latitude: 51.5074, longitude: -0.1278, accuracy: 40 };
const ADDRESS = "17000 S Kedzie Ave, Hazel Crest, IL 60429";
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

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

const text = async (page: Page, selector: string) =>
  ((await page.locator(selector).textContent()) ?? "").trim();
const byId = (id: string) => `[data-testid="${id}"]`;
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

/** axe-core in the page: the serious and critical violations, by rule and target. */
async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: () => Promise<{ violations: AxeViolation[] }> } }).axe;
    const { violations } = await axe.run();
    return violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
  return found;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}

const noSidewaysScroll = (page: Page) =>
  page.evaluate(() => (document.scrollingElement ?? document.documentElement).scrollWidth);

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
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close().catch(() => {});
  if (service && adminToken) await admin("DELETE", `/psaps/${SOUTHLAND}/contact`).catch(() => {});
  await service?.stop();
});

describe("the counselor console in the worst minute", () => {
  it("shows whom to call first, why, and its number; the patient's location in words; copies it for the dispatcher", async () => {
    const { counselor, patient } = await openPair(
      geo(HAZEL_CREST, { viewport: { width: 390, height: 844 } }),
      ADDRESS,
      { permissions: ["clipboard-read", "clipboard-write"] },
    );
    const patientStatuses = await recordStatuses(patient, "location-status");
    expect(await state(patient, "location-status")).toBe("waiting");
    expect(await patient.locator(byId("emergency-call")).getAttribute("href")).toBe("tel:911");
    expect(await counselor.locator(byId("call-first")).isVisible()).toBe(false);

    await sos(counselor, "results");
    const card = counselor.locator(byId("call-first"));
    expect(await card.isVisible()).toBe(true);
    expect(await text(counselor, byId("call-first-name"))).toBe("Southland Dispatch Center");
    expect(await text(counselor, byId("call-first-why"))).toBe(
      "It answers 911 calls inside the city limits of Hazel Crest, where the patient is.",
    );
    expect(await text(counselor, "#call-first")).toMatch(/regional 911 centre/);
    const phone = counselor.locator(byId("call-first-phone"));
    expect(await phone.getAttribute("href")).toBe(`tel:${SOUTHLAND_PHONE}`);
    expect(await phone.textContent()).toContain("(708) 555-1234");
    expect(await counselor.locator(byId("call-first-no-number")).count()).toBe(0);
    expect(await text(counselor, byId("emergency-numbers"))).toMatch(
      /911 \(all services\).*988 \(crisis line\)/,
    );

    const where = await text(counselor, byId("patient-location"));
    expect(where).toContain("Hazel Crest (city), Cook County, IL, US");
    expect(where).toContain("41.57250, -87.69450 (±25 m)");
    expect(where).toContain(ADDRESS);
    expect(await counselor.locator("#psaps li").count()).toBeGreaterThan(0);
    expect(await text(counselor, "#psaps li:first-child")).toMatch(/\d+\.\d km/);
    // The map: county outlines around the fix, and the patient's county named.
    // (drawn once the state's outlines are fetched)
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
      "Answering 911 centre: Southland Dispatch Center (Hazel Crest, IL, (708) 555-1234)",
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

    // test-results/ is git-ignored; UPDATE_SCREENSHOTS=1 refreshes the README's copies in docs/.
    const shotDir = join(ROOT, process.env.UPDATE_SCREENSHOTS ? "docs" : "test-results");
    mkdirSync(shotDir, { recursive: true });
    await counselor.screenshot({ path: join(shotDir, "counselor-console.png"), fullPage: true });
    await patient.screenshot({ path: join(shotDir, "patient-page.png"), fullPage: true });

    // A cancel: one status, the card gone.
    await counselor.click("#cancel");
    await waitFor(
      "the console to say cancelled",
      async () => (await state(counselor, "console-status")) === "cancelled",
    );
    expect(await card.isVisible()).toBe(false);
    await waitFor(
      "the patient page to stop saying shared",
      async () => (await state(patient, "location-status")) === "waiting",
    );
  });

  it("with no number on file, says so and what to do instead; copies through the fallback without a clipboard API", async () => {
    const { counselor } = await openPair(geo(EVANSTON));
    // A browser that refuses the clipboard API: the page falls back to a selected text box.
    await counselor.evaluate(() => {
      Object.defineProperty(navigator, "clipboard", {
        value: { writeText: () => Promise.reject(new Error("denied")) },
        configurable: true,
      });
    });
    await sos(counselor, "results");
    expect(await text(counselor, byId("call-first-name"))).toBe("Evanston Police Department");
    expect(await counselor.locator(byId("call-first-phone")).count()).toBe(0);
    const guidance = await text(counselor, byId("call-first-no-number"));
    expect(guidance).toContain("No phone number on file for this centre.");
    expect(guidance).toMatch(
      /the patient, or someone with them, to dial 911 now: their page shows it as a button/,
    );
    expect(guidance).toMatch(/give its name, “Evanston Police Department, Evanston, IL”, to a relay service/);
    expect(await text(counselor, byId("emergency-numbers"))).toContain("911 (all services)");
    expect(await text(counselor, byId("patient-location"))).toContain("Address on file");

    await counselor.click(byId("copy-location"));
    const box = counselor.locator("#copy-text");
    await waitFor("the fallback text box", () => box.isVisible());
    expect(await box.inputValue()).toContain("Where: Evanston (city), Cook County, IL, US");
    expect(await box.inputValue()).toContain(
      "Answering 911 centre: Evanston Police Department (Evanston, IL, no number on file)",
    );
    expect(await text(counselor, "#copied")).not.toBe("");
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
    expect(await text(counselor, byId("call-first-name"))).toBe("No US 911 centre serves this location");
    expect(await text(counselor, byId("call-first-why"))).toMatch(/should dial 999 now/);
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
  it("have no sideways scroll at 360 px and pass axe-core (no serious or critical violation) at desktop and 360 px", async () => {
    const { counselor, patient } = await openPair(geo(HAZEL_CREST), ADDRESS);
    // Before the SOS, then with every card shown.
    for (const page of [counselor, patient]) expect(await axeViolations(page)).toEqual([]);
    await sos(counselor, "results");
    await waitFor(
      "the patient page to say shared",
      async () => (await state(patient, "location-status")) === "shared",
    );
    for (const page of [counselor, patient]) expect(await axeViolations(page)).toEqual([]);
    for (const width of [360, 390]) {
      for (const page of [counselor, patient]) {
        await page.setViewportSize({ width, height: 800 });
        expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(width);
        if (width === 360) expect(await axeViolations(page)).toEqual([]);
      }
    }
  });
});
