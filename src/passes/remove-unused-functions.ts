// remove-unused-functions: the model-local functions that the main graph does not call, directly
// or through other functions, removed.

import { modelFunctions } from "../check/functions.js";
import type { Pass } from "./pass.js";

export function removeUnusedFunctions(): Pass {
  return {
    name: "remove-unused-functions",
    run(model) {
      const used = modelFunctions(model).reachable(model.graph);
      if (used.size === model.functions.length)
        return { ok: true, model, modified: false, notes: [] };
      const functions = model.functions.filter((f) => used.has(f));
      return { ok: true, model: { ...model, functions }, modified: true, notes: [] };
    },
  };
}
