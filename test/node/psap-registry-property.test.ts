// A property over the whole registry, imported as the CLI does (the four shared files and the shipped
// operator files): for every municipal primary the import links to a municipality, a fix well inside that
// municipality gets that centre first (after a statewide centre, where one answers every call of the
// state), unless a shipped operator file says another centre answers there (a member list), or a smaller
// municipality with a centre of its own holds the point (a village inside a town). A failure names the
// centre, the municipality and what came first instead.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { fullResolutionPaths } from "../../bench/accuracy.ts";
import type { MergeSummary } from "../../data/import/merge.ts";
import { prepareImport } from "../../data/import/pipeline.ts";
import { interiorPoint } from "../../data/import/read-towns.ts";
import { SHIPPED_OPERATOR_FILES } from "../../data/import/shipped.ts";
import { buildIndex } from "../../data/index/build.ts";
import type { AreaInput, PsapDataset } from "../../data/index/dataset.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import { lookupPsaps } from "../../src/answer/lookup.ts";
import { resetPsapLookupCache } from "../../src/psap/lookup.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DATA_DIR = resolve(ROOT, process.env.PSAP_DATA_DIR ?? "../shared/psap-data");
const HAVE_DATA = existsSync(join(DATA_DIR, "town-boundaries.geojson.gz"));

describe.skipIf(!HAVE_DATA)("every municipal centre of the registry, at its own municipality", () => {
  let dataset: PsapDataset;
  let summary: MergeSummary;
  let store: MemoryPsapStore;
  beforeAll(async () => {
    ({ dataset, summary } = await prepareImport([
      ...fullResolutionPaths(DATA_DIR),
      ...SHIPPED_OPERATOR_FILES,
    ]));
    store = MemoryPsapStore.fromIndex(buildIndex(dataset, { version: "registry-property" }));
    resetPsapLookupCache(store);
  }, 240_000);

  it("comes first at a point well inside the municipality it is linked to", async () => {
    const psapById = new Map(dataset.psaps.map((p) => [p.id, p]));
    const areaById = new Map<string, AreaInput>();
    for (const a of dataset.areas) if (a.kind === "city" || a.kind === "town") areaById.set(a.id, a);
    // The municipal primaries linked to each municipality: any of them may be the first.
    const own = new Map<string, Set<string>>();
    for (const { id, geoid, overridden } of summary.municipal.links) {
      // An override row that says what the centre serves decides instead of the link.
      if (overridden || psapById.get(id)?.type !== "primary" || !areaById.has(geoid)) continue;
      own.set(geoid, (own.get(geoid) ?? new Set()).add(id));
    }
    // Municipalities a shipped member list gives to a regional or county-wide centre.
    const listed = new Set(summary.memberTowns.listed);
    const failures: string[] = [];
    let checked = 0;
    let nested = 0;
    let givenToOthers = 0;
    for (const [geoid, ids] of own) {
      if (listed.has(geoid)) {
        givenToOthers++;
        continue;
      }
      const area = areaById.get(geoid) as AreaInput;
      const [lon, lat] = interiorPoint(area.rings);
      const result = await lookupPsaps(store, { latitude: lat, longitude: lon, accuracy: 20 });
      if (result.area.place !== area.name) {
        nested++; // a smaller municipality (or a sliver of another) holds the point
        continue;
      }
      checked++;
      const first = result.psaps.find((p) => p.jurisdiction !== "state");
      if (!first || !ids.has(first.id)) {
        failures.push(
          `${[...ids].join("/")} at ${area.name} (${area.state}, ${area.kind} ${geoid}): first ${first?.id} ${first?.name} (${first?.jurisdiction}, ${first?.match})`,
        );
      }
    }
    // The import links thousands of municipal centres; member rows take some of them over as the
    // directory grows, never most of them, so the property still speaks for most of the registry.
    expect(checked + givenToOthers).toBeGreaterThan(2_000);
    expect(checked).toBeGreaterThan(3 * givenToOthers);
    // The interior point misses its own municipality only where a smaller one with a centre sits on it.
    expect(nested).toBeLessThan(checked / 20);
    expect(failures).toEqual([]);
  });
});
