// The `boundary` areas of public land (docs/contract.md, section 4): a reservation, an off-reservation trust land or a
// National Park, linked by a sourced directory row (data/directory/areas.csv) to the centre that answers
// 911 there. An area linked to several centres (the Navajo Nation's districts) is one area with all of
// them: within the group, the nearest answers first. A link is dropped, and the areas file's report says
// why, when its area is not among the land areas read, is a statistical area, or names no PSAP of this
// import (or one in another state than the row says).
import type { AreaInput, IndexedPsap } from "../index/dataset.ts";
import { dropUnknown } from "./drafts.ts";
import type { FileReport } from "./model.ts";
import type { AreaLink } from "./read-area-links.ts";
import type { LandArea } from "./read-land-areas.ts";

export interface LinkInput {
  links: readonly AreaLink[];
  report: FileReport;
}

export interface LandAreasSummary {
  /** Land areas read, and those answered by a linked centre. */
  read: number;
  linked: number;
  links: number;
}

export function landBoundaries(
  areas: readonly LandArea[],
  inputs: readonly LinkInput[],
  psaps: readonly IndexedPsap[],
): { areas: AreaInput[]; summary: LandAreasSummary } {
  const byKey = new Map(areas.map((a) => [`${a.kind}:${a.id}`, a]));
  const byId = new Map(psaps.map((p) => [p.id, p]));
  const answering = new Map<string, { area: LandArea; psapIds: string[]; state: string }>();
  let links = 0;
  for (const { links: rows, report } of inputs) {
    for (const link of rows) {
      const area = byKey.get(`${link.kind}:${link.areaId}`);
      const psap = byId.get(link.psapId);
      const why = !area
        ? `no ${link.kind === "park" ? "National Park" : "reservation or trust land"} ${link.areaId} among the land areas of this import`
        : area.refused
          ? area.refused
          : !psap
            ? `no PSAP with id ${link.psapId} in this import`
            : psap.state !== link.state
              ? `PSAP ${link.psapId} is in ${psap.state}, not ${link.state}`
              : null;
      if (why || !area) {
        dropUnknown(report, link.line, why ?? "unknown area");
        continue;
      }
      links++;
      const key = `${area.kind}:${area.id}`;
      const entry = answering.get(key) ?? { area, psapIds: [], state: link.state };
      if (!entry.psapIds.includes(link.psapId)) entry.psapIds.push(link.psapId);
      answering.set(key, entry);
    }
  }
  const out: AreaInput[] = [...answering.values()].map(({ area, psapIds, state }) => ({
    kind: "boundary",
    id: `${area.kind}:${area.id}`,
    name: area.name,
    state,
    rings: area.rings,
    psapIds,
  }));
  return { areas: out, summary: { read: areas.length, linked: out.length, links } };
}
