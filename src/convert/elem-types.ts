// Element types only, in one linear pass over a graph: what a type-restriction step needs to
// know, at a fraction of the cost of full type and shape inference. Each output takes the type
// of the input bound to the same type variable, or its formal's concrete type, or what an
// attribute says (Cast's `to`, Constant's value, ...). Anything else stays unknown, and the
// caller falls back to full inference.

import { getAttr } from "../ir/attributes.js";
import type { Function, Graph, Node } from "../ir/types.js";
import { DataType } from "../ir/types.js";
import type { SchemaRegistry } from "../schema/registry.js";
import { dtypeByName } from "../ir/dtype.js";

const CONCRETE = /^tensor\(([a-z0-9]+)\)$/;

function concrete(type: string): number | undefined {
  const m = CONCRETE.exec(type);
  return m ? dtypeByName(m[1]!)?.id : undefined;
}

/** An element type given by an attribute, for the ops whose output type comes from one. */
function fromAttribute(n: Node): number | undefined {
  switch (n.opType) {
    case "Cast":
    case "EyeLike":
    case "RandomNormal":
    case "RandomUniform":
    case "RandomNormalLike":
    case "RandomUniformLike":
    case "Multinomial":
    case "Bernoulli": {
      const a = getAttr(n, n.opType === "Cast" ? "to" : "dtype");
      return a?.type === "INT" && a.value !== undefined ? Number(a.value) : undefined;
    }
    case "Constant": {
      const a = n.attributes[0];
      if (!a) return undefined;
      if (a.type === "TENSOR") return a.value?.dataType;
      if (a.name === "value_int" || a.name === "value_ints") return DataType.INT64;
      if (a.name === "value_float" || a.name === "value_floats") return DataType.FLOAT;
      if (a.name === "value_string" || a.name === "value_strings") return DataType.STRING;
      return undefined;
    }
    case "ConstantOfShape": {
      const a = getAttr(n, "value");
      return a?.type === "TENSOR" ? a.value?.dataType : DataType.FLOAT;
    }
    default:
      return undefined;
  }
}

/**
 * Element types of the values of one graph or function body, with `outer` for names the graph
 * reads from enclosing scopes. Sequence, map and optional values are left out.
 */
export function elemTypes(
  owner: Graph | Function,
  registry: SchemaRegistry,
  opset: number,
  outer?: (name: string) => number | undefined,
): Map<string, number> {
  const t = new Map<string, number>();
  const declare = (name: string, type: { kind: string; elemType?: number } | undefined) => {
    if (type?.kind === "tensor" && type.elemType) t.set(name, type.elemType);
  };
  if ("initializers" in owner) {
    for (const v of owner.inputs) declare(v.name, v.type);
    for (const v of owner.valueInfo) declare(v.name, v.type);
    for (const v of owner.outputs) declare(v.name, v.type);
    for (const x of owner.initializers) t.set(x.name, x.dataType);
  }
  const typeOf = (name: string) => t.get(name) ?? outer?.(name);
  for (const n of owner.nodes) {
    if (n.domain !== "" && n.domain !== "ai.onnx") continue;
    const v = registry.tryResolve("", n.opType, opset);
    if (!v) continue;
    const byVar = new Map<string, number>();
    v.inputs.forEach((f, i) => {
      const last = i === v.inputs.length - 1 && f.option === "variadic";
      const names = last ? n.inputs.slice(i) : [n.inputs[i] ?? ""];
      for (const name of names) {
        if (!name || byVar.has(f.type)) continue;
        const e = typeOf(name);
        if (e !== undefined) byVar.set(f.type, e);
      }
    });
    const attrType = fromAttribute(n);
    n.outputs.forEach((name, i) => {
      if (!name || t.has(name)) return;
      const f = v.outputs[Math.min(i, v.outputs.length - 1)];
      if (!f) return;
      const e =
        concrete(f.type) ??
        (n.opType === "CastLike" ? typeOf(n.inputs[1] ?? "") : undefined) ??
        attrType ??
        byVar.get(f.type);
      if (e !== undefined) t.set(name, e);
    });
  }
  return t;
}
