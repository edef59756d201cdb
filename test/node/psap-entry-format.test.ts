// The stored index (format.ts). An entry: a JSON header, then every area's encoded rings back to back, read in
// place. What the builder writes reads back identically; anything it would not write is refused as a
// corrupt entry (a failure of ours, never "no PSAP nearby"). The pointer's tree: one text, each root's
// code found in it.
import fc from "fast-check";
import { cellToChildren, cellToLatLng, cellToParent, getRes0Cells, latLngToCell } from "h3-js";
import { describe, expect, it } from "vitest";
import { buildIndex } from "../../data/index/build.ts";
import type { AreaInput } from "../../data/index/dataset.ts";
import { MemoryPsapStore } from "../../data/index/memory-store.ts";
import {
  type AreaDraft,
  type EntryDraft,
  type EntryHeader,
  encodeEntry,
  encodeManifest,
  entryKey,
  FORMAT,
  type IndexManifest,
  MalformedIndexError,
  manifestJson,
  type PsapTuple,
  parseEntry,
  parseManifest,
} from "../../lib/psap-index/format.ts";
import {
  decodeRings,
  decodeRingsAt,
  encodeRings,
  MalformedRingError,
  type Ring,
} from "../../lib/psap-index/geometry.ts";
import { CellTree, h3Digit, h3Parent, nodeName, treeText } from "../../lib/psap-index/tree.ts";
import { lookupPsaps } from "../../src/answer/lookup.ts";
import { PsapLookupFailedError, resetPsapLookupCache } from "../../src/psap/lookup.ts";
import { psap as indexedPsap } from "../support/psap-fixtures.ts";
import { treeCodes } from "../support/tree-codes.ts";

const psap = (id: string, lat: number, lon: number): PsapTuple => [
  id,
  `PSAP ${id}`,
  0,
  "IL",
  "Cook",
  null,
  [[0, "+13125550100", "Emergency line", "https://www.example.gov/911", "2026-11-28", 0]],
  0,
  null,
  lat,
  lon,
  0,
];

const square = (lat: number, lon: number, size: number): Ring => [
  [lon, lat],
  [lon + size, lat],
  [lon + size, lat + size],
  [lon, lat + size],
];

/** Area i's ring bounds, from the header's columns. */
const boundsOf = (header: EntryHeader, i: number) => header.r.slice(header.ro[i], header.ro[i + 1]);

function draft(areas: Ring[][]): EntryDraft {
  const a = areas.map(
    (rings, i): AreaDraft => [3, `a${i}`, `Area ${i}`, "IL", [0, 0, 1, 1], encodeRings(rings), [0]],
  );
  return { c: [41.8, -87.6], p: [psap("1", 41.8, -87.6)], n: [0], d: [0], a };
}

describe("stored entry", () => {
  it("keeps the rings out of the JSON header and reads each area's rings back in place", () => {
    const areas = [
      [square(41, -88, 1), square(41.2, -87.8, 0.2)],
      [square(40, -89, 0.5)],
      [square(42, -87, 0.25), square(42.1, -86.9, 0.01), square(42.05, -86.95, 0.02)],
    ];
    const text = encodeEntry(draft(areas));
    const header = text.slice(0, text.indexOf("\n"));
    expect(header).not.toContain(encodeRings(areas[0] as Ring[])[0]);
    const { header: parsed, ringsAt } = parseEntry(text);
    expect(parsed.k).toHaveLength(areas.length);
    areas.forEach((rings, i) => {
      expect(boundsOf(parsed, i)).toHaveLength(rings.length + 1);
      expect(decodeRingsAt(text, ringsAt, boundsOf(parsed, i))).toEqual(decodeRings(encodeRings(rings)));
      expect(decodeRingsAt(text, ringsAt, parsed.r, parsed.ro[i], parsed.ro[i + 1])).toEqual(
        decodeRings(encodeRings(rings)),
      );
    });
  });

  it("decodes any rings in place exactly as the reference decodes them one string at a time", () => {
    const ring = fc.array(
      fc.tuple(
        fc.double({ min: -179, max: 179, noNaN: true }),
        fc.double({ min: -89, max: 89, noNaN: true }),
      ),
      {
        minLength: 3,
        maxLength: 40,
      },
    );
    fc.assert(
      fc.property(fc.array(fc.array(ring, { minLength: 1, maxLength: 4 }), { maxLength: 5 }), (areas) => {
        const text = encodeEntry(draft(areas as Ring[][]));
        const { header, ringsAt } = parseEntry(text);
        areas.forEach((rings, i) => {
          expect(decodeRingsAt(text, ringsAt, header.r, header.ro[i], header.ro[i + 1])).toEqual(
            decodeRings(encodeRings(rings as Ring[])),
          );
        });
      }),
      { numRuns: 200 },
    );
  });

  it("refuses an entry without a ring section, a header that is not JSON, or rings placed outside it", () => {
    const good = encodeEntry(draft([[square(41, -88, 1)]]));
    const newline = good.indexOf("\n");
    const header = JSON.parse(good.slice(0, newline));
    const rings = good.slice(newline + 1);
    const withBounds = (bounds: unknown) =>
      `${JSON.stringify({ ...header, r: bounds, ro: [0, Array.isArray(bounds) ? bounds.length : 0] })}\n${rings}`;
    for (const bad of [
      good.slice(0, newline),
      `{"p":[1,\n${rings}`,
      withBounds([0, rings.length + 1]),
      withBounds([5, 3]),
      withBounds([0, 0]),
      withBounds([-1, 4]),
      withBounds([0, 2.5]),
      withBounds("0,4"),
      withBounds([]),
    ]) {
      expect(() => parseEntry(bad), bad.slice(0, 80)).toThrow(MalformedIndexError);
    }
    expect(parseEntry(withBounds([0, rings.length])).header.r).toEqual([0, rings.length]);
  });

  it("stores areas column by column and refuses columns that disagree with each other or with the PSAPs", () => {
    const two = draft([[square(41, -88, 1)], [square(40, -89, 0.5), square(40.6, -89, 0.1)]]);
    two.a[1] = [1, "b", "Town", null, [1, 2, 3, 4], two.a[1]?.[5] ?? [], []];
    const good = encodeEntry(two);
    const newline = good.indexOf("\n");
    const header = JSON.parse(good.slice(0, newline));
    const rings = good.slice(newline + 1);
    expect(header).not.toHaveProperty("a");
    expect(header.k).toEqual([3, 1]);
    expect(header.s).toEqual(["Area 0", "IL", "Town", null]);
    expect(header.b).toEqual([0, 0, 1, 1, 1, 2, 3, 4]);
    expect(header.m).toEqual([0]);
    expect(header.mo).toEqual([0, 1, 1]);
    expect(header.ro).toEqual([0, 2, 5]);
    expect(parseEntry(good).header).toEqual(header);
    const changed = (change: Record<string, unknown>) =>
      `${JSON.stringify({ ...header, ...change })}\n${rings}`;
    for (const change of [
      { k: [3, 5] },
      { k: [3] },
      { k: "31" },
      { s: ["Area 0", "IL", "Town"] },
      { s: ["Area 0", "IL", 7, null] },
      { b: [0, 0, 1, 1, 1, 2, 3] },
      { b: [0, 0, 1, 1, 1, 2, 3, null] },
      { ro: [0, 2] },
      { ro: [0, 2, 4] },
      { ro: [1, 2, 5] },
      { ro: [0, 6, 5] },
      { mo: [0, 1] },
      { mo: [0, 2, 1] },
      { m: [1] },
      { m: [-1] },
      { m: [0.5] },
    ]) {
      expect(() => parseEntry(changed(change)), JSON.stringify(change)).toThrow(MalformedIndexError);
    }
  });

  it("refuses a ring section with characters outside the encoding when the ring is decoded", () => {
    const good = encodeEntry(draft([[square(41, -88, 1)]]));
    const garbled = `${good.slice(0, -3)}\u0001${good.slice(-2)}`;
    const { header, ringsAt } = parseEntry(garbled);
    expect(() => decodeRingsAt(garbled, ringsAt, header.r)).toThrow(MalformedRingError);
    expect(() => decodeRingsAt(good, ringsAt, [0, good.length])).toThrow(MalformedRingError);
  });
});

describe("lookup over a corrupt ring section", () => {
  /** A county over (41..42 N, 88..87 W) answered by `psapIds`: it holds the fix at 41.5, -87.5. */
  const county = (psapIds: string[]): AreaInput => ({
    kind: "county",
    id: "c",
    name: "County",
    state: "ZZ",
    rings: [square(41, -88, 1)],
    psapIds,
  });

  it("answers psap_lookup_failed, not an empty list, and tries the entry again next time", async () => {
    const built = buildIndex({
      dataVersion: "rings",
      psaps: [indexedPsap("c1", 41.9, -87.7)],
      areas: [county(["c1"])],
    });
    const store = MemoryPsapStore.fromIndex(built);
    const fix = { latitude: 41.5, longitude: -87.5, accuracy: 20 };
    resetPsapLookupCache();
    const good = await lookupPsaps(store, fix);
    expect(good.psaps[0]).toMatchObject({ id: "c1", match: "county" });
    // Garble the ring section of every entry (the header stays readable).
    for (const key of built.entries.keys()) {
      const text = store.data.get(key) as string;
      const at = text.indexOf("\n") + 1;
      store.data.set(key, text.slice(0, at) + "\u0001".repeat(text.length - at));
    }
    resetPsapLookupCache();
    await expect(lookupPsaps(store, fix)).rejects.toBeInstanceOf(PsapLookupFailedError);
    for (const [key, value] of built.entries) store.data.set(key, value);
    expect((await lookupPsaps(store, fix)).psaps).toEqual(good.psaps);
  });

  it("leaves nothing of a failed lookup behind: an area read before the corrupt one still ranks its PSAPs later", async () => {
    const built = buildIndex({
      dataVersion: "rings-halfway",
      psaps: [indexedPsap("town", 41.5, -87.5), indexedPsap("cty", 41.9, -87.7)],
      areas: [
        {
          kind: "city",
          id: "t",
          name: "Town",
          state: "ZZ",
          rings: [square(41.4, -87.6, 0.2)],
          psapIds: ["town"],
        },
        county(["cty"]),
      ],
    });
    const store = MemoryPsapStore.fromIndex(built);
    const fix = { latitude: 41.5, longitude: -87.5, accuracy: 20 };
    resetPsapLookupCache();
    const good = await lookupPsaps(store, fix);
    expect(good.psaps.map((p) => [p.id, p.match])).toEqual([
      ["town", "city"],
      ["cty", "county"],
    ]);
    // Garble only the rings of each entry's last area: the areas before it are read and their PSAPs
    // marked before the ranking meets the corrupt one.
    let garbled = 0;
    for (const key of built.entries.keys()) {
      const text = store.data.get(key) as string;
      const at = text.indexOf("\n") + 1;
      const header = parseEntry(text).header;
      const last = header.k.length - 1;
      if (last < 1) continue;
      const bounds = boundsOf(header, last);
      const from = at + (bounds[0] as number);
      const to = at + (bounds.at(-1) as number);
      store.data.set(key, text.slice(0, from) + "\u0001".repeat(to - from) + text.slice(to));
      garbled++;
    }
    expect(garbled).toBeGreaterThan(0);
    resetPsapLookupCache();
    await expect(lookupPsaps(store, fix)).rejects.toBeInstanceOf(PsapLookupFailedError);
    for (const [key, value] of built.entries) store.data.set(key, value);
    // Read afresh (the corrupt entry was dropped): the same answer, both PSAPs in their groups.
    expect((await lookupPsaps(store, fix)).psaps).toEqual(good.psaps);
  });
});

describe("the pointer's tree text", () => {
  const manifestWith = (tree: string): IndexManifest => ({
    format: FORMAT,
    version: "t",
    data_version: "t",
    created_at: "2026-11-25T00:00:00.000Z",
    psaps: 1,
    entries: 1,
    top_n: 5,
    max_distance_km: 500,
    max_tolerance_km: 10,
    root_resolution: 2,
    max_resolution: 3,
    tree,
    previous: [],
  });
  const chicago = latLngToCell(41.88, -87.63, 2);
  const digit = h3Digit(latLngToCell(41.88, -87.63, 3), 3);

  it("lists each root once with its code and reads back every root's code", () => {
    const codes = new Map([
      [chicago, `S${"E".repeat(digit)}L${"E".repeat(6 - digit)}`],
      [latLngToCell(21.3, -157.86, 2), "L"],
    ]);
    const text = treeText(codes);
    expect(treeCodes(text)).toEqual(codes);
    const tree = new CellTree(manifestWith(text));
    const node = nodeName(chicago, String(digit));
    expect(tree.locate(41.88, -87.63)).toEqual({ kind: "leaf", node, key: entryKey("t", node) });
    // The same leaf's location is made once and reused.
    expect(tree.locate(41.88, -87.63)).toBe(tree.locate(41.88, -87.63));
    const honolulu = nodeName(latLngToCell(21.3, -157.86, 2), "");
    expect(tree.locate(21.3, -157.86)).toEqual({
      kind: "leaf",
      node: honolulu,
      key: entryKey("t", honolulu),
    });
    expect(tree.locate(48.85, 2.35)).toEqual({ kind: "empty" });
  });

  it("tells every root apart: a fix finds its own root's leaf, or empty where its root is not listed", () => {
    // Every other resolution-1 cell is listed (each a leaf), so neighbouring roots, roots of the same
    // base cell and roots of different base cells all sit side by side in one tree.
    const roots = getRes0Cells().flatMap((base) => cellToChildren(base, 1));
    const listed = new Set(roots.filter((_, i) => i % 2 === 0));
    const tree = new CellTree({
      ...manifestWith(treeText(new Map([...listed].map((root) => [root, "L"])))),
      root_resolution: 1,
      max_resolution: 4,
    });
    for (const root of roots) {
      const [lat, lon] = cellToLatLng(root);
      const node = nodeName(root, "");
      expect(tree.locate(lat, lon)).toEqual(
        listed.has(root) ? { kind: "leaf", node, key: entryKey("t", node) } : { kind: "empty" },
      );
    }
    fc.assert(
      fc.property(
        fc.double({ min: -89.9, max: 89.9, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        (lat, lon) => {
          const root = cellToParent(latLngToCell(lat, lon, 4), 1);
          const node = nodeName(root, "");
          expect(tree.locate(lat, lon)).toEqual(
            listed.has(root) ? { kind: "leaf", node, key: entryKey("t", node) } : { kind: "empty" },
          );
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it("finds a root as h3's cellToParent does, at every resolution, from the cell's hex form", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -90, max: 90, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.integer({ min: 0, max: 15 }),
        fc.integer({ min: 0, max: 15 }),
        (lat, lon, a, b) => {
          const cell = latLngToCell(lat, lon, Math.max(a, b));
          expect(h3Parent(cell, Math.min(a, b))).toBe(cellToParent(cell, Math.min(a, b)));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it("says corrupt, not empty, for a root whose code is malformed, and refuses a pointer not written by encodeManifest", () => {
    expect(new CellTree(manifestWith(treeText(new Map([[chicago, "SLL"]])))).locate(41.88, -87.63)).toEqual({
      kind: "corrupt",
    });
    expect(new CellTree(manifestWith(treeText(new Map([[chicago, "X"]])))).locate(41.88, -87.63)).toEqual({
      kind: "corrupt",
    });
    const manifest = manifestWith(";x=L");
    const stored = encodeManifest(manifest);
    // The tree follows the JSON, which does not carry it: read back whole.
    expect(stored.slice(0, stored.indexOf("\n"))).not.toContain(";x=L");
    expect(stored.endsWith("\n;x=L")).toBe(true);
    expect(parseManifest(stored)).toEqual(manifest);
    expect(manifestJson(stored)).toBe(stored.slice(0, stored.indexOf("\n")));
    expect(manifestJson(JSON.stringify(manifest))).toBe(JSON.stringify(manifest));
    // An earlier format's pointer (JSON alone), a tree inside the JSON, or no JSON at all: no pointer.
    expect(parseManifest(JSON.stringify(manifest))).toBeNull();
    expect(parseManifest(`${JSON.stringify(manifest)}\n;x=L`)).toBeNull();
    expect(parseManifest(`${JSON.stringify({ ...manifest, tree: undefined, format: 3 })}\n;x=L`)).toBeNull();
    expect(parseManifest("not json\n;x=L")).toBeNull();
  });
});
