// The console map's county outlines: cut per state from us-atlas by `npm run build:sdk`, the same every time.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildCountyShapes, type CountyShape } from "../../scripts/build-county-shapes.ts";

const dirs: string[] = [];
function build() {
  const dir = mkdtempSync(join(tmpdir(), "county-shapes-"));
  dirs.push(dir);
  return { dir, report: buildCountyShapes(dir) };
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("county shapes for the console map", () => {
  it("writes one small file per state and territory, named by the code the service puts in area.state", () => {
    const { dir, report } = build();
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(report.files);
    expect(files).toEqual(expect.arrayContaining(["IL.json", "PR.json", "DC.json", "AK.json"]));
    const il = JSON.parse(readFileSync(join(dir, "IL.json"), "utf8")) as {
      counties: CountyShape[];
      source: string;
    };
    expect(il.source).toMatch(/^us-atlas .* counties-10m\.json$/);
    expect(il.counties).toHaveLength(102);
    const cook = il.counties.find((c) => c.id === "17031");
    expect(cook?.name).toBe("Cook");
    // Flat lon, lat lists; Hazel Crest (41.57, -87.69) lies within Cook's box.
    const ring = cook?.rings[0] ?? [];
    const lons = ring.filter((_, i) => i % 2 === 0);
    const lats = ring.filter((_, i) => i % 2 === 1);
    expect(Math.min(...lons)).toBeLessThan(-87.69);
    expect(Math.max(...lons)).toBeGreaterThan(-87.69);
    expect(Math.min(...lats)).toBeLessThan(41.57);
    expect(Math.max(...lats)).toBeGreaterThan(41.57);
    // Small enough for a page to fetch in the worst minute.
    for (const f of files) expect(readFileSync(join(dir, f)).length).toBeLessThan(120_000);
  });

  it("is deterministic: two builds are byte for byte the same", () => {
    const a = build().dir;
    const b = build().dir;
    for (const f of readdirSync(a))
      expect(readFileSync(join(b, f)).equals(readFileSync(join(a, f)))).toBe(true);
  });
});
