// GET /docs: the API reference page names only files of this service, and its policy lets no other origin in.
import { describe, expect, it } from "vitest";
import { call } from "./helpers.ts";

describe("the API reference page", () => {
  it("loads its scripts and styles from this service only, under a policy that allows no other origin", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    const policy = res.headers.get("Content-Security-Policy") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toMatch(/https?:|\*/);
    const page = await res.text();
    const sources = [...page.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources).toEqual([
      "/docs/swagger-ui/swagger-ui.css",
      "/docs/reference.css",
      "/docs/swagger-ui/swagger-ui-bundle.js",
      "/docs/reference.js",
    ]);
    // No inline script: the policy would refuse it.
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page).toContain('data-openapi="/v1/openapi.json"');
  });
});
