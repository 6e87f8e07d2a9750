// legalize-float64: a model's float64 computation made float32, for a backend without float64
// (`lower --target` runs it when the profile refuses a node's float64): initializers and Constant
// values rounded to float32 (refused, with a note naming the tensor, where a finite value is
// beyond float32's range), Cast and CastLike targets, the dtype attributes of the ops that make
// tensors (RandomNormal, RandomUniform, their -Like forms, EyeLike), value types. The model's
// interface stays: a float64 graph input is cast to float32 where it enters, a float64 output is
// cast back where it leaves. Only the main graph: a model with float64 in a subgraph or a
// function is left as it is, with a note.

import { fromIRTensor, toIRTensor } from "../interp/ir-tensors.js";
import { toFloat64 } from "../interp/tensor.js";
import { node as makeNode } from "../ir/builder.js";
import { Tensor } from "../ir/tensor.js";
import { attributeGraphs } from "../ir/visit.js";
import {
  DataType,
  type Attribute,
  type Graph,
  type Model,
  type Node,
  type Type,
} from "../ir/types.js";
import type { Note, Pass } from "./pass.js";

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

function hasDouble(g: Graph): boolean {
  for (const n of g.nodes)
    for (const a of n.attributes) {
      if (a.type === "TENSOR" && a.value?.dataType === D) return true;
      for (const sub of attributeGraphs(a))
        if (sub.initializers.some((t) => t.dataType === D) || hasDouble(sub)) return true;
    }
  return false;
}

export function legalizeFloat64(): Pass {
  return {
    name: "legalize-float64",
    run(model: Model) {
      const g = model.graph;
      const notes: Note[] = [];
      const inSub = g.nodes.some((n) =>
        n.attributes.some((a) =>
          attributeGraphs(a).some(
            (sub) => sub.initializers.some((t) => t.dataType === D) || hasDouble(sub),
          ),
        ),
      );
      if (
        inSub ||
        model.functions.some((f) =>
          f.nodes.some((n) =>
            n.attributes.some((a) => a.type === "TENSOR" && a.value?.dataType === D),
          ),
        )
      ) {
        notes.push({
          level: "warning",
          message: "float64 inside a subgraph or function: left as it is",
        });
        return { ok: true, model, modified: false, notes };
      }
      let changed = 0;
      const initializers: Tensor[] = [];
      for (const t of g.initializers) {
        if (t.dataType !== D) {
          initializers.push(t);
          continue;
        }
        const f = float32Tensor(t);
        if (typeof f === "string")
          return {
            ok: false,
            notes: [
              {
                level: "error",
                where: `initializer '${t.name}'`,
                message: `not made float32: ${f}`,
              },
            ],
          };
        initializers.push(f);
        changed++;
      }
      const fixAttr = (n: Node, a: Attribute): Attribute | string => {
        if (a.type === "TENSOR" && a.value?.dataType === D) {
          const f = float32Tensor(a.value);
          return typeof f === "string" ? f : { ...a, value: f };
        }
        const cast =
          (n.opType === "Cast" && a.name === "to") ||
          (DTYPE_OPS.has(n.opType) && a.name === "dtype");
        if (cast && a.type === "INT" && Number(a.value) === D) return { ...a, value: BigInt(F) };
        return a;
      };
      // Graph inputs: float64 ones keep their type and are cast on entry under a new name.
      const rename = new Map<string, string>();
      const entry: Node[] = [];
      const names = new Set([
        ...g.nodes.flatMap((n) => [...n.inputs, ...n.outputs]),
        ...g.inputs.map((v) => v.name),
      ]);
      const fresh = (base: string) => {
        let s = `${base}_f32`;
        for (let k = 1; names.has(s); k++) s = `${base}_f32_${k}`;
        names.add(s);
        return s;
      };
      const inits = new Set(g.initializers.map((t) => t.name));
      for (const v of g.inputs)
        if (v.type?.kind === "tensor" && v.type.elemType === D && !inits.has(v.name)) {
          const to = fresh(v.name);
          rename.set(v.name, to);
          entry.push(makeNode("Cast", [v.name], [to], { to: F }));
        }
      const outputs = new Set(
        g.outputs
          .filter((v) => v.type?.kind === "tensor" && v.type.elemType === D)
          .map((v) => v.name),
      );
      const exit: Node[] = [];
      const outRename = new Map<string, string>();
      for (const o of outputs) {
        const from = fresh(o);
        outRename.set(o, from);
        exit.push(makeNode("Cast", [from], [o], { to: D }));
      }
      const nodes: Node[] = [];
      for (const n of g.nodes) {
        const attributes: Attribute[] = [];
        for (const a of n.attributes) {
          const f = fixAttr(n, a);
          if (typeof f === "string")
            return {
              ok: false,
              notes: [
                {
                  level: "error",
                  where: `node '${n.name ?? n.opType}'`,
                  message: `not made float32: ${f}`,
                },
              ],
            };
          if (f !== a) changed++;
          attributes.push(f);
        }
        nodes.push({
          ...n,
          inputs: n.inputs.map((x) => rename.get(x) ?? outRename.get(x) ?? x),
          outputs: n.outputs.map((x) => outRename.get(x) ?? x),
          attributes,
        });
      }
      if (!changed && !rename.size && !outputs.size)
        return { ok: true, model, modified: false, notes };
      notes.push({
        level: "info",
        message: `float64 made float32: ${changed} tensor(s) and attribute(s), ${rename.size} input(s) and ${outputs.size} output(s) cast at the boundary`,
      });
      return {
        ok: true,
        model: {
          ...model,
          graph: {
            ...g,
            nodes: [...entry, ...nodes, ...exit],
            initializers,
            // The outputs stay float64 (cast back where they leave).
            valueInfo: g.valueInfo.map((v) =>
              outputs.has(v.name) ? v : { ...v, type: retype(v.type) },
            ),
          },
        },
        modified: true,
        notes,
      };
    },
  };
}
