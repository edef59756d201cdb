// Turns an entry's stored text into what the ranking reads, once, when the entry is read (then cached).
// An area's rings are decoded the first time a fix falls within its bounding box, never before.
import { parseEntry, tupleToPsap } from "./format.ts";
import { QUANTUM } from "./geometry.ts";
import { jurisdictionRanks, type RankableEntry } from "./rank.ts";

/** Throws MalformedIndexError when the text is not an entry the builder wrote. */
export function decodeEntry(text: string): RankableEntry {
  const json = parseEntry(text);
  const psaps = json.p.map(tupleToPsap);
  return {
    psaps,
    jurisdiction: jurisdictionRanks(psaps),
    centre: json.c,
    nearest: json.n,
    nearestBoundM: json.d,
    areas: json.a.map(([kind, id, name, state, box, rings, members]) => ({
      kind,
      id,
      name,
      state,
      minLon: (box[0] as number) / QUANTUM,
      minLat: (box[1] as number) / QUANTUM,
      maxLon: (box[2] as number) / QUANTUM,
      maxLat: (box[3] as number) / QUANTUM,
      rings,
      geometry: null,
      members,
    })),
  };
}
