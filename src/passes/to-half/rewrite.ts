// to-half, the rewrite: a model made half by a plan (plan.ts). Each float32 value gets one home
// type: what its producer writes (half for a half output slot), float32 for a graph input or
// output that keeps its type, and for a tensor stored in the model (an initializer, a Constant)
// half when some reader wants it half and every other takes either. A reader that wants the
// other type reads it through one Cast, shared by every such reader; a graph output that keeps
// float32 is written by a Cast from the half value, which takes the old name. Cast targets and
// the dtype attributes of the tensor-making ops follow their output's home. Then no two Casts
// stay back to back where one of them is ours (merged into one where that is exact or only drops
// a rounding to half), and the nodes are stored in topological order.

import { fromIRTensor, toIRTensor } from "../../interp/ir-tensors.js";
import { fromFloat64, toFloat64 } from "../../interp/tensor.js";
import { node as makeNode } from "../../ir/builder.js";
import { NameScope, topologicalOrder } from "../../ir/graph.js";
import { outerNamesUsedBy } from "../../ir/graph.js";
import { Tensor } from "../../ir/tensor.js";
import type { Attribute, Graph, Model, Node, Type } from "../../ir/types.js";
import { DataType } from "../../ir/types.js";
import { F32, elemOf, halfLimit, halfMax, type HalfOptions, type NodePlan } from "./plan.js";

/** Tensors made half before (the verification rewrites the model again and again). */
const made = new WeakMap<Tensor, Map<string, Tensor | null>>();

/** A tensor made half (values beyond the range clamped when `clamp`; else undefined). */
export function halfTensor(t: Tensor, to: number, clamp: boolean): Tensor | undefined {
  let m = made.get(t);
  if (!m) made.set(t, (m = new Map()));
  const key = `${to}:${clamp}`;
  if (!m.has(key)) m.set(key, makeHalf(t, to, clamp) ?? null);
  return m.get(key) ?? undefined;
}

function makeHalf(t: Tensor, to: number, clamp: boolean): Tensor | undefined {
  const v = toFloat64(fromIRTensor(t));
  const max = halfMax(to);
  const limit = halfLimit(to);
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    if (Number.isFinite(x) && Math.abs(x) >= limit) {
      if (!clamp) return undefined;
      v[i] = Math.sign(x) * max;
    }
  }
  const out = toIRTensor(fromFloat64(to, [...t.dims], v), t.name);
  if (t.docString) out.docString = t.docString;
  return out;
}

/** Tensors rounded to half and widened back (the verification's float32 runtime, repeatedly). */
const rounded = new WeakMap<Tensor, Map<string, Tensor>>();

/** A float32 tensor's values rounded to the half type (clamped when `clamp`), kept float32. */
export function roundedFloat32(t: Tensor, to: number, clamp: boolean): Tensor {
  let m = rounded.get(t);
  if (!m) rounded.set(t, (m = new Map()));
  const key = `${to}:${clamp}`;
  let r = m.get(key);
  if (!r) {
    const h = halfTensor(t, to, clamp);
    r = h ? toIRTensor(fromFloat64(F32, [...t.dims], toFloat64(fromIRTensor(h))), t.name) : t;
    m.set(key, r);
  }
  return r;
}

/** The largest finite magnitude of a float32 tensor's values. */
export function largestMagnitude(t: Tensor): number {
  let m = 0;
  for (const x of toFloat64(fromIRTensor(t))) if (Number.isFinite(x)) m = Math.max(m, Math.abs(x));
  return m;
}

/** The float32 tensor a Constant node holds (value, value_float, value_floats), or undefined. */
export function constantValue(n: Node): Tensor | undefined {
  if (n.opType !== "Constant" || (n.domain !== "" && n.domain !== "ai.onnx")) return undefined;
  const a = n.attributes[0];
  if (!a) return undefined;
  if (a.type === "TENSOR" && a.value?.dataType === F32) return a.value;
  if (a.type === "FLOAT" && a.value !== undefined) return Tensor.from(F32, [], [a.value]);
  if (a.type === "FLOATS" && a.value) return Tensor.from(F32, [a.value.length], a.value);
  return undefined;
}

export interface Rewritten {
  model: Model;
  /** Cast nodes the rewrite added (after merging pairs). */
  casts: number;
  /** Stored tensors (initializers and Constants) made half, and their bytes before. */
  halfTensors: number;
}

const isCast = (n: Node) => n.opType === "Cast" && (n.domain === "" || n.domain === "ai.onnx");
const castTo = (n: Node) => {
  const a = n.attributes.find((x) => x.name === "to");
  return a && a.type === "INT" ? Number(a.value) : undefined;
};

/** Whether the io value `name` keeps float32. */
function keepsIo(opts: HalfOptions, name: string): boolean {
  const k = opts.keepIo ?? true;
  return typeof k === "boolean" ? k : k.includes(name);
}

/** The model made half as `plans` say (one plan per node of the main graph). */
export function rewriteHalf(
  model: Model,
  plans: NodePlan[],
  types: Map<string, Type>,
  opts: HalfOptions,
): Rewritten {
  const g = model.graph;
  const to = opts.to;
  const clamp = !!opts.clamp;
  const scope = new NameScope(g);
  const isF32 = (name: string) => elemOf(types.get(name)) === F32;
  const initNames = new Set(g.initializers.map((t) => t.name));
  const inputNames = new Set(g.inputs.map((v) => v.name));

  // Who reads each float32 value, and as what: half, float32, or either.
  type Want = "half" | "f32" | "any";
  const wants = new Map<string, Want[]>();
  // Read by a subgraph, by name: keeps its float32 type.
  const readInside = new Set<string>();
  const want = (name: string, w: Want) => {
    if (!name || !isF32(name)) return;
    let l = wants.get(name);
    if (!l) wants.set(name, (l = []));
    l.push(w);
  };
  // Values a node writes in half (a flex group beside one reads its stored partners in half).
  const writtenHalf = new Set<string>();
  g.nodes.forEach((n, i) =>
    n.outputs.forEach((o, s) => plans[i]!.outHalf[s] && writtenHalf.add(o)),
  );
  for (const v of g.inputs) if (!keepsIo(opts, v.name)) writtenHalf.add(v.name);
  const stored = new Set(initNames);
  for (const n of g.nodes) if (constantValue(n) && n.outputs[0]) stored.add(n.outputs[0]);
  g.nodes.forEach((n, i) => {
    const p = plans[i]!;
    const w = n.inputs.map((_, s): Want => (p.inHalf[s] ? "half" : p.inFlex[s] ? "any" : "f32"));
    // Equal(half value, stored tensor): the stored tensor is wanted half, so that both are read
    // in one type without a Cast (where another reader keeps it float32, the rewrite casts).
    for (const group of p.flexGroups ?? [])
      if (group.some((s) => writtenHalf.has(n.inputs[s]!)))
        for (const s of group) if (stored.has(n.inputs[s]!)) w[s] = "half";
    n.inputs.forEach((x, s) => want(x, w[s]!));
    for (const x of outerNamesUsedBy(n)) {
      want(x, "f32");
      readInside.add(x);
    }
  });
  for (const o of g.outputs) want(o.name, keepsIo(opts, o.name) ? "f32" : "half");

  // Home types.
  const home = new Map<string, number>();
  for (const v of g.inputs)
    if (isF32(v.name) && !initNames.has(v.name))
      home.set(v.name, keepsIo(opts, v.name) || readInside.has(v.name) ? F32 : to);
  const storedHalf = (name: string) => {
    const w = wants.get(name) ?? [];
    return w.includes("half") && w.every((x) => x !== "f32");
  };
  const initializers = g.initializers.map((t) => {
    if (t.dataType !== F32 || inputNames.has(t.name) || !storedHalf(t.name)) {
      if (t.dataType === F32) home.set(t.name, F32);
      return t;
    }
    const h = halfTensor(t, to, clamp);
    home.set(t.name, h ? to : F32);
    return h ?? t;
  });
  let halfTensors = initializers.filter((t, i) => t !== g.initializers[i]).length;
  const nodes: Node[] = g.nodes.map((n, i) => {
    const p = plans[i]!;
    const c = constantValue(n);
    if (c && n.outputs[0]) {
      const o = n.outputs[0];
      const h = storedHalf(o) ? halfTensor(c, to, clamp) : undefined;
      home.set(o, h ? to : F32);
      if (!h) return n;
      halfTensors++;
      return { ...n, attributes: [{ name: "value", type: "TENSOR", value: h }] };
    }
    n.outputs.forEach((o, s) => {
      if (o && isF32(o)) home.set(o, p.outHalf[s] ? to : F32);
    });
    if (!p.outHalf.some(Boolean)) return n;
    return { ...n, attributes: halfAttributes(n, p, to) };
  });

  // Graph outputs whose home is not what they keep: the producer writes a new name, a Cast the old.
  const rename = new Map<string, string>();
  const added: Node[] = [];
  const outputs = g.outputs.map((v) => {
    if (!isF32(v.name) || inputNames.has(v.name) || initNames.has(v.name)) return v;
    const w = keepsIo(opts, v.name) ? F32 : to;
    const h = home.get(v.name);
    if (h === undefined || h === w) return w === F32 ? v : retype(v, to);
    const inner = scope.fresh(`${v.name}_${h === F32 ? "float" : "half"}`);
    rename.set(v.name, inner);
    home.set(inner, h);
    added.push(makeNode("Cast", [inner], [v.name], { to: w }));
    return w === F32 ? v : retype(v, to);
  });

  // Casts for readers that want the other type, one per value and type.
  const casts = new Map<string, string>();
  const castOf = (x: string, t: number): string => {
    const key = `${t}\u0000${x}`;
    let name = casts.get(key);
    if (!name) {
      name = scope.fresh(`${x}_${t === F32 ? "float" : "half"}`);
      casts.set(key, name);
      added.push(makeNode("Cast", [x], [name], { to: t }));
    }
    return name;
  };
  const read = (x: string, w: Want): string => {
    if (!x) return x;
    const r = rename.get(x) ?? x;
    const h = home.get(r);
    if (h === undefined || w === "any") return r;
    const t = w === "half" ? to : F32;
    return h === t ? r : castOf(r, t);
  };
  const rewritten = nodes.map((n, i) => {
    const p = plans[i]!;
    const wanted = n.inputs.map((_, s): Want =>
      p.inHalf[s] ? "half" : p.inFlex[s] ? "any" : "f32",
    );
    // Flex slots of one type variable whose values' homes differ: all read as float32 (exact).
    for (const group of p.flexGroups ?? []) {
      const homes = new Set(group.map((s) => home.get(rename.get(n.inputs[s]!) ?? n.inputs[s]!)));
      if (homes.has(to) && homes.has(F32)) for (const s of group) wanted[s] = "f32";
    }
    const inputs = n.inputs.map((x, s) => read(x, wanted[s]!));
    const outs = n.outputs.map((o) => rename.get(o) ?? o);
    const same =
      inputs.every((x, s) => x === n.inputs[s]) && outs.every((o, s) => o === n.outputs[s]);
    return same ? n : { ...n, inputs, outputs: outs };
  });
  // A subgraph reads outer values by name: those stay float32 (see wants) and keep their names.

  const merged = mergeCastPairs(
    [...rewritten, ...added],
    new Set(added),
    new Set(g.outputs.map((o) => o.name)),
    home,
  );
  const graph: Graph = {
    ...g,
    nodes: merged.nodes,
    initializers,
    inputs: g.inputs.map((v) => (home.get(v.name) === to ? retype(v, to) : v)),
    outputs,
    valueInfo: g.valueInfo.map((v) => {
      const h = home.get(v.name);
      return h !== undefined && h !== elemOf(v.type) ? retype(v, h) : v;
    }),
  };
  const order = topologicalOrder(graph);
  if (!order.every((v, i) => v === i)) graph.nodes = order.map((i) => graph.nodes[i]!);
  return { model: { ...model, graph }, casts: merged.casts, halfTensors };
}

function retype<V extends { type?: Type }>(v: V, to: number): V {
  return v.type?.kind === "tensor" ? { ...v, type: { ...v.type, elemType: to } } : v;
}

/** A half node's attributes: Cast's `to`, ConstantOfShape's value, the ops' `dtype`. */
function halfAttributes(n: Node, p: NodePlan, to: number): Attribute[] {
  const out = n.attributes.map((a): Attribute => {
    if (n.opType === "Cast" && a.name === "to" && p.outHalf[0])
      return { ...a, value: BigInt(to) } as Attribute;
    if (a.name === "dtype" && a.type === "INT" && Number(a.value) === F32 && p.outHalf[0])
      return { ...a, value: BigInt(to) };
    if (n.opType === "ConstantOfShape" && a.name === "value" && a.type === "TENSOR" && a.value) {
      const h = halfTensor(a.value, to, true);
      return h ? { ...a, value: h } : a;
    }
    return a;
  });
  const has = (name: string) => n.attributes.some((a) => a.name === name);
  // The defaults that mean float32: ConstantOfShape's value (a float32 zero), the random ops' dtype.
  if (n.opType === "ConstantOfShape" && !has("value"))
    out.push({
      name: "value",
      type: "TENSOR",
      value: toIRTensor(fromFloat64(to, [1], new Float64Array(1))),
    });
  if ((n.opType === "RandomNormal" || n.opType === "RandomUniform") && !has("dtype"))
    out.push({ name: "dtype", type: "INT", value: BigInt(to) });
  return out;
}

const HALVES = new Set<number>([DataType.FLOAT16, DataType.BFLOAT16]);
const WIDE = new Set<number>([DataType.FLOAT, DataType.DOUBLE]);

/**
 * Cast after Cast, where one of the two is ours and the first's output is read by the second
 * only: one Cast from the first's input when that is exact (the first widens half to float32) or
 * only drops a rounding to half (the first narrows to half, the second widens again).
 */
function mergeCastPairs(
  nodes: Node[],
  ours: Set<Node>,
  graphOutputs: Set<string>,
  home: Map<string, number>,
): { nodes: Node[]; casts: number } {
  const readers = new Map<string, number>();
  for (const n of nodes) {
    for (const x of n.inputs) if (x) readers.set(x, (readers.get(x) ?? 0) + 1);
    for (const x of outerNamesUsedBy(n)) readers.set(x, (readers.get(x) ?? 0) + 2);
  }
  const producer = new Map<string, Node>();
  for (const n of nodes) for (const o of n.outputs) producer.set(o, n);
  const dropped = new Set<Node>();
  const replaced = new Map<Node, Node>();
  const renamed = new Map<string, string>();
  // A Cast from half to the same half (the model's float32-to-float32 Cast, retyped): none.
  // (onnxruntime's CPU cast insertion trips on one when the graph is not optimized first.)
  for (const n of nodes) {
    const x = n.inputs[0];
    const t = castTo(n);
    if (!isCast(n) || !x || t === undefined || !HALVES.has(t) || home.get(x) !== t) continue;
    const o = n.outputs[0]!;
    if (
      graphOutputs.has(o) ||
      ((readers.get(o) ?? 0) > 0 && nodes.some((m) => outerNamesUsedBy(m).has(o)))
    )
      continue;
    dropped.add(n);
    renamed.set(o, renamed.get(x) ?? x);
  }
  for (const second of nodes) {
    if (!isCast(second) || dropped.has(second)) continue;
    const mid = renamed.get(second.inputs[0]!) ?? second.inputs[0]!;
    const first = producer.get(mid);
    if (!first || !isCast(first) || dropped.has(first)) continue;
    if (!ours.has(first) && !ours.has(second)) continue;
    if (readers.get(mid) !== 1 || graphOutputs.has(mid)) continue;
    const a = castTo(first);
    const b = castTo(second);
    const src = first.inputs[0]!;
    const srcType = home.get(src);
    const exact = a !== undefined && WIDE.has(a) && srcType !== undefined && HALVES.has(srcType);
    const dropsRounding = a !== undefined && HALVES.has(a) && b !== undefined && WIDE.has(b);
    if (!exact && !dropsRounding) continue;
    dropped.add(first);
    if (srcType === b && !graphOutputs.has(second.outputs[0]!)) {
      // Back where it started (float32 to half and back, dropped rounding and all): no Cast.
      dropped.add(second);
      renamed.set(second.outputs[0]!, src);
      continue;
    }
    const merged = { ...second, inputs: [src] };
    if (ours.has(second) || ours.has(first)) ours.add(merged);
    replaced.set(second, merged);
  }
  const out = nodes
    .filter((n) => !dropped.has(n))
    .map((n) => replaced.get(n) ?? n)
    .map((n) => {
      if (!n.inputs.some((x) => renamed.has(x))) return n;
      const m = { ...n, inputs: n.inputs.map((x) => renamed.get(x) ?? x) };
      if (ours.has(n)) ours.add(m);
      return m;
    });
  // Ours that are left (a merge of ours with the model's own counts as ours).
  const casts = out.filter((n) => ours.has(n)).length;
  return { nodes: out, casts };
}
