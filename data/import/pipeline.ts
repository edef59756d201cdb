// Reads the input files (any mix of formats, recognised by content), merges them and reports on every row.
import { basename } from "node:path";
import type { PsapDataset } from "../index/dataset.ts";
import { loadCounties } from "./counties.ts";
import type { CsvTable } from "./csv.ts";
import { ImportError } from "./errors.ts";
import { DEFAULT_READ_LIMITS, type ReadLimits } from "./limits.ts";
import { type MergeSummary, mergeInputs } from "./merge.ts";
import type {
  BoundaryFeature,
  CensusPlace,
  FccGeocode,
  FccRow,
  FileReport,
  OverrideRow,
  ProjectRow,
} from "./model.ts";
import { printable } from "./printable.ts";
import { isFccCsvHeader, readFccCsv } from "./read-fcc-csv.ts";
import { isFccJson, readFccJson } from "./read-fcc-json.ts";
import { isGeoJson, readGeoJson } from "./read-geojson.ts";
import { readInput } from "./read-input.ts";
import { isOverrideCsvHeader, readOverrides } from "./read-overrides.ts";
import {
  fromTopology,
  isCensusPlaces,
  isShapefilePart,
  readCensusPlaces,
  readShapefileZip,
} from "./read-places.ts";
import { isProjectCsvHeader, readProjectCsv } from "./read-project-csv.ts";

export interface PreparedImport {
  dataset: PsapDataset;
  files: FileReport[];
  summary: MergeSummary;
}

function registryVersion(path: string, maxDate: string): string {
  const v = /v(\d+(?:\.\d+)+)/i.exec(basename(path))?.[1];
  return `FCC Master PSAP Registry${v ? ` v${v}` : ""}${maxDate ? ` (${maxDate})` : ""}`;
}

/**
 * Reads every file first, so that an unreadable one stops the import before anything is built. Each is
 * read within `limits` (data/import/limits.ts): one that passes a bound stops the import the same way.
 */
export async function prepareImport(
  paths: readonly string[],
  options: { dataVersion?: string; limits?: ReadLimits } = {},
): Promise<PreparedImport> {
  if (paths.length === 0) throw new ImportError("no input files given");
  const limits = options.limits ?? DEFAULT_READ_LIMITS;
  const files: FileReport[] = [];
  const fcc: FccRow[] = [];
  const geocodes: { rows: FccGeocode[]; report: FileReport }[] = [];
  const project: ProjectRow[] = [];
  const boundaries: { rows: BoundaryFeature[]; report: FileReport }[] = [];
  const overrides: { rows: OverrideRow[]; report: FileReport }[] = [];
  const places: CensusPlace[] = [];
  const versions: string[] = [];
  const placeSources: string[] = [];
  for (const path of paths) {
    const input = await readInput(path, limits, isShapefilePart);
    if (input.kind === "csv") {
      readCsvFile(path, input.table);
      continue;
    }
    let json: unknown;
    if (input.kind === "zip") {
      json = await readShapefileZip(path, input.entries);
    } else {
      try {
        json = fromTopology(input.json);
      } catch (err) {
        throw new ImportError(`${printable(path)}: not valid TopoJSON (${(err as Error).message})`, {
          cause: err,
        });
      }
    }
    if (isCensusPlaces(json)) {
      const r = readCensusPlaces(path, json);
      append(places, r.places);
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
        `${printable(path)}: JSON that is neither the registry export, Census places nor boundary GeoJSON`,
      );
    }
  }

  function readCsvFile(path: string, table: CsvTable): void {
    const { header } = table;
    try {
      if (isFccCsvHeader(header)) {
        if (fcc.length > 0) throw new ImportError(`${printable(path)}: only one FCC registry CSV per import`);
        const r = readFccCsv(path, table);
        append(fcc, r.rows);
        files.push(r.report);
        versions.unshift(registryVersion(path, r.maxDate));
      } else if (isProjectCsvHeader(header)) {
        const r = readProjectCsv(path, table);
        append(project, r.rows);
        files.push(r.report);
        versions.push(basename(path));
      } else if (isOverrideCsvHeader(header)) {
        const r = readOverrides(path, table);
        overrides.push({ rows: r.rows, report: r.report });
        files.push(r.report);
        versions.push(basename(path));
      } else {
        throw new ImportError(
          `${printable(path)}: unrecognised CSV header (expected the FCC registry's, "id,name,type,state,county,city,phone,latitude,longitude,location_precision" or "psap_id,jurisdiction,served_places,served_counties")`,
        );
      }
    } catch (err) {
      if (err instanceof ImportError) throw err;
      throw new ImportError(`${printable(path)}: not a readable CSV file (${(err as Error).message})`, {
        cause: err,
      });
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
    overrides,
    counties: loadCounties(),
    dataVersion:
      options.dataVersion ?? [...versions, ...placeSources.map((s) => `Census places (${s})`)].join(" + "),
  });
  if (dataset.psaps.length === 0) throw new ImportError("the inputs hold no usable PSAP: nothing to import");
  return { dataset, files, summary };
}

/** Adds `items` to `target` one by one: a spread (`push(...items)`) of a million rows overflows the call stack. */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}
