// The import report: every row and feature read is accounted for, every PSAP classified, linked and placed.
import { coverageTable } from "../directory/coverage.ts";
import type { BuiltIndex } from "../index/build.ts";
import { OVERLAP_DEPTH_M } from "./layer-overlaps.ts";
import type { MergeSummary } from "./merge.ts";
import type { BoundaryMatch, FileReport } from "./model.ts";
import { printableLines } from "./printable.ts";
import type { PublishResult } from "./publish.ts";

const MAX_LINES_SHOWN = 50;
const MAX_ITEMS_SHOWN = 40;

function groupIssues(file: FileReport): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const d of file.dropped) groups.set(d.reason, [...(groups.get(d.reason) ?? []), d.line]);
  return groups;
}

function lineList(lines: number[], unit: string): string {
  const sorted = [...lines].sort((a, b) => a - b);
  const shown = sorted.slice(0, MAX_LINES_SHOWN).join(", ");
  return `${unit} ${shown}${sorted.length > MAX_LINES_SHOWN ? `, ... (${sorted.length - MAX_LINES_SHOWN} more)` : ""}`;
}

function listed<T>(out: string[], items: readonly T[], line: (item: T) => string, indent = "  "): void {
  for (const item of items.slice(0, MAX_ITEMS_SHOWN)) out.push(`${indent}- ${line(item)}`);
  if (items.length > MAX_ITEMS_SHOWN)
    out.push(`${indent}- ... (${items.length - MAX_ITEMS_SHOWN} more; --report-json has all)`);
}

export function formatReport(args: {
  files: readonly FileReport[];
  summary: MergeSummary;
  built: BuiltIndex;
  target: string;
  publish: PublishResult | null;
  elapsedMs: number;
}): string {
  const out: string[] = [`PSAP import: ${args.built.manifest.data_version}`];
  for (const f of args.files) fileLines(out, f);
  classificationLines(out, args.summary);
  placesLines(out, args.summary);
  indexLines(out, args);
  // Ids, names, comments, paths and labels come from the inputs: escaped, so none can drive the terminal.
  return printableLines(out.join("\n"));
}

/** One file: rows read, kept and dropped, each reason with the lines it dropped where they help. */
function fileLines(out: string[], f: FileReport): void {
  out.push(`\n${f.path} (${f.kind}): ${f.rowsRead} rows read, ${f.kept} kept, ${f.dropped.length} dropped`);
  const unit =
    f.kind === "fcc-json" ||
    f.kind === "geojson" ||
    f.kind === "census-places" ||
    f.kind === "towns" ||
    f.kind === "nena-psap-polygons"
      ? "items"
      : "lines";
  for (const [reason, lines] of groupIssues(f)) {
    // A service-boundary layer has few features, and each one left out leaves its area to other rules.
    const shown =
      f.kind === "nena-psap-polygons" ||
      /^(bad|duplicate|no PSAP with id|no municipality|several municipalities)/.test(reason)
        ? `: ${lineList(lines, unit)}`
        : "";
    out.push(`  - ${lines.length} ${reason}${shown}`);
  }
  for (const n of f.notes) out.push(`  - note: ${n}`);
  if (f.boundaryMatches) boundaryLines(out, f);
}

/** A NENA layer: which PSAP each polygon answers for and how it was tied, and the overlapping pairs. */
function boundaryLines(out: string[], f: FileReport): void {
  const matches = f.boundaryMatches ?? [];
  const by = (kind: "id" | "name" | "own") => matches.filter((m) => m.by === kind);
  const ambiguous = by("own").filter((m) => m.why.startsWith("ambiguous")).length;
  out.push(
    `  - tied to a PSAP: ${by("id").length} by an id column, ${by("name").length} by name and state, ${by("own").length} by neither, each a PSAP of its own or of its agency (${ambiguous} of them ambiguous names)`,
  );
  const groups: [string, BoundaryMatch[]][] = [
    ["by an id column", by("id")],
    ["by name and state (check them)", by("name")],
    ["by neither", by("own")],
  ];
  for (const [title, list] of groups) {
    if (list.length === 0) continue;
    out.push(`  - ${title}:`);
    listed(out, list, (m) => `item ${m.line} "${m.name}" (${m.state}) -> ${m.psapId}: ${m.why}`, "    ");
  }
  const overlaps = f.overlaps ?? [];
  out.push(
    `  - overlapping polygons: ${overlaps.length} pair${overlaps.length === 1 ? "" : "s"} (overlaps holding a point more than ${OVERLAP_DEPTH_M} m inside both; a fix there is answered by both)`,
  );
  listed(
    out,
    overlaps,
    (o) =>
      `items ${o.lines[0]} and ${o.lines[1]} ("${o.names[0]}" and "${o.names[1]}"): ${o.areaKm2} km², ${o.depthM} m deep`,
    "    ",
  );
}

/** The PSAPs: types, jurisdictions, the rule or override that decided each, secondaries' links. */
function classificationLines(out: string[], s: MergeSummary): void {
  out.push(
    `\nPSAPs: ${s.psaps} (${s.primaries} primary, ${s.secondaries} secondary), ${s.unplaced.length} left out`,
  );
  out.push(
    `Jurisdictions: ${Object.entries(s.jurisdictions)
      .map(([j, n]) => `${j} ${n}`)
      .join(", ")}${s.overridden > 0 ? ` (${s.overridden} set by the override file)` : ""}`,
  );
  out.push("Decided by:");
  for (const [rule, n] of Object.entries(s.rules).sort((a, b) => b[1] - a[1])) out.push(`  - ${rule}: ${n}`);
  if (s.unclassified.length > 0) {
    out.push(
      `Names not classified (${s.unclassified.length}; county assumed; settle them with an override file):`,
    );
    listed(out, s.unclassified, (u) => `${u.id} ${u.name} (${u.state})`);
  } else {
    out.push("Names not classified: 0 (every PSAP by a named rule or an override row)");
  }
  if (s.overrides.length > 0) {
    out.push(`Overrides applied (${s.overrides.length}):`);
    listed(out, s.overrides, (o) => `${o.id} ${o.name} -> ${o.jurisdiction}: ${o.reason}`);
  }
  out.push(
    `Secondaries linked to their primary: ${s.handledBy.linked} (${s.handledBy.named} comments name one, ${s.handledBy.dropped.length} links dropped)`,
  );
  listed(out, s.handledBy.dropped, (d) => `${d.id}: ${d.reason}`);
}

/** Places, towns and links: who answers where, where each PSAP was put, the counties matched. */
function placesLines(out: string[], s: MergeSummary): void {
  out.push(
    `Places and towns: ${s.places.read} read; ${s.places.incorporated} incorporated places, ${s.places.towns} towns and townships, ${s.places.communities} census-designated, inactive or reservation`,
  );
  out.push(
    `Municipal PSAPs linked to their municipality: ${s.municipal.linked} (${s.municipal.toTowns} to a town or township); not linked (no municipality of that name, e.g. townships of a state without town boundaries): ${s.municipal.unlinked.length}`,
  );
  listed(out, s.municipal.unlinked, (u) => `${u.id} ${u.name} (${u.state})`);
  out.push(
    `Member towns: ${s.memberTowns.municipalities} municipalities answered by ${s.memberTowns.centres} regional or county-wide centres`,
  );
  out.push(
    `Answering centres derived for ${s.answered.places} cities, ${s.answered.towns} towns and ${s.answered.counties} of ${s.answered.countiesTotal} counties (with no centre of their own: ${s.answered.inheritedFromTown} answered by the town around them, ${s.answered.inheritedFromCounty} by their county's)`,
  );
  out.push("Placed by:");
  for (const [method, n] of Object.entries(s.placement)) out.push(`  - ${method}: ${n}`);
  for (const u of s.unplaced) out.push(`  - left out ${u.id}: ${u.reason}`);
  out.push(`Registry geocodes not trusted, PSAP moved more than 1 km (${s.moved.length}):`);
  listed(
    out,
    s.moved,
    (m) => `${m.id} ${m.name} (${m.state}): ${m.why}; ${m.method}, ${m.km.toFixed(1)} km away`,
  );
  out.push(
    `County match: ${s.countyMatched} of ${s.psaps} PSAPs matched to a Census county (${s.countyFromName} by the county their name gives)`,
  );
  if (s.unmatchedCounties.length > 0) {
    out.push(`Counties not matched (${s.unmatchedCounties.length}):`);
    for (const u of s.unmatchedCounties)
      out.push(`  - ${u.state}: "${u.county}" (${u.psaps} PSAP${u.psaps > 1 ? "s" : ""})`);
  }
  const pct = s.psaps > 0 ? ((100 * s.withPhone) / s.psaps).toFixed(1) : "0.0";
  out.push(
    `Phone numbers: ${s.withPhone} of ${s.psaps} PSAPs (${pct} %), from ${s.linesKept} lines file rows`,
  );
  out.push("Lines of the primary PSAPs by state:");
  out.push(...coverageTable(s.lineCoverage));
  out.push(`Boundary polygons: ${s.boundaries} (operator service areas and NENA layers)`);
  out.push(
    `Land areas (reservations, trust lands, National Parks): ${s.landAreas.read} read, ${s.landAreas.linked} answered by a linked centre (${s.landAreas.links} directory links kept)`,
  );
}

/** The index built, and what was written where. */
function indexLines(
  out: string[],
  args: { built: BuiltIndex; target: string; publish: PublishResult | null; elapsedMs: number },
): void {
  const { built, publish } = args;
  const st = built.stats;
  const leaves = Object.entries(st.leavesByResolution)
    .map(([r, n]) => `res ${r}: ${n}`)
    .join(", ");
  out.push(
    `Index: version ${built.manifest.version}, ${st.entries} entries (${(st.totalBytes / 1024 / 1024).toFixed(1)} MiB, largest ${(st.maxEntryBytes / 1024).toFixed(0)} KiB; ${leaves}), catalogue ${built.catalogue.size} keys, built in ${(st.buildMs / 1000).toFixed(1)} s`,
  );
  if (publish) {
    out.push(
      `Keys written to ${args.target}: ${publish.keysWritten} (${publish.entryKeys} entries, ${publish.catalogueKeys} catalogue, then the pointer)`,
    );
    if (publish.deletedVersions.length > 0) {
      out.push(`Old versions deleted: ${publish.deletedVersions.join(", ")} (${publish.keysDeleted} keys)`);
    }
  } else {
    out.push(`Dry run: nothing written (${st.entries + built.catalogue.size + 1} keys would be written)`);
  }
  out.push(`Time: ${(args.elapsedMs / 1000).toFixed(1)} s`);
}
