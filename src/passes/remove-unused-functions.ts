// remove-unused-functions: the model-local functions that the main graph does not call, directly
// or through other functions, removed.

import type { Function, Graph, Model } from "../ir/types.js";
import { walkGraphNodes } from "../ir/traverse.js";
import { normaliseDomain } from "../schema/registry.js";
import type { Pass } from "./pass.js";

const key = (domain: string, name: string, overload?: string) =>
  `${normaliseDomain(domain)}\u0000${name}\u0000${overload ?? ""}`;

/** The local functions the main graph calls, directly or through other functions. */
export function reachableFunctions(model: Model): Set<Function> {
  const byKey = new Map(model.functions.map((f) => [key(f.domain, f.name, f.overload), f]));
  const seen = new Set<Function>();
  if (byKey.size === 0) return seen;
  const queue: (Graph | Function)[] = [model.graph];
  while (queue.length)
    for (const { node } of walkGraphNodes(queue.pop()!)) {
      const f = byKey.get(key(node.domain, node.opType, node.overload));
      if (f && !seen.has(f)) {
        seen.add(f);
        queue.push(f);
      }
    }
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
