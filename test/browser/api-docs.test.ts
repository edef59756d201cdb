// The API reference at /docs, in headless Chromium against `npm run dev`: every route of the registry's
// document listed on the page, every script and style from the service itself under the page's own
// policy (no CDN, nothing blocked), and axe-core finding no serious or critical violation.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, type Service, startService, waitFor } from "./harness.ts";
import { axeViolations } from "./page-checks.ts";

let service: Service;
let browser: Browser;

/**
 * What the OpenAPI document the route registry makes describes: `METHOD /path` for every route, and
 * `METHOD name` for every webhook event the service sends (the page lists those too).
 */
async function described(): Promise<{ routes: string[]; webhooks: string[] }> {
  const doc = (await (await fetch(`${service.apiBase}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
    webhooks?: Record<string, Record<string, unknown>>;
  };
  const operations = (items: Record<string, Record<string, unknown>>) =>
    Object.entries(items).flatMap(([name, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${name}`),
    );
  return { routes: operations(doc.paths), webhooks: operations(doc.webhooks ?? {}) };
}

/** `METHOD /path` of every operation the page shows, once Swagger UI has drawn them. */
async function routesOnPage(page: Page, expected: number): Promise<string[]> {
  const read = () =>
    page.$$eval(".opblock-summary", (summaries) =>
      summaries.map((summary) => {
        const method = summary.querySelector(".opblock-summary-method")?.textContent?.trim() ?? "";
        const path = summary.querySelector(".opblock-summary-path")?.getAttribute("data-path") ?? "";
        return `${method.toUpperCase()} ${path}`;
      }),
    );
  await waitFor(`${expected} operations on /docs`, async () => (await read()).length >= expected);
  return read();
}

beforeAll(async () => {
  service = await startService();
  browser = await launchChromium();
}, 200_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe("the API reference at /docs", () => {
  it("lists every route of the registry, with only the service's own scripts and styles, nothing blocked", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const requested: string[] = [];
    const blocked: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    try {
      const response = await page.goto(`${service.apiBase}/docs`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'");

      const { routes, webhooks } = await described();
      expect(routes.length).toBeGreaterThanOrEqual(25);
      expect(routes).toContain("GET /docs");
      const shown = await routesOnPage(page, routes.length + webhooks.length);
      expect(new Set(shown)).toEqual(new Set([...routes, ...webhooks]));
      expect(shown.length).toBe(routes.length + webhooks.length);

      const foreign = requested.filter((url) => new URL(url).origin !== service.apiBase);
      expect(foreign).toEqual([]);
      expect(requested).toEqual(
        expect.arrayContaining([
          `${service.apiBase}/docs/swagger-ui/swagger-ui-bundle.js`,
          `${service.apiBase}/docs/swagger-ui/swagger-ui.css`,
          `${service.apiBase}/v1/openapi.json`,
        ]),
      );
      expect(blocked).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it.each([
    { width: 360, height: 640 },
    { width: 1280, height: 720 },
  ])("has no serious or critical axe-core violation at $width px", async (viewport) => {
    // axe-core goes in as an inline script, which the page's own policy rightly refuses: bypass it here.
    const context = await browser.newContext({ viewport, bypassCSP: true });
    const page = await context.newPage();
    try {
      await page.goto(`${service.apiBase}/docs`);
      const { routes, webhooks } = await described();
      await routesOnPage(page, routes.length + webhooks.length);
      expect(await axeViolations(page)).toEqual([]);
      // Every operation opened, as a reader opens them: their parameters, bodies, answers and schemas too.
      const toggles = page.locator(".opblock-summary-control");
      const count = await toggles.count();
      for (let i = 0; i < count; i++) await toggles.nth(i).click();
      await waitFor(
        `${count} operations opened`,
        async () => (await page.locator(".opblock-body").count()) === count,
      );
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
