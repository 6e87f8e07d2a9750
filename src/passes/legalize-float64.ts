// legalize-float64: a model's float64 computation made float32, for a backend without float64
// (`lower --target` runs it when the profile refuses a node's float64): initializers and Constant
// values rounded to float32 (refused, with a note naming the tensor, where a finite value is
// beyond float32's range), Cast and CastLike targets, the dtype attributes of the ops that make
// tensors (RandomNormal, RandomUniform, their -Like forms, EyeLike), value types. The model's
// interface stays: a float64 graph input is cast to float32 where it enters, a float64 output is
// cast back where it leaves. In every graph (passes/scopes.ts): a subgraph's and a local
// function's values, tensors and attributes are made float32 as the main graph's are (their
// interfaces are inside the model: a Loop's carried values, a branch's outputs, a function's
// inputs turn float32 with what feeds them); what a subgraph reads of a renamed main-graph value
// follows the renaming.

import { fromIRTensor, toIRTensor } from "../interp/ir-tensors.js";
import { toFloat64 } from "../interp/tensor.js";
import { node as makeNode } from "../ir/builder.js";
import { Tensor } from "../ir/tensor.js";
import { renameValues, replaceUses } from "../ir/visit.js";
import {
  DataType,
  type Attribute,
  type Graph,
  type Model,
  type Node,
  type Type,
} from "../ir/types.js";
import type { Note, Pass } from "./pass.js";
import { eachScope, type PassScope } from "./scopes.js";

const D = DataType.DOUBLE;
const F = DataType.FLOAT;
const DTYPE_OPS = new Set([
  "RandomNormal",
  "RandomUniform",
  "RandomNormalLike",
  "RandomUniformLike",
  "EyeLike",
]);
const FLT_MAX = 3.4028234663852886e38;

function float32Tensor(t: Tensor): Tensor | string {
  const v = toFloat64(fromIRTensor(t));
  for (const x of v)
    if (Number.isFinite(x) && Math.abs(x) > FLT_MAX) return `${x} is beyond float32's range`;
  return toIRTensor({ dtype: F, shape: [...t.dims], data: Float32Array.from(v) }, t.name);
}

const retype = (t: Type | undefined): Type | undefined =>
  t && t.kind === "tensor" && t.elemType === D ? { ...t, elemType: F } : t;

export function legalizeFloat64(): Pass {
  return {
    name: "legalize-float64",
    run(model: Model) {
      const notes: Note[] = [];
      let changed = 0;
      let boundary = { inputs: 0, outputs: 0 };
      let failure: Note | undefined;
      const out = eachScope(model, (g, scope) => {
        if (failure) return g;
        const r = legalizeGraph(g, scope);
        if ("error" in r) {
          failure = r.error;
          return g;
        }
        changed += r.changed;
        if (scope.kind === "main") boundary = r.boundary;
        return r.graph;
      });
      if (failure) return { ok: false, notes: [failure] };
      if (!changed && !boundary.inputs && !boundary.outputs)
        return { ok: true, model, modified: false, notes };
      notes.push({
        level: "info",
        message: `float64 made float32: ${changed} tensor(s) and attribute(s), ${boundary.inputs} input(s) and ${boundary.outputs} output(s) cast at the boundary`,
      });
      return { ok: true, model: out, modified: true, notes };
    },
  };
}

type Legalized =
  | { graph: Graph; changed: number; boundary: { inputs: number; outputs: number } }
  | { error: Note };

/** One graph made float32: the main graph keeps its float64 interface (casts at its edges). */
function legalizeGraph(g: Graph, scope: PassScope): Legalized {
  const main = scope.kind === "main";
  const refused = (what: string, why: string): Legalized => ({
    error: {
      level: "error",
      where: main ? what : `${scope.where} > ${what}`,
      message: `not made float32: ${why}`,
    },
  });
  let changed = 0;
  const initializers: Tensor[] = [];
  for (const t of g.initializers) {
    if (t.dataType !== D) {
      initializers.push(t);
      continue;
    }
    const f = float32Tensor(t);
    if (typeof f === "string") return refused(`initializer '${t.name}'`, f);
    initializers.push(f);
    changed++;
  }
  const fixAttr = (n: Node, a: Attribute): Attribute | string => {
    if (a.type === "TENSOR" && a.value?.dataType === D) {
      const f = float32Tensor(a.value);
      return typeof f === "string" ? f : { ...a, value: f };
    }
    const cast =
      (n.opType === "Cast" && a.name === "to") || (DTYPE_OPS.has(n.opType) && a.name === "dtype");
    if (cast && a.type === "INT" && Number(a.value) === D) return { ...a, value: BigInt(F) };
    return a;
  };
  let nodes: Node[] = [];
  for (const n of g.nodes) {
    let attributes: Attribute[] | undefined;
    for (let i = 0; i < n.attributes.length; i++) {
      const a = n.attributes[i]!;
      const f = fixAttr(n, a);
      if (typeof f === "string") return refused(`node '${n.name ?? n.opType}'`, f);
      if (f !== a) {
        changed++;
        (attributes ??= n.attributes.slice())[i] = f;
      }
    }
    nodes.push(attributes ? { ...n, attributes } : n);
  }
  const retypeAll = (list: Graph["inputs"]) =>
    list.map((v) => (retype(v.type) === v.type ? v : { ...v, type: retype(v.type) }));
  if (!main)
    return {
      graph: {
        ...g,
        nodes,
        initializers,
        inputs: retypeAll(g.inputs),
        outputs: retypeAll(g.outputs),
        valueInfo: retypeAll(g.valueInfo),
      },
      changed,
      boundary: { inputs: 0, outputs: 0 },
    };
  // Graph inputs: float64 ones keep their type and are cast on entry under a new name.
  const rename = new Map<string, string>();
  const entry: Node[] = [];
  const inits = new Set(g.initializers.map((t) => t.name));
  for (const v of g.inputs)
    if (v.type?.kind === "tensor" && v.type.elemType === D && !inits.has(v.name)) {
      const to = scope.fresh(`${v.name}_f32`);
      rename.set(v.name, to);
      entry.push(makeNode("Cast", [v.name], [to], { to: F }));
    }
  // Graph outputs: computed under a new name in float32, cast back to float64 where they leave.
  const outputs = new Set(
    g.outputs.filter((v) => v.type?.kind === "tensor" && v.type.elemType === D).map((v) => v.name),
  );
  const exit: Node[] = [];
  const outRename = new Map<string, string>();
  for (const o of outputs) {
    const from = scope.fresh(`${o}_f32`);
    outRename.set(o, from);
    exit.push(makeNode("Cast", [from], [o], { to: D }));
  }
  nodes = renameValues(replaceUses(nodes, rename), outRename);
  return {
    graph: {
      ...g,
      nodes: [...entry, ...nodes, ...exit],
      initializers,
      // The outputs stay float64 (cast back where they leave).
      valueInfo: g.valueInfo.map((v) => (outputs.has(v.name) ? v : { ...v, type: retype(v.type) })),
    },
    changed,
    boundary: { inputs: rename.size, outputs: outputs.size },
  };
}
