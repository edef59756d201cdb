// Reads the input files (any mix of formats, recognised by content), merges them and reports on every row.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import type { PsapDataset } from "../index/dataset.ts";
import { loadCounties } from "./counties.ts";
import { parseCsv } from "./csv.ts";
import { ImportError } from "./errors.ts";
import { type MergeSummary, mergeInputs } from "./merge.ts";
import type {
  BoundaryFeature,
  FccGeocode,
  FccRow,
  FileReport,
  MemberTownRow,
  OverrideRow,
  Place,
  ProjectRow,
} from "./model.ts";
import type { TownInput } from "./municipalities.ts";
import { isFccCsvHeader, readFccCsv } from "./read-fcc-csv.ts";
import { isFccJson, readFccJson } from "./read-fcc-json.ts";
import { isGeoJson, readGeoJson } from "./read-geojson.ts";
import { isMemberTownsHeader, readMemberTowns } from "./read-member-towns.ts";
import { isOverrideCsvHeader, readOverrides } from "./read-overrides.ts";
import {
  fromTopology,
  isCensusPlaces,
  isZip,
  maybeGunzip,
  readCensusPlaces,
  readShapefileZip,
} from "./read-places.ts";
import { isProjectCsvHeader, readProjectCsv } from "./read-project-csv.ts";
import { isTownBoundaries, readTowns } from "./read-towns.ts";

export interface PreparedImport {
  dataset: PsapDataset;
  files: FileReport[];
  summary: MergeSummary;
}

function readBytes(path: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    throw new ImportError(`${path}: cannot read the file (${code})`, { cause: err });
  }
  if (bytes.length === 0) throw new ImportError(`${path}: the file is empty`);
  return bytes;
}

function registryVersion(path: string, maxDate: string): string {
  const v = /v(\d+(?:\.\d+)+)/i.exec(basename(path))?.[1];
  return `FCC Master PSAP Registry${v ? ` v${v}` : ""}${maxDate ? ` (${maxDate})` : ""}`;
}

/** Reads every file first, so that an unreadable one stops the import before anything is built. */
export async function prepareImport(
  paths: readonly string[],
  options: { dataVersion?: string } = {},
): Promise<PreparedImport> {
  if (paths.length === 0) throw new ImportError("no input files given");
  const files: FileReport[] = [];
  const fcc: FccRow[] = [];
  const geocodes: { rows: FccGeocode[]; report: FileReport }[] = [];
  const project: ProjectRow[] = [];
  const boundaries: { rows: BoundaryFeature[]; report: FileReport }[] = [];
  const overrides: { rows: OverrideRow[]; report: FileReport }[] = [];
  const memberTowns: { rows: MemberTownRow[]; report: FileReport }[] = [];
  const places: Place[] = [];
  const towns: TownInput[] = [];
  const townSources: string[] = [];
  const versions: string[] = [];
  const placeSources: string[] = [];
  for (const path of paths) {
    const raw = readBytes(path);
    let json: unknown;
    if (isZip(raw)) {
      json = await readShapefileZip(path, raw, (layer) => isCensusPlaces(layer) || isTownBoundaries(layer));
    } else {
      let text: string;
      try {
        text = maybeGunzip(raw).toString("utf8");
      } catch (err) {
        throw new ImportError(`${path}: not a readable gzip file (${(err as Error).message})`, {
          cause: err,
        });
      }
      if (text.trim() === "") throw new ImportError(`${path}: the file is empty`);
      const trimmed = text.trimStart();
      if (trimmed.startsWith("[") || trimmed.startsWith("{")) {
        try {
          json = fromTopology(JSON.parse(text));
        } catch (err) {
          throw new ImportError(`${path}: not valid JSON (${(err as Error).message})`, { cause: err });
        }
      } else {
        readCsvFile(path, text);
        continue;
      }
    }
    if (isTownBoundaries(json)) {
      const r = readTowns(path, json);
      towns.push({ towns: r.towns, report: r.report });
      files.push(r.report);
      townSources.push(basename(path));
    } else if (isCensusPlaces(json)) {
      const r = readCensusPlaces(path, json);
      places.push(...r.places);
      files.push(r.report);
      placeSources.push(basename(path));
    } else if (isFccJson(json)) {
      const r = readFccJson(path, json);
      geocodes.push({ rows: r.geocodes, report: r.report });
      files.push(r.report);
    } else if (isGeoJson(json)) {
      const r = readGeoJson(path, json);
      boundaries.push({ rows: r.features, report: r.report });
      files.push(r.report);
      versions.push(basename(path));
    } else {
      throw new ImportError(
        `${path}: JSON that is neither the registry export, Census places, town boundaries nor boundary GeoJSON`,
      );
    }
  }

  function readCsvFile(path: string, text: string): void {
    let header: string[];
    try {
      header = parseCsv(text.split(/\r?\n/, 1)[0] ?? "").header;
    } catch (err) {
      throw new ImportError(`${path}: not a CSV file (${(err as Error).message})`, { cause: err });
    }
    try {
      if (isFccCsvHeader(header)) {
        if (fcc.length > 0) throw new ImportError(`${path}: only one FCC registry CSV per import`);
        const r = readFccCsv(path, text);
        fcc.push(...r.rows);
        files.push(r.report);
        versions.unshift(registryVersion(path, r.maxDate));
      } else if (isProjectCsvHeader(header)) {
        const r = readProjectCsv(path, text);
        project.push(...r.rows);
        files.push(r.report);
        versions.push(basename(path));
      } else if (isMemberTownsHeader(header)) {
        const r = readMemberTowns(path, text);
        memberTowns.push({ rows: r.rows, report: r.report });
        files.push(r.report);
        versions.push(basename(path));
      } else if (isOverrideCsvHeader(header)) {
        const r = readOverrides(path, text);
        overrides.push({ rows: r.rows, report: r.report });
        files.push(r.report);
        versions.push(basename(path));
      } else {
        throw new ImportError(
          `${path}: unrecognised CSV header (expected the FCC registry's, "id,name,type,state,county,city,phone,latitude,longitude,location_precision", "psap_id,jurisdiction,served_places,served_counties,reason" or "psap_id,state,county,municipality,geoid,source,read_on,note")`,
        );
      }
    } catch (err) {
      if (err instanceof ImportError) throw err;
      throw new ImportError(`${path}: not a readable CSV file (${(err as Error).message})`, { cause: err });
    }
  }

  const seenPlaces = new Set<string>();
  const uniquePlaces = places.filter((p) => !seenPlaces.has(p.geoid) && seenPlaces.add(p.geoid));
  const { dataset, summary } = mergeInputs({
    fcc,
    geocodes,
    project,
    boundaries,
    places: uniquePlaces,
    towns,
    overrides,
    memberTowns,
    counties: loadCounties(),
    dataVersion:
      options.dataVersion ??
      [
        ...versions,
        ...placeSources.map((s) => `Census places (${s})`),
        ...townSources.map((s) => `towns (${s})`),
      ].join(" + "),
  });
  if (dataset.psaps.length === 0) throw new ImportError("the inputs hold no usable PSAP: nothing to import");
  return { dataset, files, summary };
}
