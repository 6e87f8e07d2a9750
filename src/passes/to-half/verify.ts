// to-half, the verification: the float32 model run in the interpreter on the given inputs, every
// value kept; a node that writes or reads a value beyond half's range stays float32; the half
// model run on the same inputs, and while its outputs' norm-wise error against the float32 run
// exceeds the bound, the half node with the largest own error is moved back to float32. A node's
// own error is that of the node alone: its half form (inputs from the float32 run, rounded to
// half where it reads half) against its float32 outputs, norm-wise.

import { run } from "../../interp/executor.js";
import { toFloat64 } from "../../interp/tensor.js";
import type { RTensor, RValue } from "../../interp/types.js";
import type { Graph, Model, Node, Type } from "../../ir/types.js";
import {
  F32,
  elemOf,
  halfLimit,
  halfMax,
  halfName,
  nodeLabel,
  type HalfOptions,
  type NodePlan,
} from "./plan.js";
import { constantValue, rewriteHalf, roundedFloat32 } from "./rewrite.js";

/** ‖a − b‖₂ / ‖b‖₂ over every element (‖a − b‖₂ when b is all zeros); shapes that differ: ∞. */
export function normError(a: RTensor, b: RTensor): number {
  if (a.shape.join(",") !== b.shape.join(",")) return Infinity;
  let x: Float64Array, y: Float64Array;
  try {
    x = toFloat64(a);
    y = toFloat64(b);
  } catch {
    return 0; // strings: not a precision question
  }
  let d = 0;
  let n = 0;
  for (let i = 0; i < y.length; i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q || (Number.isNaN(p) && Number.isNaN(q))) {
      n += Number.isFinite(q) ? q * q : 0;
      continue;
    }
    if (!Number.isFinite(p - q)) return Infinity;
    d += (p - q) * (p - q);
    n += q * q;
  }
  return n > 0 ? Math.sqrt(d / n) : Math.sqrt(d);
}

/** The largest norm-wise error over the outputs `ref` names (tensors only). */
export function outputsError(got: Record<string, RValue>, ref: Record<string, RValue>): number {
  let e = 0;
  for (const [name, r] of Object.entries(ref)) {
    const g = got[name];
    if (!g || !("dtype" in g) || !("dtype" in r)) continue;
    e = Math.max(e, normError(g, r));
  }
  return e;
}

const fmt = (x: number) => (x === Infinity ? "inf" : x.toExponential(2));

/** The largest finite magnitude in a float32 tensor. */
function magnitude(t: RTensor): number {
  let m = 0;
  const d = t.data as Float32Array;
  for (let i = 0; i < d.length; i++) {
    const x = Math.abs(d[i]!);
    if (x > m && x !== Infinity) m = x;
  }
  return m;
}

/**
 * Nodes that read or write a float32 value beyond half's range in the float32 run, with the
 * reason (the value, how large): they stay float32.
 */
export function overflowKeeps(
  g: Graph,
  values: Record<string, RValue>,
  to: number,
): Map<number, string> {
  const max = halfMax(to);
  const limit = halfLimit(to);
  const big = new Map<string, number>();
  for (const [name, v] of Object.entries(values))
    if ("dtype" in v && v.dtype === F32) {
      const m = magnitude(v);
      if (m >= limit) big.set(name, m);
    }
  const out = new Map<number, string>();
  g.nodes.forEach((n, i) => {
    for (const x of [...n.outputs, ...n.inputs]) {
      const m = big.get(x);
      if (m === undefined) continue;
      out.set(
        i,
        `value '${x}' reaches ${fmt(m)} in the float32 run, beyond ${halfName(to)}'s ${max === 65504 ? "65,504" : fmt(max)}`,
      );
      return;
    }
  });
  return out;
}

/**
 * The own error of each half node (not Constants): its half form alone, on the float32 run's
 * values, against its float32 outputs. Highest first.
 */
export function ownErrors(
  model: Model,
  plans: NodePlan[],
  types: Map<string, Type>,
  values: Record<string, RValue>,
  opts: HalfOptions,
): { index: number; error: number }[] {
  const g = model.graph;
  const inits = new Map(g.initializers.map((t) => [t.name, t]));
  const out: { index: number; error: number }[] = [];
  g.nodes.forEach((n, i) => {
    const p = plans[i]!;
    if (!p.outHalf.some(Boolean) || n.opType === "Constant") return;
    const names = [...new Set(n.inputs.filter((x) => x))];
    const feeds: Record<string, RValue> = {};
    for (const x of names) if (!inits.has(x) && values[x]) feeds[x] = values[x]!;
    const vi = (name: string) => ({ name, ...(types.get(name) ? { type: types.get(name)! } : {}) });
    const mini: Model = {
      ...model,
      functions: [],
      graph: {
        nodes: [n],
        inputs: names.filter((x) => !inits.has(x)).map(vi),
        outputs: n.outputs.filter((o) => o).map(vi),
        initializers: names.filter((x) => inits.has(x)).map((x) => inits.get(x)!),
        sparseInitializers: [],
        valueInfo: [],
      },
    };
    let error: number;
    try {
      const half = rewriteHalf(mini, [p], types, { ...opts, keepIo: true });
      const got = run(half.model, feeds);
      const ref: Record<string, RValue> = {};
      for (const o of n.outputs)
        if (o && values[o] && elemOf(types.get(o)) === F32) ref[o] = values[o]!;
      error = outputsError(got, ref);
    } catch {
      error = Infinity;
    }
    out.push({ index: i, error });
  });
  return out.sort((a, b) => b.error - a.error);
}

/**
 * The half model as onnxruntime's CPU provider computes it: the float32 model with each stored
 * tensor the half model holds in half (initializers, Constants, ConstantOfShape's value) rounded
 * to it, every op computed in float32. That provider has no float16 kernel for most ops (Conv,
 * MatMul, Gemm, Add, Mul, the activations, the reductions): it runs each in float32 between
 * Casts and then removes the Cast pairs between them, so the activations are never rounded to
 * half and the stored tensors' rounding is all that is left (docs/semantics.md, "Precision
 * lowering").
 */
export function storedRounded(model: Model, half: Model, opts: HalfOptions): Model {
  const halves = new Set<string>();
  for (const t of half.graph.initializers) if (t.dataType === opts.to) halves.add(t.name);
  const halfFill = new Set<string>();
  for (const n of half.graph.nodes) {
    const v = n.attributes.find((a) => a.name === "value");
    const t = v?.type === "TENSOR" ? v.value : undefined;
    if (t?.dataType !== opts.to || !n.outputs[0]) continue;
    if (n.opType === "Constant") halves.add(n.outputs[0]);
    else if (n.opType === "ConstantOfShape") halfFill.add(n.outputs[0]);
  }
  const clamp = !!opts.clamp;
  const g = model.graph;
  const node = (n: Node): Node => {
    const o = n.outputs[0] ?? "";
    const c = halves.has(o) ? constantValue(n) : undefined;
    if (c)
      return {
        ...n,
        attributes: [{ name: "value", type: "TENSOR", value: roundedFloat32(c, opts.to, clamp) }],
      };
    if (!halfFill.has(o)) return n;
    return {
      ...n,
      attributes: n.attributes.map((a) =>
        a.name === "value" && a.type === "TENSOR" && a.value?.dataType === F32
          ? { ...a, value: roundedFloat32(a.value, opts.to, true) }
          : a,
      ),
    };
  };
  return {
    ...model,
    graph: {
      ...g,
      initializers: g.initializers.map((t) =>
        t.dataType === F32 && halves.has(t.name) ? roundedFloat32(t, opts.to, clamp) : t,
      ),
      nodes: g.nodes.map(node),
    },
  };
}

export { fmt as formatError, nodeLabel };
