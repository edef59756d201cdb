// What the browser tests read off a page: text, the first screen, accessibility, and everything the page
// could have kept (its storages, IndexedDB, cookies and URL).
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

export const byId = (id: string) => `[data-testid="${id}"]`;

export const text = async (page: Page, selector: string) =>
  ((await page.locator(selector).textContent()) ?? "").trim();

/** Everything the page could have kept: both storages, IndexedDB, cookies, and its URL. */
export async function everythingStored(page: Page): Promise<string> {
  const inPage = await page.evaluate(async () => {
    const dump = (s: Storage) => Object.entries({ ...s }).map(([k, v]) => `${k}=${v}`);
    const dbs = (await indexedDB.databases?.()) ?? [];
    return {
      local: dump(localStorage),
      session: dump(sessionStorage),
      indexedDB: dbs.map((d) => d.name),
      cookie: document.cookie,
      url: location.href,
    };
  });
  return JSON.stringify({ ...inPage, cookies: await page.context().cookies() });
}

/** Whether the element is wholly inside the first screen of the page (scrolled to the top), and where it is. */
export async function inFirstScreen(page: Page, testid: string): Promise<{ inside: boolean; rect: string }> {
  return page.evaluate((id) => {
    window.scrollTo(0, 0);
    const r = (document.querySelector(`[data-testid="${id}"]`) as HTMLElement).getBoundingClientRect();
    const inside =
      r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
    return { inside, rect: `${Math.round(r.top)}..${Math.round(r.bottom)} of ${innerHeight} px` };
  }, testid);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}

/** axe-core in the page: the serious and critical violations. */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: () => Promise<{ violations: AxeViolation[] }> } }).axe;
    const { violations } = await axe.run();
    return violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
}
