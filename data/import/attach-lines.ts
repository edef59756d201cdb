// Gives every PSAP its lines: the operator's project-CSV phone (if any), then the rows of the lines files
// (the directory's and the operator's), ordered as every record lists them (lib/lines.ts). A row
// that names no PSAP of this import is dropped, and its file's report says so.

import { bestOf, orderLines } from "../../lib/lines.ts";
import type { PsapLine } from "../../sdk/src/protocol.ts";
import type { IndexedPsap } from "../index/dataset.ts";
import { dropUnknown } from "./drafts.ts";
import type { DirectoryLineRow, FileReport } from "./model.ts";

export interface LineInput {
  rows: readonly DirectoryLineRow[];
  report: FileReport;
}

export interface LinesSummary {
  /** Rows kept, and the PSAPs that have any line after the merge. */
  rows: number;
  psapsWithLines: number;
  psapsWith24x7: number;
}

export function attachLines(psaps: IndexedPsap[], inputs: readonly LineInput[]): LinesSummary {
  const byId = new Map(psaps.map((p) => [p.id, p]));
  const gathered = new Map<string, PsapLine[]>();
  let rows = 0;
  for (const { rows: fileRows, report } of inputs) {
    for (const row of fileRows) {
      const psap = byId.get(row.psapId);
      if (!psap) {
        dropUnknown(report, row.line, `no PSAP with id ${row.psapId} in this import`);
        continue;
      }
      if (psap.state !== row.state) {
        dropUnknown(report, row.line, `PSAP ${row.psapId} is in ${psap.state}, not ${row.state}`);
        continue;
      }
      rows++;
      const list = gathered.get(psap.id) ?? [...psap.lines];
      list.push(row.value);
      gathered.set(psap.id, list);
    }
  }
  for (const [id, lines] of gathered) {
    const psap = byId.get(id) as IndexedPsap;
    psap.lines = orderLines(lines);
    Object.assign(psap, bestOf(psap.lines));
  }
  const withLines = psaps.filter((p) => p.lines.length > 0);
  return {
    rows,
    psapsWithLines: withLines.length,
    psapsWith24x7: withLines.filter((p) => p.lines.some((l) => l.kind !== "administrative")).length,
  };
}
