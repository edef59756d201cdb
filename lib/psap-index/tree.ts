// The manifest's cell tree: which entry covers a fix, or that no PSAP is within reach of it.
//
// A fix is placed by its H3 cell at the tree's deepest resolution; its ancestors are the tree's nodes
// on the way down (an H3 index holds one base-7 digit per resolution, so a node's child on the fix's
// path is the fix's digit at the child's resolution). Every fix has exactly one path, and the leaf on
// it is the node whose entry the builder made for all of that node's descendants.
import { latLngToCell } from "h3-js";
import { entryKey, type IndexManifest } from "./format.ts";

/** A fix's leaf: the tree node's name and the KV key of its entry. */
export interface LeafLocation {
  kind: "leaf";
  node: string;
  key: string;
}

export type TreeLocation = LeafLocation | { kind: "empty" } | { kind: "corrupt" };

const EMPTY_LOCATION: TreeLocation = Object.freeze({ kind: "empty" });
const CORRUPT_LOCATION: TreeLocation = Object.freeze({ kind: "corrupt" });

const LEAF = 76; // L
const EMPTY = 69; // E
const SPLIT = 83; // S
/** A split lists one subtree per digit 0..6; a pentagon has no digit 1, written `E`. */
export const TREE_ARITY = 7;

/** The low 48 bits of an H3 index's hex form: the digits of resolutions 1..15, 3 bits each, resolution 15 lowest. */
function h3LowBits(cell: string): number {
  return Number.parseInt(cell.slice(-12), 16);
}

function digitOf(low: number, resolution: number): number {
  return Math.floor(low / 2 ** (3 * (15 - resolution))) % 8;
}

/** The H3 digit of `cell` at `resolution` (1..15), read from its hex index without a call into h3. */
export function h3Digit(cell: string, resolution: number): number {
  return digitOf(h3LowBits(cell), resolution);
}

/**
 * h3's cellToParent, done on a cell's hex form (15 characters, as h3-js writes a cell): the resolution
 * (hex character 1) becomes `resolution` and every digit below it 7 (unused). The lookup runs this once
 * per fix, where a call into h3 would convert the index each way.
 */
export function h3Parent(cell: string, resolution: number): string {
  const below = 2 ** (3 * (15 - resolution));
  const low = h3LowBits(cell);
  const parentLow = low - (low % below) + (below - 1);
  return `${cell[0]}${resolution.toString(16)}${cell[2]}${parentLow.toString(16).padStart(12, "0")}`;
}

/** A tree node's name: its root cell and the digits down to it ("8226cffffffffff/35"). */
export function nodeName(root: string, digits: string): string {
  return `${root}/${digits}`;
}

/** For each position of a root's code, the index just past the subtree that starts there; null if malformed. */
export function subtreeEnds(code: string): Int32Array | null {
  const ends = new Int32Array(code.length);
  const open: number[] = []; // positions of splits still reading children
  const left: number[] = []; // children each of them still expects
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (open.length === 0 && i > 0) return null; // text after the root's subtree
    if (c === SPLIT) {
      open.push(i);
      left.push(TREE_ARITY);
      continue;
    }
    if (c !== LEAF && c !== EMPTY) return null;
    ends[i] = i + 1;
    // A finished subtree closes its parent once that parent has read all its children, and so on up.
    while (open.length > 0) {
      const k = left.length - 1;
      left[k] = (left[k] as number) - 1;
      if ((left[k] as number) > 0) break;
      ends[open.pop() as number] = i + 1;
      left.pop();
    }
  }
  return open.length === 0 && code.length > 0 ? ends : null;
}

/** The manifest's tree text for each root's code (the builder's side of `rootCode`). */
export function treeText(codes: ReadonlyMap<string, string>): string {
  let text = "";
  for (const [root, code] of codes) text += `;${root}=${code}`;
  return text;
}

/** A root's code in the tree text, or undefined when the root is not listed (nothing within reach). */
function rootCode(text: string, root: string): string | undefined {
  const at = text.indexOf(`;${root}=`);
  if (at < 0) return undefined;
  const from = at + root.length + 2;
  const end = text.indexOf(";", from);
  return text.slice(from, end < 0 ? text.length : end);
}

interface Root {
  /** The root cell (hex). */
  name: string;
  code: string;
  /** subtreeEnds(code); null when the code is malformed. */
  ends: Int32Array | null;
  /** The location of each leaf met so far, by its position in the code (made once, then reused). */
  leaves: Map<number, TreeLocation>;
}

/**
 * A number that tells roots at `resolution` apart, from a cell below them: its base cell (hex character
 * 2 holds the top 4 of its 7 bits, `low` the other 3) and its digits down to `resolution`. A lookup
 * finds its root by this number: no parent cell is written out and no string is hashed.
 */
function rootNumber(cell: string, low: number, resolution: number): number {
  const below = 2 ** (3 * (15 - resolution));
  return Number.parseInt(cell.charAt(2), 16) * 2 ** (3 + 3 * resolution) + Math.floor(low / below);
}

export class CellTree {
  readonly #manifest: IndexManifest;
  /** Roots met so far, by rootNumber (a root not listed is remembered as null). */
  readonly #roots = new Map<number, Root | null>();

  constructor(manifest: IndexManifest) {
    this.#manifest = manifest;
  }

  #root(cell: string, low: number): Root | null {
    const { root_resolution: r0, max_resolution: rMax } = this.#manifest;
    const key = rootNumber(cell, low, r0);
    let found = this.#roots.get(key);
    if (found === undefined) {
      const name = r0 === rMax ? cell : h3Parent(cell, r0);
      const code = rootCode(this.#manifest.tree, name);
      found = code === undefined ? null : { name, code, ends: subtreeEnds(code), leaves: new Map() };
      this.#roots.set(key, found);
    }
    return found;
  }

  /** The leaf whose entry covers the fix, `empty` when no PSAP is within reach, `corrupt` if the tree is bad. */
  locate(lat: number, lon: number): TreeLocation {
    const { root_resolution: r0, max_resolution: rMax } = this.#manifest;
    const cell = latLngToCell(lat, lon, rMax);
    const low = h3LowBits(cell);
    const found = this.#root(cell, low);
    if (found === null) return EMPTY_LOCATION;
    const { code, ends } = found;
    if (ends === null) return CORRUPT_LOCATION;
    let pos = 0;
    for (let res = r0; res <= rMax; res++) {
      const c = code.charCodeAt(pos);
      if (c === LEAF) return found.leaves.get(pos) ?? this.#leaf(found, pos, low, res);
      if (c === EMPTY) return EMPTY_LOCATION;
      if (res === rMax) return CORRUPT_LOCATION;
      const digit = digitOf(low, res + 1);
      if (digit >= TREE_ARITY) return CORRUPT_LOCATION;
      let p = pos + 1;
      for (let k = 0; k < digit; k++) p = ends[p] as number;
      if (p >= code.length) return CORRUPT_LOCATION;
      pos = p;
    }
    return CORRUPT_LOCATION;
  }

  /** The location of the leaf at `pos`, reached at resolution `res`: named by the fix's digits below the root. */
  #leaf(found: Root, pos: number, low: number, res: number): TreeLocation {
    let digits = "";
    for (let r = this.#manifest.root_resolution + 1; r <= res; r++) digits += digitOf(low, r);
    const node = nodeName(found.name, digits);
    const leaf: TreeLocation = Object.freeze({
      kind: "leaf",
      node,
      key: entryKey(this.#manifest.version, node),
    });
    found.leaves.set(pos, leaf);
    return leaf;
  }
}
