// infer-value-info: every node output that is not a graph output listed in value_info with the
// type the checker infers (what `check --write-value-info` writes), in the main graph, its
// subgraphs and the local functions.

import { withInferredValueInfo } from "../check/infer.js";
import { walkGraphs } from "../ir/visit.js";
import type { Model } from "../ir/types.js";
import type { Pass } from "./pass.js";

/** The value_info of every graph and function, as text to compare. */
function valueInfoText(model: Model): string {
  const parts: string[] = [];
  for (const g of walkGraphs(model)) parts.push(JSON.stringify(g.valueInfo));
  for (const f of model.functions) parts.push(JSON.stringify(f.valueInfo));
  return parts.join("\n");
}

/**
 * `freshDims` (default true): dimensions inference cannot name get fresh symbols, as ONNX's
 * inference writes them; false leaves them unknown (see InferOptions).
 */
export function inferValueInfo(opts: { freshDims?: boolean } = {}): Pass {
  return {
    name: "infer-value-info",
    run(model, ctx) {
      const out = withInferredValueInfo(model, {
        registry: ctx.registry,
        freshDims: opts.freshDims,
      });
      const modified = valueInfoText(out) !== valueInfoText(model);
      return { ok: true, model: modified ? out : model, modified, notes: [] };
    },
  };
}
