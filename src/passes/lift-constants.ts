// lift-constants: a Constant node of a graph becomes an initializer of the same name, so
// the graph holds its ops and its data apart (as exporters that write initializers do, and as
// onnxruntime's and onnxscript's optimizers leave a graph). Lifted: `value` (a tensor), and the
// scalar and list forms `value_float(s)` / `value_int(s)` / `value_string(s)` as the tensors
// Constant gives for them. Kept: a Constant whose output is a graph output (an initializer is not
// a node's result there), one with a sparse value, and every Constant of a model below IR 4
// (where each initializer must also be a graph input). In the main graph and in each subgraph
// (it becomes the subgraph's own initializer); functions keep theirs (a function has no
// initializers).

import { Tensor } from "../ir/tensor.js";
import { DataType, type Attribute, type Model, type Node } from "../ir/types.js";
import { counted, countedResult, type Pass } from "./pass.js";
import { eachScope } from "./scopes.js";

/** The tensor a Constant node gives, named `name`; undefined for a sparse or missing value. */
export function constantTensor(n: Node, name: string): Tensor | undefined {
  const a: Attribute | undefined = n.attributes[0];
  if (!a || n.attributes.length !== 1 || a.value === undefined) return undefined;
  switch (a.type) {
    case "TENSOR":
      return new Tensor(a.value.dataType, a.value.dims, a.value.data, name);
    case "FLOAT":
      return Tensor.from(DataType.FLOAT, [], [a.value], name);
    case "FLOATS":
      return Tensor.from(DataType.FLOAT, [a.value.length], a.value, name);
    case "INT":
      return Tensor.from(DataType.INT64, [], [a.value], name);
    case "INTS":
      return Tensor.from(DataType.INT64, [a.value.length], a.value, name);
    case "STRING":
      return Tensor.from(DataType.STRING, [], [a.value], name);
    case "STRINGS":
      return Tensor.from(DataType.STRING, [a.value.length], a.value, name);
    default:
      return undefined;
  }
}

export function liftConstants(): Pass {
  return {
    name: "lift-constants",
    run(model: Model) {
      if (model.irVersion < 4) return { ok: true, model, modified: false, notes: [] };
      let k = 0;
      const out = eachScope(
        model,
        (g) => {
          const outputs = new Set(g.outputs.map((v) => v.name));
          const taken = new Set([
            ...g.initializers.map((t) => t.name),
            ...g.inputs.map((v) => v.name),
          ]);
          const lifted: Tensor[] = [];
          const nodes = g.nodes.filter((n) => {
            const out = n.outputs[0];
            if (n.opType !== "Constant" || (n.domain ?? "") !== "" || !out) return true;
            if (outputs.has(out) || taken.has(out)) return true;
            const t = constantTensor(n, out);
            if (!t) return true;
            lifted.push(t);
            return false;
          });
          if (!lifted.length) return g;
          k += lifted.length;
          return { ...g, nodes, initializers: [...g.initializers, ...lifted] };
        },
        { functions: false },
      );
      return countedResult(
        model,
        out,
        k,
        (n) => `lifted ${counted(n, "Constant node")} into initializers`,
      );
    },
  };
}
