// remove-unused-functions: the model-local functions that the main graph does not call, directly
// or through other functions, removed.

import { modelFunctions } from "../check/functions.js";
import { someGraphNode } from "../ir/traverse.js";
import type { Function, Model } from "../ir/types.js";
import type { Pass } from "./pass.js";

/** The local functions the main graph calls, directly or through other functions. */
export function reachableFunctions(model: Model): Set<Function> {
  const table = modelFunctions(model);
  const seen = new Set<Function>();
  if (table.size === 0) return seen;
  const add = (f: Function) => {
    if (!seen.has(f)) {
      seen.add(f);
      queue.push(f);
    }
  };
  const queue: Function[] = [];
  someGraphNode(model.graph, (node) => {
    const f = table.called(node);
    if (f) add(f);
  });
  while (queue.length) for (const g of table.callees(queue.pop()!)) add(g);
  return seen;
}

export function removeUnusedFunctions(): Pass {
  return {
    name: "remove-unused-functions",
    run(model) {
      const used = reachableFunctions(model);
      if (used.size === model.functions.length)
        return { ok: true, model, modified: false, notes: [] };
      const functions = model.functions.filter((f) => used.has(f));
      return { ok: true, model: { ...model, functions }, modified: true, notes: [] };
    },
  };
}
