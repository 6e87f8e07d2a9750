// trim-opset-imports: opset imports of domains no node uses dropped, from the model and from each
// local function that has its own (ai.onnx is always kept). The domains a function's nodes use keep
// their imports in the model too, whether or not the function imports them itself: a function
// without imports uses the model's, and onnxruntime resolves the nodes of every function (called
// from the graph or from another function) against the model's imports.

import { someGraphNode } from "../ir/visit.js";
import type { Function, Graph, Model, OpsetId } from "../ir/types.js";
import { normaliseDomain } from "../schema/registry.js";
import { modelPass, type Pass } from "./pass.js";

function domainsUsed(owner: Graph | Function): Set<string> {
  const s = new Set<string>();
  someGraphNode(owner, (node) => void s.add(normaliseDomain(node.domain)));
  return s;
}

function trim(imports: OpsetId[], keep: Set<string>): OpsetId[] {
  return imports.filter(
    (o) => normaliseDomain(o.domain) === "" || keep.has(normaliseDomain(o.domain)),
  );
}

/** The model with its imports trimmed (the same object when nothing is dropped). */
export function trimOpsetImports(model: Model): Model {
  const used = domainsUsed(model.graph);
  for (const f of model.functions) for (const d of domainsUsed(f)) used.add(d);
  const opsetImports = trim(model.opsetImports, used);
  let changed = opsetImports.length !== model.opsetImports.length;
  const functions = model.functions.map((f) => {
    if (f.opsetImports.length === 0) return f;
    const t = trim(f.opsetImports, domainsUsed(f));
    if (t.length === f.opsetImports.length) return f;
    changed = true;
    return { ...f, opsetImports: t };
  });
  return changed ? { ...model, opsetImports, functions } : model;
}

export const trimOpsetImportsPass = (): Pass => modelPass("trim-opset-imports", trimOpsetImports);
