// Outputs of two runs compared: per output, the largest absolute and the largest relative
// difference between elements at the same position (NaN equals NaN; a NaN against a number, or
// shapes that differ, count as an infinite difference). The one implementation of this compare.

import { elementString, toFloat64 } from "../interp/tensor.js";
import type { RTensor, RValue } from "../interp/types.js";
import type { Graph, Model } from "../ir/types.js";

export interface Difference {
  /** Largest |x - y|. */
  abs: number;
  /** Largest |x - y| / max(|x|, |y|). */
  rel: number;
  /** Why the tensors cannot be compared element by element. */
  note?: string;
}

/** The largest absolute and relative differences of two tensors. */
export function tensorDifference(x: RTensor, y: RTensor): Difference {
  if (x.shape.join(",") !== y.shape.join(","))
    return { abs: Infinity, rel: Infinity, note: `shapes differ: [${x.shape}] vs [${y.shape}]` };
  let fx: Float64Array, fy: Float64Array;
  try {
    fx = toFloat64(x);
    fy = toFloat64(y);
  } catch {
    // Strings and other values that are not numbers: equal or not, element by element.
    const n = x.data.length;
    let same = n === y.data.length;
    for (let i = 0; same && i < n; i++) same = elementString(x, i) === elementString(y, i);
    return { abs: same ? 0 : Infinity, rel: same ? 0 : Infinity };
  }
  let abs = 0;
  let rel = 0;
  for (let i = 0; i < fx.length; i++) {
    const p = fx[i]!;
    const q = fy[i]!;
    if (p === q || (Number.isNaN(p) && Number.isNaN(q))) continue;
    const d = Math.abs(p - q);
    const r = d / Math.max(Math.abs(p), Math.abs(q));
    abs = Number.isNaN(d) ? Infinity : Math.max(abs, d);
    rel = Number.isNaN(r) ? Infinity : Math.max(rel, r);
  }
  return { abs, rel };
}

/** One output of the first run, and how the second run's output of that name differs. */
export interface OutputComparison {
  name: string;
  a: RValue;
  b?: RValue;
  difference?: Difference;
  /** The second run has no such output, or the outputs are not tensors. */
  note?: string;
}

/** Each output of `a` against the output of the same name in `b` (when given). */
export function compareOutputs(
  a: Record<string, RValue>,
  b?: Record<string, RValue>,
): OutputComparison[] {
  return Object.entries(a).map(([name, x]) => {
    const row: OutputComparison = { name, a: x };
    if (!b) return row;
    const y = Object.hasOwn(b, name) ? b[name] : undefined;
    if (y === undefined) return { ...row, note: "not an output of the result" };
    row.b = y;
    if ("dtype" in x && "dtype" in y) row.difference = tensorDifference(x, y);
    else row.note = "not a tensor: not compared";
    return row;
  });
}

/** The largest absolute difference over all compared outputs (0 when none differ). */
export function largestDifference(rows: OutputComparison[]): number {
  return rows.reduce((m, r) => Math.max(m, r.difference?.abs ?? 0), 0);
}

/**
 * Each node of `b`'s main graph (or of one of its subgraphs) against the run of `a`: the largest difference over its outputs
 * that `a` computed too (a value of the same name: what a conversion or an expansion keeps), or
 * null when none of its outputs has a match there ("no match", never a zero error). `va`/`vb`:
 * every value of each run (RunOptions.keepIntermediates).
 */
export function nodeDifferences(
  b: Model | Graph,
  va: Record<string, RValue>,
  vb: Record<string, RValue>,
): (Difference | null)[] {
  const g = "graph" in b ? b.graph : b;
  return g.nodes.map((n) => {
    let d: Difference | null = null;
    for (const o of n.outputs) {
      const x = Object.hasOwn(va, o) ? va[o] : undefined;
      const y = Object.hasOwn(vb, o) ? vb[o] : undefined;
      if (!o || !x || !y || !("dtype" in x) || !("dtype" in y)) continue;
      const e = tensorDifference(x, y);
      d = d ? { abs: Math.max(d.abs, e.abs), rel: Math.max(d.rel, e.rel) } : e;
    }
    return d;
  });
}
