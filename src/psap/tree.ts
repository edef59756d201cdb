// The manifest's cell tree: which entry covers a fix, or that no PSAP is within reach of it.
//
// A fix is placed by its H3 cell at the tree's deepest resolution; its ancestors are the tree's nodes
// on the way down (an H3 index holds one base-7 digit per resolution, so a node's child on the fix's
// path is the fix's digit at the child's resolution). Every fix has exactly one path, and the leaf on
// it is the node whose entry the builder made for all of that node's descendants.
import { cellToParent, latLngToCell } from "h3-js";
import type { IndexManifest } from "./format.ts";

export type TreeLocation = { kind: "leaf"; node: string } | { kind: "empty" } | { kind: "corrupt" };

const LEAF = 76; // L
const EMPTY = 69; // E
const SPLIT = 83; // S
/** A split lists one subtree per digit 0..6; a pentagon has no digit 1, written `E`. */
export const TREE_ARITY = 7;

/** The H3 digit of `cell` at `resolution` (1..15), read from its hex index without a call into h3. */
export function h3Digit(cell: string, resolution: number): number {
  // The low 48 bits hold the digits of resolutions 1..15 (3 bits each, resolution 15 lowest).
  const low = Number.parseInt(cell.slice(-12), 16);
  return Math.floor(low / 2 ** (3 * (15 - resolution))) % 8;
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

export class CellTree {
  readonly #manifest: IndexManifest;
  readonly #ends = new Map<string, Int32Array | null>();

  constructor(manifest: IndexManifest) {
    this.#manifest = manifest;
  }

  /** The leaf whose entry covers the fix, `empty` when no PSAP is within reach, `corrupt` if the tree is bad. */
  locate(lat: number, lon: number): TreeLocation {
    const { root_resolution: r0, max_resolution: rMax, tree } = this.#manifest;
    const cell = latLngToCell(lat, lon, rMax);
    const root = r0 === rMax ? cell : cellToParent(cell, r0);
    const code = tree[root];
    if (code === undefined) return { kind: "empty" };
    let ends = this.#ends.get(root);
    if (ends === undefined) {
      ends = subtreeEnds(code);
      this.#ends.set(root, ends);
    }
    if (ends === null) return { kind: "corrupt" };
    let pos = 0;
    let digits = "";
    for (let res = r0; res <= rMax; res++) {
      const c = code.charCodeAt(pos);
      if (c === LEAF) return { kind: "leaf", node: nodeName(root, digits) };
      if (c === EMPTY) return { kind: "empty" };
      if (res === rMax) return { kind: "corrupt" };
      const digit = h3Digit(cell, res + 1);
      if (digit >= TREE_ARITY) return { kind: "corrupt" };
      let p = pos + 1;
      for (let k = 0; k < digit; k++) p = ends[p] as number;
      if (p >= code.length) return { kind: "corrupt" };
      pos = p;
      digits += digit;
    }
    return { kind: "corrupt" };
  }
}
