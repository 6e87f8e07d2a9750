// validate-model: the first step of the expand and convert pipelines. Its precondition is that
// the model has none of the checker's problems that make a rewrite wrong (check/validate.ts);
// it changes nothing. The analysis is the one the passes after it reuse for their types.

import { blockersMessage, rewriteBlockers } from "../check/validate.js";
import type { Pass } from "./pass.js";

export function validateModel(): Pass {
  return {
    name: "validate-model",
    requires(model, ctx) {
      const blockers = rewriteBlockers(model, { registry: ctx.registry });
      if (blockers.length === 0) return [];
      return [{ level: "error", message: blockersMessage(blockers) }];
    },
    run: (model) => ({ ok: true, model, modified: false, notes: [] }),
  };
}
