// Reads the input files (any mix of formats, recognised by content), merges them and reports on every row.
import { basename } from "node:path";
import type { PsapDataset } from "../index/dataset.ts";
import { loadCounties } from "./counties.ts";
import type { CsvTable } from "./csv.ts";
import { ImportError } from "./errors.ts";
import { DEFAULT_READ_LIMITS, type ReadLimits } from "./limits.ts";
import { type MergeInputs, type MergeSummary, mergeInputs } from "./merge.ts";
import type { FileReport, Place } from "./model.ts";
import { isNenaPsapLayer } from "./nena-fields.ts";
import { printable } from "./printable.ts";
import { isAreaLinksHeader, readAreaLinks } from "./read-area-links.ts";
import { isDirectoryLinesHeader, readDirectoryLines } from "./read-directory-lines.ts";
import { isFccCsvHeader, readFccCsv } from "./read-fcc-csv.ts";
import { isFccJson, readFccJson } from "./read-fcc-json.ts";
import { isGeoJson, readGeoJson } from "./read-geojson.ts";
import { readGeoPackage } from "./read-geopackage.ts";
import { readInput } from "./read-input.ts";
import type { LandArea } from "./read-land-areas.ts";
import { isNationalParks, isTribalAreas, readLandAreas } from "./read-land-areas.ts";
import { isMemberTownsHeader, readMemberTowns } from "./read-member-towns.ts";
import { readNenaLayer } from "./read-nena.ts";
import { isOverrideCsvHeader, readOverrides } from "./read-overrides.ts";
import {
  fromTopology,
  isCensusPlaces,
  isShapefilePart,
  readCensusPlaces,
  readShapefileZip,
} from "./read-places.ts";
import { isProjectCsvHeader, readProjectCsv } from "./read-project-csv.ts";
import { isTownBoundaries, readTowns } from "./read-towns.ts";
import { isDirectoryFile } from "./shipped.ts";

export interface PreparedImport {
  dataset: PsapDataset;
  files: FileReport[];
  summary: MergeSummary;
}

/** What the files read so far hold, by kind, and the labels of the data version. */
interface Inputs extends Omit<MergeInputs, "counties" | "dataVersion"> {
  files: FileReport[];
  versions: string[];
  placeSources: string[];
  townSources: string[];
  /** What "in force" means for a NENA layer's Effective and Expire dates. */
  now: Date;
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
  options: { dataVersion?: string; limits?: ReadLimits; now?: Date } = {},
): Promise<PreparedImport> {
  if (paths.length === 0) throw new ImportError("no input files given");
  const limits = options.limits ?? DEFAULT_READ_LIMITS;
  const inputs: Inputs = {
    fcc: [],
    geocodes: [],
    project: [],
    boundaries: [],
    nena: [],
    places: [],
    towns: [],
    overrides: [],
    memberTowns: [],
    lines: [],
    landAreas: [],
    areaLinks: [],
    files: [],
    versions: [],
    placeSources: [],
    townSources: [],
    now: options.now ?? new Date(),
  };
  for (const path of paths) await readFile(path, limits, inputs);
  const seenPlaces = new Set<string>();
  const uniquePlaces = inputs.places.filter(
    (p: Place) => !seenPlaces.has(p.geoid) && seenPlaces.add(p.geoid),
  );
  const { dataset, summary } = mergeInputs({
    ...inputs,
    places: uniquePlaces,
    counties: loadCounties(),
    dataVersion:
      options.dataVersion ??
      [
        ...inputs.versions,
        ...inputs.placeSources.map((s) => `Census places (${s})`),
        ...inputs.townSources.map((s) => `towns (${s})`),
      ].join(" + "),
  });
  if (dataset.psaps.length === 0) throw new ImportError("the inputs hold no usable PSAP: nothing to import");
  return { dataset, files: inputs.files, summary };
}

/** One input file, read within the bounds and handed to the reader its content calls for. */
async function readFile(path: string, limits: ReadLimits, inputs: Inputs): Promise<void> {
  const input = await readInput(path, limits, isShapefilePart);
  if (input.kind === "csv") {
    readCsvFile(path, input.table, inputs);
    return;
  }
  if (input.kind === "sqlite") {
    const layer = await readGeoPackage(path);
    if (layer.features.length === 0)
      throw new ImportError(
        `${printable(path)}: GeoPackage layer ${printable(layer.table)} holds no features`,
      );
    addNenaLayer(path, layer.features, `GeoPackage layer ${layer.table}`, inputs);
    return;
  }
  let json: unknown;
  if (input.kind === "zip") {
    json = await readShapefileZip(
      path,
      input.entries,
      (layer) => isCensusPlaces(layer) || isTownBoundaries(layer) || isNenaPsapLayer(layer),
    );
  } else {
    try {
      json = fromTopology(input.json);
    } catch (err) {
      throw new ImportError(`${printable(path)}: not valid TopoJSON (${(err as Error).message})`, {
        cause: err,
      });
    }
  }
  readJsonFile(path, json, inputs);
}

function readJsonFile(path: string, json: unknown, inputs: Inputs): void {
  if (isTribalAreas(json) || isNationalParks(json)) {
    const r = readLandAreas(path, json);
    append(inputs.landAreas as LandArea[], r.areas);
    inputs.files.push(r.report);
    inputs.versions.push(basename(path));
  } else if (isTownBoundaries(json)) {
    const r = readTowns(path, json);
    inputs.towns?.push({ towns: r.towns, report: r.report });
    inputs.files.push(r.report);
    inputs.townSources.push(basename(path));
  } else if (isCensusPlaces(json)) {
    const r = readCensusPlaces(path, json);
    append(inputs.places, r.places);
    inputs.files.push(r.report);
    inputs.placeSources.push(basename(path));
  } else if (isFccJson(json)) {
    const r = readFccJson(path, json);
    inputs.geocodes.push({ rows: r.geocodes, report: r.report });
    inputs.files.push(r.report);
  } else if (isNenaPsapLayer(json)) {
    addNenaLayer(path, (json as { features: unknown[] }).features, null, inputs);
  } else if (isGeoJson(json)) {
    const r = readGeoJson(path, json);
    inputs.boundaries.push({ rows: r.features, report: r.report });
    inputs.files.push(r.report);
    inputs.versions.push(basename(path));
  } else {
    throw new ImportError(
      `${printable(path)}: JSON that is neither the registry export, Census places, town boundaries, a NENA PsapPolygon layer nor boundary GeoJSON`,
    );
  }
}

/** A NENA PsapPolygon layer: read now, tied to its PSAPs once every file is read (nena-match.ts). */
function addNenaLayer(
  path: string,
  features: readonly unknown[],
  source: string | null,
  inputs: Inputs,
): void {
  const r = readNenaLayer(path, features as Parameters<typeof readNenaLayer>[1], {
    now: inputs.now,
    ...(source ? { source } : {}),
  });
  inputs.nena?.push({ features: r.features, report: r.report });
  inputs.files.push(r.report);
  inputs.versions.push(basename(path));
}

function readCsvFile(path: string, table: CsvTable, inputs: Inputs): void {
  const { header } = table;
  try {
    if (isFccCsvHeader(header)) {
      if (inputs.fcc.length > 0)
        throw new ImportError(`${printable(path)}: only one FCC registry CSV per import`);
      const r = readFccCsv(path, table);
      append(inputs.fcc, r.rows);
      inputs.files.push(r.report);
      inputs.versions.unshift(registryVersion(path, r.maxDate));
    } else if (isProjectCsvHeader(header)) {
      const r = readProjectCsv(path, table);
      append(inputs.project, r.rows);
      inputs.files.push(r.report);
      inputs.versions.push(basename(path));
    } else if (isAreaLinksHeader(header)) {
      const r = readAreaLinks(path, table, inputs.now);
      inputs.areaLinks?.push({ links: r.links, report: r.report });
      inputs.files.push(r.report);
      if (!isDirectoryFile(path)) inputs.versions.push(basename(path));
    } else if (isDirectoryLinesHeader(header)) {
      const r = readDirectoryLines(path, table, {
        origin: isDirectoryFile(path) ? "directory" : "operator",
        today: inputs.now,
      });
      inputs.lines?.push({ rows: r.rows, report: r.report });
      inputs.files.push(r.report);
      // The directory's many files are one input of the data version; an operator's file is named.
      if (!isDirectoryFile(path)) inputs.versions.push(basename(path));
      else if (!inputs.versions.includes("PSAP directory")) inputs.versions.push("PSAP directory");
    } else if (isMemberTownsHeader(header)) {
      const r = readMemberTowns(path, table);
      inputs.memberTowns?.push({ rows: r.rows, report: r.report });
      inputs.files.push(r.report);
      if (!isDirectoryFile(path)) inputs.versions.push(basename(path));
      else if (!inputs.versions.includes("PSAP directory")) inputs.versions.push("PSAP directory");
    } else if (isOverrideCsvHeader(header)) {
      const r = readOverrides(path, table);
      inputs.overrides.push({ rows: r.rows, report: r.report });
      inputs.files.push(r.report);
      inputs.versions.push(basename(path));
    } else {
      throw new ImportError(
        `${printable(path)}: unrecognised CSV header (expected the FCC registry's, "id,name,type,state,county,city,phone,latitude,longitude,location_precision", "psap_id,jurisdiction,served_places,served_counties,reason", "psap_id,state,county,municipality,geoid,source,checked_on,note" or "psap_id,state,psap_name,number,e164,kind,label,source,checked_on,note")`,
      );
    }
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw new ImportError(`${printable(path)}: not a readable CSV file (${(err as Error).message})`, {
      cause: err,
    });
  }
}

/** Adds `items` to `target` one by one: a spread (`push(...items)`) of a million rows overflows the call stack. */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}
