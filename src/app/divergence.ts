// Where two runs of one graph part ways: every value of each run compared element by element in
// units in the last place of its element type, and the first diverging nodes, those in execution
// order whose outputs differ by more than a threshold while none of their inputs does. The one
// implementation of "first divergence", for scripts/divergence.ts and the page.

import { topologicalOrder } from "../ir/graph.js";
import { DataType, type Graph, type Node } from "../ir/types.js";
import type { RTensor, RValue } from "../interp/types.js";

/** How one value of two runs differs. */
export interface ValueDivergence {
  name: string;
  /** Elements further apart than the threshold. */
  count: number;
  total: number;
  /** The largest distance in units in the last place (integers: in steps of 1; Infinity: shapes, types or NaN differ). */
  ulps: number;
  /** The largest absolute difference. */
  abs: number;
}

/** A node whose outputs diverge while its inputs do not. */
export interface NodeDivergence {
  /** Place in execution order (0-based). */
  position: number;
  /** Index in the graph's node list. */
  index: number;
  node: Node;
  /** The diverging outputs. */
  outputs: ValueDivergence[];
}

const F32 = new Float32Array(1);
const I32 = new Int32Array(F32.buffer);
const F64 = new Float64Array(1);
const I64 = new BigInt64Array(F64.buffer);

/** A float's bits as an integer that counts ulps (−0 and +0 both 0, negatives below). */
function orderedF32(v: number): number {
  F32[0] = v;
  const i = I32[0]!;
  return i < 0 ? -(i & 0x7fffffff) : i;
}
function orderedF64(v: number): bigint {
  F64[0] = v;
  const i = I64[0]!;
  return i < 0n ? -(i & 0x7fffffffffffffffn) : i;
}
const orderedHalf = (bits: number) => (bits & 0x8000 ? -(bits & 0x7fff) : bits);

/** Whether a float16 (`bf` false) or bfloat16 (`bf` true) bit pattern is a NaN. */
const halfNaN = (bits: number, bf: boolean) =>
  bf
    ? (bits & 0x7f80) === 0x7f80 && (bits & 0x7f) !== 0
    : (bits & 0x7c00) === 0x7c00 && (bits & 0x3ff) !== 0;

/** The distance of element i of x and y in ulps of their element type, and the absolute difference. */
function elementDistance(x: RTensor, y: RTensor, i: number): [number, number] {
  const a = x.data[i]!;
  const b = y.data[i]!;
  if (a === b) return [0, 0];
  switch (x.dtype) {
    case DataType.FLOAT:
    case DataType.DOUBLE: {
      const p = a as number;
      const q = b as number;
      if (Number.isNaN(p) || Number.isNaN(q))
        return Number.isNaN(p) && Number.isNaN(q) ? [0, 0] : [Infinity, Infinity];
      const u =
        x.dtype === DataType.FLOAT
          ? Math.abs(orderedF32(p) - orderedF32(q))
          : Number(
              orderedF64(p) > orderedF64(q)
                ? orderedF64(p) - orderedF64(q)
                : orderedF64(q) - orderedF64(p),
            );
      return [u, Math.abs(p - q)];
    }
    case DataType.FLOAT16:
    case DataType.BFLOAT16: {
      const bf = x.dtype === DataType.BFLOAT16;
      const p = a as number;
      const q = b as number;
      if (halfNaN(p, bf) || halfNaN(q, bf))
        return halfNaN(p, bf) && halfNaN(q, bf) ? [0, 0] : [Infinity, Infinity];
      const u = Math.abs(orderedHalf(p) - orderedHalf(q));
      return [u, u === 0 ? 0 : Math.abs(halfValue(p, bf) - halfValue(q, bf))];
    }
    default: {
      if (typeof a === "bigint" || typeof b === "bigint") {
        const d = BigInt(a as bigint) - BigInt(b as bigint);
        const n = Number(d < 0n ? -d : d);
        return [n, n];
      }
      if (typeof a === "number" && typeof b === "number") return [Math.abs(a - b), Math.abs(a - b)];
      return [Infinity, Infinity]; // strings and the like: equal or not
    }
  }
}

function halfValue(bits: number, bf: boolean): number {
  if (bf) {
    I32[0] = bits << 16;
    return F32[0]!;
  }
  const s = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const m = bits & 0x3ff;
  if (e === 0x1f) return m ? NaN : s * Infinity;
  return e === 0 ? s * m * 2 ** -24 : s * (1 + m / 1024) * 2 ** (e - 15);
}

/**
 * How value `name` of two runs differs: the elements more than `threshold` ulps apart, the largest
 * distance in ulps and the largest absolute difference. Shapes or element types that differ count
 * every element, at an infinite distance.
 */
export function valueDivergence(
  name: string,
  x: RValue,
  y: RValue,
  threshold = 0,
): ValueDivergence {
  const total = "dtype" in x ? x.data.length : 0;
  if (
    !("dtype" in x) ||
    !("dtype" in y) ||
    x.dtype !== y.dtype ||
    x.shape.join(",") !== y.shape.join(",") ||
    x.data.length !== y.data.length
  )
    return { name, count: Math.max(total, 1), total, ulps: Infinity, abs: Infinity };
  let count = 0;
  let ulps = 0;
  let abs = 0;
  if (x.dtype === DataType.FLOAT) {
    // The common case on large tensors: equal bits skipped without a call.
    const p = x.data as Float32Array;
    const q = y.data as Float32Array;
    const pb = new Uint32Array(p.buffer, p.byteOffset, total);
    const qb = new Uint32Array(q.buffer, q.byteOffset, total);
    for (let i = 0; i < total; i++) {
      if (pb[i] === qb[i]) continue;
      const [u, d] = elementDistance(x, y, i);
      if (u > threshold) count++;
      if (u > ulps) ulps = u;
      if (d > abs) abs = d;
    }
    return { name, count, total, ulps, abs };
  }
  for (let i = 0; i < total; i++) {
    if (x.data[i] === y.data[i]) continue;
    const [u, d] = elementDistance(x, y, i);
    if (u > threshold) count++;
    if (u > ulps) ulps = u;
    if (d > abs) abs = d;
  }
  return { name, count, total, ulps, abs };
}

export interface DivergenceOptions {
  /** Elements at most this many ulps apart count as equal (default 0: bit-identical). */
  threshold?: number;
  /**
   * Values known to diverge from an earlier comparison (a run compared in windows of nodes):
   * read, and extended with the values this call finds diverging.
   */
  diverged?: Set<string>;
  /** The nodes to look at, by index (default all); the order is still the execution order. */
  nodes?: ReadonlySet<number>;
}

/**
 * The nodes of `g` in execution order whose outputs diverge between the runs `a` and `b` (each a
 * map of every value it kept, RunOptions.keepIntermediates) by more than the threshold while none
 * of their inputs does. A value either run lacks is not compared; an input counts as diverging
 * when it was found so here or is in `opts.diverged`.
 */
export function firstDivergences(
  g: Graph,
  a: Record<string, RValue>,
  b: Record<string, RValue>,
  opts: DivergenceOptions = {},
): NodeDivergence[] {
  const threshold = opts.threshold ?? 0;
  const diverged = opts.diverged ?? new Set<string>();
  const found: NodeDivergence[] = [];
  topologicalOrder(g).forEach((index, position) => {
    if (opts.nodes && !opts.nodes.has(index)) return;
    const node = g.nodes[index]!;
    const outs: ValueDivergence[] = [];
    for (const o of node.outputs) {
      const x = a[o];
      const y = b[o];
      if (!o || x === undefined || y === undefined) continue;
      const v = valueDivergence(o, x, y, threshold);
      if (v.count > 0) outs.push(v);
    }
    if (outs.length === 0) return;
    const clean = node.inputs.every((i) => !diverged.has(i));
    for (const v of outs) diverged.add(v.name);
    if (clean) found.push({ position, index, node, outputs: outs });
  });
  return found;
}
