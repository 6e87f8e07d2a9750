// Values whose statically known size is already over a memory budget: `check --max-memory N`
// reports them as warnings, before anything runs.

import { nodeLabel } from "../errors.js";
import { dtypeInfo } from "../ir/dtype.js";
import { hasGraphAttribute, nodeGraphs, someGraphNode } from "../ir/visit.js";
import type { Function, Graph, Model, Type } from "../ir/types.js";
import { inferScopeTypes, type InferOptions } from "./infer.js";

export interface MemoryWarning {
  /** The node that produces the value (nodeLabel, with the subgraph or function it is in). */
  where: string;
  value: string;
  /** The inferred type, e.g. float[46000,46000]. */
  type: string;
  bytes: number;
}

/** Bytes of a tensor type with a fully known shape, else undefined (strings: 0 per element). */
function staticBytes(t: Type | undefined): { bytes: number; type: string } | undefined {
  if (!t || t.kind !== "tensor" || !t.shape) return undefined;
  let n = 1;
  for (const d of t.shape) {
    if (typeof d !== "number") return undefined;
    n *= d;
  }
  const info = dtypeInfo(t.elemType);
  if (!info) return undefined;
  return { bytes: Math.ceil(n * info.size), type: `${info.name}[${t.shape.join(",")}]` };
}

/** Node outputs (main graph, subgraphs, functions) whose inferred size alone exceeds `maxBytes`. */
export function memoryWarnings(
  model: Model,
  maxBytes: number,
  opts: InferOptions = {},
): MemoryWarning[] {
  const types = inferScopeTypes(model, opts);
  const out: MemoryWarning[] = [];
  const visit = (root: Graph | Function, context: string) => {
    // A subgraph's nodes are labelled by the node of the root's list that holds them.
    const outer = new Map<Graph | Function, string>([[root, context]]);
    someGraphNode(root, (n, owner, i) => {
      const here = outer.get(owner)!;
      const label = nodeLabel(n, i) + here;
      const known = types.get(owner);
      for (const name of n.outputs) {
        if (name === "") continue;
        const s = staticBytes(known?.get(name));
        if (s && s.bytes > maxBytes)
          out.push({ where: label, value: name, type: s.type, bytes: s.bytes });
      }
      if (hasGraphAttribute(n))
        for (const g of nodeGraphs(n)) outer.set(g, ` in a subgraph of ${label}`);
    });
  };
  visit(model.graph, "");
  for (const f of model.functions) visit(f, ` in function '${f.name}'`);
  return out;
}
