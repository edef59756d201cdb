// The import reads every input within its bounds (data/import/limits.ts): a gzip that inflates past the
// per-file bound, a ZIP whose entry declares or inflates past the per-entry bound, entries past the
// per-archive bound, a plain file over the per-file bound: each ends in one line naming the file and the
// bound, exit 1, nothing written. Small bounds (set by the CLI's flags) keep the inputs small; the
// figures at the real default bounds are in the issue notes. Also: everything printed from an input is
// escaped, and the shapefile ZIP reader on the Census Bureau's own file.

import { once } from "node:events";
import { createWriteStream, existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../data/import/cli.ts";
import { MemoryKvTarget } from "../../data/import/kv.ts";
import { DEFAULT_READ_LIMITS, parseSize } from "../../data/import/limits.ts";
import { prepareImport } from "../../data/import/pipeline.ts";
import { printable } from "../../data/import/printable.ts";
import { makeZip } from "../support/zip.ts";

const MiB = 1024 * 1024;
const DATA_DIR = resolve(import.meta.dirname, "../..", process.env.PSAP_DATA_DIR ?? "../shared/psap-data");
const RHODE_ISLAND_PLACES = join(DATA_DIR, "tl_2019_44_place.zip");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "psap-import-bounds-"));
});

function file(name: string, bytes: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** Runs the CLI against an in-memory KV; the output, its exit code, and whether anything was written. */
async function importing(args: string[]) {
  const kv = new MemoryKvTarget();
  const result = await runCli(args, () => kv);
  return { ...result, written: kv.writes.length };
}

/** A refusal: exit 1, one line, the file and the bound named, nothing written. */
function expectRefused(result: Awaited<ReturnType<typeof importing>>, fileName: string, bound: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.output.split("\n")).toHaveLength(1);
  expect(result.output).toMatch(/^Import failed, the loaded index is unchanged: /);
  expect(result.output).toContain(fileName);
  expect(result.output).toMatch(bound);
  expect(result.written).toBe(0);
}

/** A GeoJSON FeatureCollection's opening, then `size` bytes of spaces: gzip packs it about 1000 to 1. */
function geojsonBomb(size: number): Buffer {
  const text = Buffer.alloc(size, 0x20);
  text.write('{"type":"FeatureCollection","features":[', 0);
  return gzipSync(text, { level: 9 });
}

describe("bounds on what an input inflates to", () => {
  it("refuses a gzip that inflates past the per-file bound, with one line naming the file and the bound", async () => {
    const bomb = geojsonBomb(64 * MiB);
    expect(bomb.byteLength).toBeLessThan(MiB / 4);
    const path = file("places.geojson.gz", bomb);
    const result = await importing([path, "--max-file-size", "8MiB"]);
    expectRefused(
      result,
      "places.geojson.gz",
      /inflates to more than the per-file bound of 8 MiB \(--max-file-size\)$/,
    );
  });

  it("refuses a plain file larger than the per-file bound before reading it", async () => {
    const path = file("ops.csv", `id,name\n${"x,y\n".repeat(300_000)}`);
    const result = await importing([path, "--max-file-size", "1MiB"]);
    expectRefused(
      result,
      "ops.csv",
      /the file is 1\.1 MiB, over the per-file bound of 1 MiB \(--max-file-size\)$/,
    );
  });

  it("refuses a ZIP entry that declares more than the per-entry bound, before inflating anything", async () => {
    // The header claims 1 GiB; the data is a few bytes that could never inflate to it: the refusal comes
    // from the central directory alone.
    const zip = makeZip([
      { name: "tl_2019_44_place.dbf", data: Buffer.alloc(1000) },
      { name: "tl_2019_44_place.shp", data: Buffer.alloc(100), declaredSize: 1024 * MiB },
    ]);
    const path = file("tl_2019_44_place.zip", zip);
    const result = await importing([path]);
    expectRefused(
      result,
      "tl_2019_44_place.zip",
      /entry "tl_2019_44_place\.shp" inflates to 1 GiB, over the per-entry bound of 256 MiB \(--max-entry-size\)$/,
    );
  });

  it("refuses a ZIP entry that really inflates past the per-entry bound", async () => {
    const zip = makeZip([{ name: "towns.shp", data: Buffer.alloc(16 * MiB) }]);
    expect(zip.byteLength).toBeLessThan(MiB);
    const result = await importing([file("towns.zip", zip), "--max-entry-size", "4MiB"]);
    expectRefused(
      result,
      "towns.zip",
      /entry "towns\.shp" inflates to 16 MiB, over the per-entry bound of 4 MiB/,
    );
  });

  it("refuses a ZIP entry whose header understates its size, as it inflates", async () => {
    const zip = makeZip([{ name: "towns.shp", data: Buffer.alloc(16 * MiB), declaredSize: 1000 }]);
    const result = await importing([file("liar.zip", zip), "--max-entry-size", "4MiB"]);
    expect(result.code).toBe(1);
    expect(result.output.split("\n")).toHaveLength(1);
    expect(result.output).toMatch(/liar\.zip: .*(not a readable ZIP archive|per-entry bound)/);
    expect(result.written).toBe(0);
  });

  it("refuses entries that together inflate past the per-archive bound", async () => {
    const zip = makeZip([
      { name: "a.shp", data: Buffer.alloc(3 * MiB) },
      { name: "a.dbf", data: Buffer.alloc(3 * MiB) },
      { name: "README.txt", data: Buffer.alloc(30 * MiB) },
    ]);
    const result = await importing([file("layers.zip", zip), "--max-archive-size", "5MiB"]);
    // README.txt is no shapefile part: never inflated, never counted.
    expectRefused(
      result,
      "layers.zip",
      /entries inflate to 6 MiB together, over the per-archive bound of 5 MiB \(--max-archive-size\)$/,
    );
  });

  it("refuses a 1,000,000-row project CSV at the row bound, as it streams in, naming the bound", async () => {
    const path = join(dir, "ops.csv");
    const out = createWriteStream(path);
    out.write("id,name,type,state,county,city,phone,latitude,longitude,location_precision\n");
    for (let block = 0; block < 100; block++) {
      const rows: string[] = [];
      for (let i = block * 10_000; i < (block + 1) * 10_000; i++) {
        rows.push(
          `op-${i},Center ${i},primary,IL,Cook,Chicago,(312) 555-${String(i % 10_000).padStart(4, "0")},41.8,-87.6,building`,
        );
      }
      if (!out.write(`${rows.join("\n")}\n`)) await once(out, "drain");
    }
    out.end();
    await once(out, "finish");
    const result = await importing([path]);
    expectRefused(result, "ops.csv", /: more rows than the row bound of 100,000 rows \(--max-csv-rows\)$/);
  });

  it("takes a CSV of exactly the row bound, and refuses one row more", async () => {
    const header = "id,name,type,state,county,city,phone,latitude,longitude,location_precision";
    const rows = (n: number) =>
      [
        header,
        ...Array.from(
          { length: n },
          (_, i) => `op-${i},Center ${i},primary,IL,Cook,Chicago,,41.8,-87.6,building`,
        ),
      ].join("\n");
    // The bound applies to every CSV of the import: the shipped operator files (400 rows) stay out here.
    const ok = await importing([
      file("ops.csv", rows(50)),
      "--max-csv-rows",
      "50",
      "--dry-run",
      "--no-shipped-overrides",
    ]);
    expect(ok.code).toBe(0);
    const over = await importing([file("more.csv", rows(51)), "--max-csv-rows", "50"]);
    expectRefused(over, "more.csv", /more rows than the row bound of 50 rows \(--max-csv-rows\)$/);
  });

  it("refuses a bound that is not a size, naming the flag", async () => {
    const result = await importing(["x.csv", "--max-entry-size", "lots"]);
    expect(result.code).toBe(2);
    expect(result.output.split("\n")[0]).toBe(
      "--max-entry-size: not a size (say 256MiB, 1GiB or a count of bytes)",
    );
    expect(result.written).toBe(0);
  });

  it("reads sizes as the flags document them", () => {
    expect(parseSize("256MiB")).toBe(256 * MiB);
    expect(parseSize("1.5 GiB")).toBe(1.5 * 1024 * MiB);
    expect(parseSize("64KiB")).toBe(64 * 1024);
    expect(parseSize("1000")).toBe(1000);
    expect(parseSize("0")).toBeNull();
    expect(parseSize("-1MiB")).toBeNull();
    expect(DEFAULT_READ_LIMITS.maxEntryBytes).toBeLessThanOrEqual(DEFAULT_READ_LIMITS.maxArchiveBytes);
  });

  it("still reads a gzipped CSV within the bounds, as a stream", async () => {
    const rows = ["id,name,type,state,county,city,phone,latitude,longitude,location_precision"];
    for (let i = 0; i < 2_000; i++)
      rows.push(`op-${i},Center ${i},primary,IL,Cook,Chicago,,41.8,-87.6,building`);
    const path = file("ops.csv.gz", gzipSync(`${rows.join("\n")}\n`));
    const prepared = await prepareImport([path], { limits: { ...DEFAULT_READ_LIMITS, maxFileBytes: MiB } });
    expect(prepared.files[0]).toMatchObject({ kind: "project-csv", rowsRead: 2_000, kept: 2_000 });
  });
});

describe.skipIf(!existsSync(RHODE_ISLAND_PLACES))("the Census Bureau's shapefile ZIP", () => {
  it("reads Rhode Island's places through the bounded ZIP reader", async () => {
    const prepared = await prepareImport([
      file(
        "ops.csv",
        "id,name,type,state,county,city,phone,latitude,longitude,location_precision\nop-1,Providence Emergency,primary,RI,Providence,Providence,,41.82,-71.41,building\n",
      ),
      RHODE_ISLAND_PLACES,
    ]);
    const places = prepared.files.find((f) => f.kind === "census-places");
    expect(places?.rowsRead).toBeGreaterThan(30);
    expect(places?.dropped).toEqual([]);
    expect(prepared.summary.places.incorporated).toBeGreaterThan(5);
  });

  it("refuses it under a per-entry bound smaller than its .shp", async () => {
    const result = await importing([RHODE_ISLAND_PLACES, "--max-entry-size", "64KiB", "--dry-run"]);
    expectRefused(
      result,
      "tl_2019_44_place.zip",
      /entry "tl_2019_44_place\.shp" inflates to [\d.]+ [KM]iB, over the per-entry bound of 64 KiB/,
    );
  });
});

describe("what the import prints from an input", () => {
  const ESCAPES = "\u001b]0;pwned\u0007\u001b[2J\u009b31m";

  it("escapes control characters in ids, names and paths as \\xNN", async () => {
    const csv = [
      "id,name,type,state,county,city,phone,latitude,longitude,location_precision",
      `op-${ESCAPES},Center One,primary,IL,Cook,Chicago,,41.8,-87.6,building`,
      `op-${ESCAPES},Center Two,primary,IL,Cook,Chicago,,41.8,-87.6,building`,
      "",
    ].join("\n");
    const result = await importing([file("ops.csv", csv), "--dry-run"]);
    expect(result.code).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that none is left.
    expect(result.output).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(result.output).toContain("duplicate id op-\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m (kept line 2)");
  });

  it("escapes them in a refusal's one line too", async () => {
    const path = file(`evil${ESCAPES}\n.csv`, "");
    const result = await importing([path]);
    expect(result.code).toBe(1);
    expect(result.output.split("\n")).toHaveLength(1);
    expect(result.output).toContain("evil\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x0a.csv: the file is empty");
  });

  it("shows every control character as \\xNN and the invisible layout ones as \\u{...}", () => {
    expect(printable("a\u0000b\tc\nd\u007fe\u0085f")).toBe("a\\x00b\\x09c\\x0ad\\x7fe\\x85f");
    expect(printable("abc\u202edcba\u2028")).toBe("abc\\u{202e}dcba\\u{2028}");
    expect(printable("Saint-Léonard Ōmura 911")).toBe("Saint-Léonard Ōmura 911");
  });
});
