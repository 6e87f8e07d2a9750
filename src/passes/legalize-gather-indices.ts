// legalize-gather-indices: a Gather whose indices are computed int64 values, where the target has
// Gather but refuses that form (NNAPI takes int64 indices only as constants, and int32 ones of any
// origin), with the indices cast to int32 first. Every index a Gather accepts lies in [-d, d - 1]
// for d the gathered dim, and d is static and at most 2^31 here, so the cast keeps every accepted
// index as it is and the Gather picks the same elements (an index out of range is an error for
// the original; after the cast it may wrap into range).

import { attrInt } from "../ir/attributes.js";
import { DataType, type Model, type Node } from "../ir/types.js";
import { legalizePass, normAxis, type LegalizeOptions, type Site } from "./legalize-kit.js";
import type { Pass } from "./pass.js";

function castIndices(site: Site): boolean {
  const n = site.node;
  const [data, idx] = n.inputs;
  if (!data || !idx || site.elem(idx) !== DataType.INT64 || site.value(idx)) return false;
  const dims = site.shape(data);
  const axis = dims ? normAxis(attrInt(n, "axis", 0), dims.length) : undefined;
  if (!dims || axis === undefined || !(dims[axis]! <= 2 ** 31)) return false;
  const i32 = site.add("Cast", [idx], { to: DataType.INT32 });
  site.add("Gather", [data, i32], { axis: attrInt(n, "axis", 0) }, [...site.out]);
  return true;
}

export function legalizeGatherIndices(options: LegalizeOptions): Pass {
  return {
    name: "legalize-gather-indices",
    run(model: Model, ctx) {
      const stored = new Set(model.graph.initializers.map((t) => t.name));
      const computed = (n: Node) =>
        n.opType === "Gather" && (n.domain ?? "") === "" && !stored.has(n.inputs[1] ?? "");
      if (
        !options.refuses ||
        !options.has("Gather") ||
        !options.has("Cast") ||
        !model.graph.nodes.some(computed)
      )
        return { ok: true, model, modified: false, notes: [] };
      const refuses = options.refuses(model);
      return legalizePass(
        "legalize-gather-indices",
        ["Gather"],
        "Gather's computed int64 indices cast to int32",
        castIndices,
        options,
        refuses,
      ).run(model, ctx);
    },
  };
}
