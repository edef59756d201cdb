// End to end in headless Chromium: both SDKs and both demo pages against `npm run dev`.
// Pages load from http://localhost:P, the API answers at http://127.0.0.1:P: every call is cross-origin.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CounselorSDK } from "../../sdk/src/counselor.ts";
import type { CounselorUnavailableReason, SessionCreateResponse } from "../../sdk/src/protocol.ts";
import { ASSETS, contextOptions, launchChromium, type Service, startService, waitFor } from "./harness.ts";
import { everythingStored, text } from "./page-checks.ts";

/** Hazel Crest, Illinois (the contract's example PSAP is nearby). */
const HERE = { latitude: 41.5725, longitude: -87.6945, accuracy: 25 };
/** Every textual form of the coordinates that could leak: full and truncated digits. */
const COORDINATE_PATTERNS = [/41\.57/, /87\.69/, /41\.5725/, /-87\.6945/, /latitude/i, /longitude/i];

/** What the blank test page exposes: the two served modules, merged. */
interface SdkWindow {
  sdk: typeof import("../../sdk/src/patient.ts") & typeof import("../../sdk/src/counselor.ts");
}

let service: Service;
let browser: Browser;
const contexts: BrowserContext[] = [];

/** The platform's server side: creates and ends sessions with the API key, from Node. */
function platformServer(): CounselorSDK {
  return new CounselorSDK({
    apiBaseUrl: service.apiBase,
    platformId: service.platformId,
    secretKey: service.apiKey,
  });
}

async function newSession(): Promise<SessionCreateResponse> {
  return platformServer().startSession({
    meetingId: `meeting-${Date.now()}`,
    counselorId: "counselor-1",
    patientId: "patient-1",
    expiresInMinutes: 30,
  });
}

async function newPage(position?: typeof HERE): Promise<Page> {
  const context = await browser.newContext(contextOptions(position));
  contexts.push(context);
  const page = await context.newPage();
  page.on("pageerror", (err) => console.error("page error:", err.message));
  return page;
}

function demoUrl(page: "counselor" | "patient", token: string): string {
  const fragment = new URLSearchParams({ token, api: service.apiBase });
  return `${service.pageBase}/demo/${page}.html#${fragment}`;
}

function expectNoCoordinate(stored: string): void {
  for (const pattern of COORDINATE_PATTERNS) expect(stored).not.toMatch(pattern);
}

beforeAll(async () => {
  service = await startService();
  browser = await launchChromium();
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close().catch(() => {});
  await service?.stop();
});

describe("both demo pages, one SOS", () => {
  it("delivers the nearest PSAPs to the counselor console and the patient page, and keeps no coordinate", async () => {
    const session = await newSession();
    const counselor = await newPage();
    const patient = await newPage(HERE);
    const sockets = { counselor: 0, patient: 0 };
    counselor.on("websocket", () => sockets.counselor++);
    patient.on("websocket", () => sockets.patient++);

    await counselor.goto(demoUrl("counselor", session.counselor_token));
    await patient.goto(demoUrl("patient", session.patient_token));
    await waitFor(
      "the counselor console to connect",
      async () => (await text(counselor, "#conn")) === "connected",
    );
    await waitFor("the patient page to connect", async () => (await text(patient, "#conn")) === "connected");
    expect(await text(counselor, "#session")).toBe("active");

    await counselor.click('[data-testid="sos-trigger"]');
    await waitFor(
      "the call-first card on the counselor console",
      () => counselor.locator('[data-testid="call-first"]').isVisible(),
      30_000,
    );
    await waitFor("PSAPs on the patient page", () => patient.locator("#psaps li").count());
    expect(await text(counselor, "#session")).toBe("SOS in progress");
    expect(await patient.locator("#help").isVisible()).toBe(true);

    const first = await text(counselor, '[data-testid="call-first"]');
    // How far, as exact as the centre's position: a building's to a tenth of a km, a city's point roughly.
    const far =
      /\d+\.\d km away|registered in [^,]+, where the patient is|≈ (< 1|\d+) km \((city|county) centre\)/;
    expect(first).toMatch(far);
    expect(first).toMatch(/city limits|service area|County|nearest/);
    expect(await text(counselor, "#psaps li:first-child")).toMatch(far);
    const tel = counselor.locator("#psaps a.tel").first();
    if (await tel.count()) expect(await tel.getAttribute("href")).toMatch(/^tel:\+\d+$/);
    // The map is drawn once its county outlines are fetched.
    await waitFor("the map", async () => (await counselor.locator("#plot circle").count()) > 1);
    expect(await text(counselor, '[data-testid="patient-location"]')).toMatch(/41\.57250, -87\.69450/);

    // The patient side holds no coordinate anywhere it could persist; sessionStorage holds only the token and ids.
    const stored = await everythingStored(patient);
    expectNoCoordinate(stored);
    const kept = await patient.evaluate(() =>
      JSON.parse(sessionStorage.getItem("sos-sdk:patient") ?? "null"),
    );
    expect(kept).toEqual({
      token: session.patient_token,
      session_id: session.session_id,
      platform_id: session.platform_id,
    });
    expectNoCoordinate(await everythingStored(counselor));

    // Cancel: back to active, the console clears.
    await counselor.click("#cancel");
    await waitFor("the console back to active", async () => (await text(counselor, "#session")) === "active");

    // The platform ends the session: both pages learn it, close, and never reconnect.
    await platformServer().endSession({ sessionId: session.session_id });
    await waitFor("the console to see the end", async () => (await text(counselor, "#session")) === "ended");
    await waitFor("the console to close", async () => (await text(counselor, "#conn")) === "closed");
    await waitFor("the patient page to close", async () => (await text(patient, "#conn")) === "closed");
    const after = { ...sockets };
    await new Promise((r) => setTimeout(r, 4000));
    expect(sockets).toEqual(after);
    expect(await patient.evaluate(() => sessionStorage.length)).toBe(0);
    expectNoCoordinate(await everythingStored(patient));
  });
});

describe("a bad network", () => {
  it("a patient page that was offline during the SOS still sends its location once back", async () => {
    const session = await newSession();
    const counselor = await newPage();
    const patient = await newPage(HERE);
    await counselor.goto(demoUrl("counselor", session.counselor_token));
    await patient.goto(demoUrl("patient", session.patient_token));
    await waitFor("the patient page to connect", async () => (await text(patient, "#conn")) === "connected");
    await waitFor("the console to connect", async () => (await text(counselor, "#conn")) === "connected");

    await patient.context().setOffline(true);
    // The socket dies (at the latest the heartbeat notices within 30 s): the page says so.
    await waitFor(
      "the patient page to notice",
      async () => (await text(patient, "#conn")) !== "connected",
      45_000,
    );
    await counselor.click('[data-testid="sos-trigger"]');
    await waitFor(
      "the console in SOS",
      async () => (await text(counselor, "#session")) === "SOS in progress",
    );
    expect(await counselor.locator('[data-testid="call-first"]').isVisible()).toBe(false);

    await patient.context().setOffline(false);
    await waitFor(
      "PSAPs on the console after the patient is back",
      () => counselor.locator('[data-testid="call-first"]').isVisible(),
      30_000,
    );
    await waitFor(
      "the patient page to reconnect",
      async () => (await text(patient, "#conn")) === "connected",
    );
  });
});

describe("the SDK modules on their own", () => {
  /** A blank page on the pages' origin with both served modules loaded as `window.sdk`. */
  async function blankPage(position?: typeof HERE): Promise<Page> {
    const page = await newPage(position);
    await page.goto(`${service.pageBase}/demo/index.html`);
    // A module script, as an integrator would write it (page.evaluate cannot hold a bare import()).
    await page.addScriptTag({
      type: "module",
      content: `import * as p from "/sdk/patient.js"; import * as c from "/sdk/counselor.js"; window.sdk = { ...p, ...c };`,
    });
    await page.waitForFunction(() => "sdk" in window);
    return page;
  }

  it("a page on another origin imports both modules and reads their typings (Access-Control-Allow-Origin: *)", async () => {
    const page = await newPage();
    await page.goto(`${service.pageBase}/demo/index.html`); // http://localhost:P; the modules at http://127.0.0.1:P
    const failed: string[] = [];
    page.on("requestfailed", (r) => failed.push(r.url()));
    await page.addScriptTag({
      type: "module",
      content: `import * as p from "${service.apiBase}/sdk/patient.js"; import * as c from "${service.apiBase}/sdk/counselor.js";
        window.crossOrigin = { patient: typeof p.PatientSDK, counselor: typeof c.CounselorSDK, error: new c.ApiError(400, "x", "y").name };`,
    });
    await page.waitForFunction(() => "crossOrigin" in window, undefined, { timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { crossOrigin: unknown }).crossOrigin)).toEqual({
      patient: "function",
      counselor: "function",
      error: "ApiError",
    });
    const typings = await page.evaluate(async (api) => {
      const read = async (name: string) => {
        // A CORS request: without Access-Control-Allow-Origin the browser refuses to hand over the answer.
        const res = await fetch(`${api}/sdk/${name}`);
        return {
          status: res.status,
          type: res.type,
          text: await res.text(),
        };
      };
      return {
        // The control: a file outside /sdk has no such header, and the browser refuses it.
        demoCssRefused: await fetch(`${api}/demo/demo.css`).then(
          () => false,
          () => true,
        ),
        patient: await read("patient.d.ts"),
        counselor: await read("counselor.d.ts"),
        protocol: await read("protocol.d.ts"),
      };
    }, service.apiBase);
    expect(typings.demoCssRefused).toBe(true);
    expect(typings.patient).toMatchObject({ status: 200, type: "cors" });
    expect(typings.patient.text).toContain("onEmergencyNumbers");
    expect(typings.counselor).toMatchObject({ status: 200, type: "cors" });
    expect(typings.counselor.text).toContain("patientAddress");
    // What the typings import is served too.
    expect(typings.protocol).toMatchObject({ status: 200, type: "cors" });
    expect(failed.filter((url) => url.includes("/sdk/"))).toEqual([]);
    for (const name of ["patient.js", "counselor.js", "patient.d.ts", "counselor.d.ts"]) {
      const res = await fetch(`${service.apiBase}/sdk/${name}`, {
        headers: { Origin: "https://platform.example" },
      });
      expect([name, res.status, res.headers.get("access-control-allow-origin")]).toEqual([name, 200, "*"]);
      expect(res.headers.get("content-type")).toMatch(name.endsWith(".js") ? /javascript/ : /^text\/plain/);
    }
  });

  it("patient destroy() clears its storage and closes its socket", async () => {
    const session = await newSession();
    const page = await blankPage(HERE);
    const closed = new Promise<void>((resolve) =>
      page.on("websocket", (ws) => ws.on("close", () => resolve())),
    );
    const result = await page.evaluate(
      async ({ token, api }) => {
        const { PatientSDK } = (window as unknown as SdkWindow).sdk;
        const states: string[] = [];
        const sdk = new PatientSDK({ token, apiBaseUrl: api, onStateChange: (s: string) => states.push(s) });
        await sdk.init();
        const before = sessionStorage.length;
        sdk.destroy();
        sdk.destroy();
        return { states, before, after: sessionStorage.length };
      },
      { token: session.patient_token, api: service.apiBase },
    );
    expect(result).toEqual({ states: ["connecting", "open", "closed"], before: 1, after: 0 });
    await closed;
  });

  it("a refused geolocation reaches the patient's onError and the counselor", async () => {
    const session = await newSession();
    const reasons: CounselorUnavailableReason[] = [];
    const counselor = new CounselorSDK({
      apiBaseUrl: service.apiBase,
      sessionToken: session.counselor_token,
      onLocationUnavailable: (r) => reasons.push(r),
    });
    await counselor.connect(); // from Node 22, with its global WebSocket
    const page = await blankPage(); // no geolocation permission
    await page.evaluate(
      async ({ token, api }) => {
        const { PatientSDK } = (window as unknown as SdkWindow).sdk;
        const w = window as unknown as { errors: string[] };
        w.errors = [];
        const sdk = new PatientSDK({
          token,
          apiBaseUrl: api,
          onError: (e: { name: string; code: string }) => w.errors.push(`${e.name}:${e.code}`),
        });
        await sdk.init();
      },
      { token: session.patient_token, api: service.apiBase },
    );
    await counselor.trigger();
    await waitFor("the counselor to hear that no fix is coming", () => reasons.length > 0, 15_000);
    expect(reasons).toEqual(["permission_denied"]);
    expect(await page.evaluate(() => (window as unknown as { errors: string[] }).errors)).toEqual([
      "GeolocationError:permission_denied",
    ]);
    counselor.disconnect();
  });

  it("a Node process that used the counselor SDK (the served module) exits within 1 s of disconnect() after session_ended", async () => {
    const session = await newSession();
    const module = pathToFileURL(join(ASSETS, "sdk/counselor.js")).href;
    const code = [
      `const { CounselorSDK } = await import(${JSON.stringify(module)});`,
      "const counselor = new CounselorSDK({",
      "  sessionToken: process.argv[1],",
      "  apiBaseUrl: process.argv[2],",
      '  onSessionState: (state) => { if (state === "ended") { counselor.disconnect(); console.log("disconnected"); } },',
      "});",
      "await counselor.connect();",
      'console.log("connected");',
    ].join("\n");
    const child = spawn(
      process.execPath,
      ["--input-type=module", "-e", code, session.counselor_token, service.apiBase],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    let disconnectedAt = 0;
    const read = (chunk: Buffer) => {
      output += chunk;
      if (!disconnectedAt && output.includes("disconnected")) disconnectedAt = performance.now();
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    const exited = new Promise<number>((resolve) => child.once("exit", () => resolve(performance.now())));
    try {
      await waitFor("the child to connect", () => output.includes("connected"), 30_000);
      // The service ends the session: session_ended, then close 4000 (wrangler dev's workerd keeps the
      // TCP connection 10 s after that close frame).
      await platformServer().endSession({ sessionId: session.session_id });
      const exitAt = await exited;
      expect(output).toContain("disconnected");
      expect(exitAt - disconnectedAt, output).toBeLessThan(1000);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("the counselor console opened after the session ended stops after one probe", async () => {
    const session = await newSession();
    await platformServer().endSession({ sessionId: session.session_id });
    const page = await newPage();
    let sockets = 0;
    page.on("websocket", () => sockets++);
    await page.goto(demoUrl("counselor", session.counselor_token));
    await waitFor("the console to give up", async () => (await text(page, "#conn")) === "closed", 15_000);
    expect(await text(page, "#session")).toBe("ended");
    await new Promise((r) => setTimeout(r, 3000));
    expect(sockets).toBe(1);
  });

  it("retries a 429 on the SOS call (Retry-After read across origins), then gives up with RateLimitError", async () => {
    const session = await newSession();
    const page = await blankPage();
    let refused = 0;
    await page.route("**/sos", async (route) => {
      if (route.request().method() !== "POST" || refused >= 2) return route.continue();
      refused++;
      await route.fulfill({
        status: 429,
        headers: {
          "Content-Type": "application/problem+json",
          "Retry-After": "1",
          "Access-Control-Allow-Origin": "*",
          "Access-Control-Expose-Headers": "Retry-After",
        },
        body: JSON.stringify({
          type: "x",
          title: "Too many",
          status: 429,
          detail: "slow down",
          code: "rate_limited",
        }),
      });
    });
    const result = await page.evaluate(
      async ({ token, api }) => {
        const { CounselorSDK } = (window as unknown as SdkWindow).sdk;
        const errors: string[] = [];
        const sdk = new CounselorSDK({
          sessionToken: token,
          apiBaseUrl: api,
          maxRetryAttempts: 1,
          onError: (e: { name: string }) => errors.push(e.name),
        });
        const started = Date.now();
        let first: string;
        try {
          await sdk.trigger();
          first = "ok";
        } catch (e) {
          first = `${(e as Error).name}:${(e as { code: string }).code}`;
        }
        const second = await sdk.trigger().then((r: { state: string }) => r.state);
        return { first, second, errors, waited: Date.now() - started };
      },
      { token: session.counselor_token, api: service.apiBase },
    );
    expect(refused).toBe(2);
    expect(result.first).toBe("RateLimitError:rate_limited");
    expect(result.second).toBe("sos");
    expect(result.errors).toEqual(["RateLimitError"]);
    expect(result.waited).toBeGreaterThanOrEqual(1000);
  });
});
