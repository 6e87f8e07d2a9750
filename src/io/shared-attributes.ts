// What the decoder shares between nodes. A model repeats the same few attributes (keepdims=1,
// axes=[1], ...) on node after node, and the IR treats an attribute as a value (passes already
// share attributes and attribute lists between nodes), so a plain attribute (numbers, strings and
// their lists: no tensor, no graph) read again from the same bytes is the object read before,
// with no parsing and no allocation; and a node whose attributes are the objects its op type was
// last read with shares that list.

import type * as IR from "../ir/types.js";
import { PLAIN_ATTR_TYPES } from "../text/syntax.js";
import type { Stack } from "./wire-reader.js";

/** Attribute messages up to this many bytes may be shared. */
const MAX_BYTES = 64;
const MASK = 1023;

/** Recent plain attributes by the hash of their bytes in one buffer, and lists by op type. */
export class SharedAttributes {
  private readonly seen: (IR.Attribute | undefined)[] = new Array(MASK + 1);
  private readonly starts = new Int32Array(MASK + 1);
  private readonly ends = new Int32Array(MASK + 1);
  private readonly lists = new Map<string, IR.Attribute[]>();
  /** The slot of the bytes last looked up (-1: too long to share). */
  private slot = -1;

  constructor(private readonly buf: Uint8Array) {}

  /** The attribute read before from the same bytes as [start, end), if one is remembered. */
  find(start: number, end: number): IR.Attribute | undefined {
    const buf = this.buf;
    const n = end - start;
    if (n > MAX_BYTES) {
      this.slot = -1;
      return undefined;
    }
    let h = 0x811c9dc5;
    for (let p = start; p < end; p++) h = Math.imul(h ^ buf[p]!, 0x01000193);
    const slot = (h ^ (h >>> 15)) & MASK;
    this.slot = slot;
    const hit = this.seen[slot];
    if (hit === undefined) return undefined;
    const s = this.starts[slot]!;
    if (this.ends[slot]! - s !== n) return undefined;
    for (let i = 0; i < n; i++) if (buf[s + i] !== buf[start + i]) return undefined;
    return hit;
  }

  /** Remembers an attribute just read from [start, end), the bytes last given to find. */
  keep(a: IR.Attribute, start: number, end: number): void {
    if (this.slot < 0 || !PLAIN_ATTR_TYPES.has(a.type)) return;
    this.seen[this.slot] = a;
    this.starts[this.slot] = start;
    this.ends[this.slot] = end;
  }

  /** A node's attribute list off the stack: the list its op type was last read with, when it holds the same. */
  list(opType: string, attrs: Stack<IR.Attribute>, from: number): IR.Attribute[] {
    const n = attrs.top - from;
    if (n === 0) return [];
    const last = this.lists.get(opType);
    if (last !== undefined && last.length === n && attrs.matches(from, last)) {
      attrs.top = from;
      return last;
    }
    const list = attrs.take(from);
    this.lists.set(opType, list);
    return list;
  }
}
