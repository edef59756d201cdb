// The import report: every row read is accounted for (kept, or dropped with a reason).
import type { BuiltIndex } from "../../src/psap/build.ts";
import type { MergeSummary } from "./merge.ts";
import type { FileReport } from "./model.ts";
import type { PublishResult } from "./publish.ts";

const MAX_LINES_SHOWN = 50;

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

export function formatReport(args: {
  files: readonly FileReport[];
  summary: MergeSummary;
  built: BuiltIndex;
  target: string;
  publish: PublishResult | null;
  elapsedMs: number;
}): string {
  const { files, summary, built, publish } = args;
  const out: string[] = [];
  out.push(`PSAP import: ${built.manifest.data_version}`);
  for (const f of files) {
    out.push(`\n${f.path} (${f.kind}): ${f.rowsRead} rows read, ${f.kept} kept, ${f.dropped.length} dropped`);
    const unit = f.kind === "fcc-json" || f.kind === "geojson" ? "items" : "lines";
    for (const [reason, lines] of groupIssues(f)) {
      const listed = /^(bad|duplicate|no PSAP with id)/.test(reason) ? `: ${lineList(lines, unit)}` : "";
      out.push(`  - ${lines.length} ${reason}${listed}`);
    }
    for (const n of f.notes) out.push(`  - note: ${n}`);
  }
  out.push(
    `\nPSAPs: ${summary.psaps} (${summary.primaries} primary, ${summary.secondaries} secondary), ${summary.unplaced.length} left out`,
  );
  out.push("Placed by:");
  for (const [method, n] of Object.entries(summary.placement)) out.push(`  - ${method}: ${n}`);
  for (const u of summary.unplaced) out.push(`  - left out ${u.id}: ${u.reason}`);
  out.push(`County match: ${summary.countyMatched} of ${summary.psaps} PSAPs matched to a Census county`);
  if (summary.unmatchedCounties.length > 0) {
    out.push(`Counties not matched (${summary.unmatchedCounties.length}):`);
    for (const u of summary.unmatchedCounties)
      out.push(`  - ${u.state}: "${u.county}" (${u.psaps} PSAP${u.psaps > 1 ? "s" : ""})`);
  }
  const pct = summary.psaps > 0 ? ((100 * summary.withPhone) / summary.psaps).toFixed(1) : "0.0";
  out.push(`Phone numbers: ${summary.withPhone} of ${summary.psaps} (${pct} %)`);
  out.push(`Boundary polygons: ${summary.boundaries}`);
  const mb = (built.stats.totalChars / 1024 / 1024).toFixed(1);
  out.push(
    `Index: version ${built.manifest.version}, H3 resolution ${built.manifest.resolution}, ${built.stats.buckets} buckets (${mb} MiB, largest ${(built.stats.maxBucketChars / 1024).toFixed(0)} KiB), built in ${built.stats.buildMs} ms`,
  );
  if (publish) {
    out.push(
      `Keys written to ${args.target}: ${publish.keysWritten} (${publish.bucketKeys} buckets, then the pointer)`,
    );
    if (publish.deletedVersions.length > 0) {
      out.push(`Old versions deleted: ${publish.deletedVersions.join(", ")} (${publish.keysDeleted} keys)`);
    }
  } else {
    out.push(`Dry run: nothing written (${built.stats.buckets + 1} keys would be written)`);
  }
  out.push(`Time: ${(args.elapsedMs / 1000).toFixed(1)} s`);
  return out.join("\n");
}
