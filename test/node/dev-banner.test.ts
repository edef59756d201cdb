// What `npm run dev` prints and decides without a server: the banner's phone-number note with the
// coverage figure, the one way to ask for demo data, and the served folder a test can point it at.
import { appendFileSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type BannerFacts, banner, phoneLine, readDevFlags } from "../../scripts/dev.ts";
import {
  bundleFingerprint,
  bundleIndexIsStale,
  DEMO_DATA_VERSION,
  IMPORT_CODE_DIRS,
  servesWhatWasAsked,
} from "../../scripts/dev-psap-data.ts";
import { ROOT } from "../../scripts/dev-run.ts";

const FACTS: BannerFacts = {
  url: "http://127.0.0.1:8787",
  demo: { platformId: "plt_demo1", apiKey: "sk_live_abc" },
  psapData: { dataVersion: "FCC Master PSAP Registry v2.295 (2026-02-06)", psaps: 6542 },
  phones: { psaps: 6542, with_phone: 0, with_24x7: 0 },
  links: [["Counselor console", "http://127.0.0.1:8787/demo/counselor.html"]],
  seconds: 21.44,
};

describe("the banner", () => {
  it("says when no centre has a number on file, with the coverage figure and what to do", () => {
    const text = banner(FACTS);
    expect(text).toContain(
      'Phone numbers      no numbers on file, 0 of 6,542 centres (0 %): import the PSAP directory (data/README.md, "Lines")',
    );
    expect(text).toContain("(ready in 21.4 s)");
  });

  it("gives the share of centres with a number once some are on file, and says so when it cannot tell", () => {
    expect(phoneLine({ psaps: 6542, with_phone: 3, with_24x7: 1 })).toBe(
      "3 of 6,542 centres (0.0 %) have a number on file, 1 a 24/7 line",
    );
    expect(phoneLine({ psaps: 6542, with_phone: 1308, with_24x7: 1200 })).toBe(
      "1,308 of 6,542 centres (20 %) have a number on file, 1,200 a 24/7 line",
    );
    expect(phoneLine(null)).toBe("unknown (the coverage route did not answer)");
  });

  it("names one way to ask for demo data, and the way back", () => {
    const real = banner(FACTS);
    expect(real).toContain("Demo PSAPs instead (fictional, 50 metros): npm run dev -- --demo");
    expect(real).not.toContain("psap:import -- --demo");
    const demo = banner({ ...FACTS, psapData: { dataVersion: DEMO_DATA_VERSION, psaps: 50 } });
    expect(demo).toContain("The real registry again: npm run dev (without --demo)");
    expect(demo).not.toContain("npm run dev -- --demo");
  });
});

describe("the PSAP data npm run dev serves", () => {
  it("imports only when the index does not hold what was asked for", () => {
    expect(servesWhatWasAsked(null, false)).toBe(false);
    expect(servesWhatWasAsked(null, true)).toBe(false);
    expect(servesWhatWasAsked(DEMO_DATA_VERSION, true)).toBe(true);
    expect(servesWhatWasAsked(DEMO_DATA_VERSION, false)).toBe(false);
    // The bundle, or a registry an operator imported by hand: kept without --demo, replaced with it.
    expect(servesWhatWasAsked("FCC Master PSAP Registry v2.295 (2026-02-06)", false)).toBe(true);
    expect(servesWhatWasAsked("FCC Master PSAP Registry v2.296", false)).toBe(true);
    expect(servesWhatWasAsked("FCC Master PSAP Registry v2.295 (2026-02-06)", true)).toBe(false);
  });
});

describe("the served folder", () => {
  it("reads wrangler's --assets, so a test server builds and serves its own copy of public/", () => {
    expect(readDevFlags(["--assets", ".wrangler/test-public"]).assets).toBe(".wrangler/test-public");
    expect(readDevFlags([]).assets).toBeUndefined();
  });
});

describe("an index npm run dev made from the bundle", () => {
  const FROM_BUNDLE =
    "FCC Master PSAP Registry v2.295 (2026-02-06) + Census places (census-places-2019-100m.topojson.gz)";
  const BY_HAND =
    "FCC Master PSAP Registry v2.295 (2026-02-06) + Census places (census-places-2019.geojson.gz)";

  it("is imported again when the bundle or the import code changed since, or nothing recorded it", () => {
    expect(bundleIndexIsStale(FROM_BUNDLE, "aaaa", "aaaa")).toBe(false);
    expect(bundleIndexIsStale(FROM_BUNDLE, "aaaa", "bbbb")).toBe(true);
    expect(bundleIndexIsStale(FROM_BUNDLE, null, "bbbb")).toBe(true);
    // Imported by hand from other files: kept, whatever was recorded.
    expect(bundleIndexIsStale(BY_HAND, null, "bbbb")).toBe(false);
    expect(bundleIndexIsStale(DEMO_DATA_VERSION, "aaaa", "bbbb")).toBe(false);
  });

  it("is fingerprinted by the bundle's files, the import code and the shipped directory", () => {
    const copy = mkdtempSync(join(tmpdir(), "bundle-fingerprint-"));
    try {
      for (const dir of IMPORT_CODE_DIRS) cpSync(join(ROOT, dir), join(copy, dir), { recursive: true });
      const before = bundleFingerprint(copy);
      expect(before).toMatch(/^[0-9a-f]{16}$/);
      expect(bundleFingerprint(copy)).toBe(before);
      appendFileSync(join(copy, "lib/psap-index/format.ts"), "\n// an index format change\n");
      const afterCode = bundleFingerprint(copy);
      expect(afterCode).not.toBe(before);
      appendFileSync(join(copy, "data/directory/areas.csv"), "\n");
      const afterDirectory = bundleFingerprint(copy);
      expect(afterDirectory).not.toBe(afterCode);
      appendFileSync(join(copy, "data/bundle/census-places-2019-100m.topojson.gz"), "x");
      expect(bundleFingerprint(copy)).not.toBe(afterDirectory);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
