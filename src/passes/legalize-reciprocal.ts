// legalize-reciprocal: Reciprocal, for a target without it (NNAPI), as Div(1, x). Exact: IEEE
// division rounds 1/x correctly, as Reciprocal's 1/x does (0 gives ±inf by the sign of the zero,
// NaN stays NaN). (CoreML's Reciprocal adds an epsilon; where it has Reciprocal it is left.)

import { FLOAT_TYPES } from "../ir/dtype.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

function reciprocal(site: Site): boolean {
  const x = site.node.inputs[0];
  const dt = x ? site.elem(x) : undefined;
  if (!x || dt === undefined || !FLOAT_TYPES.includes(dt) || !site.has("Div")) return false;
  site.add("Div", [site.constant("one", dt, [], [1]), x], {}, [...site.out]);
  return true;
}

export function legalizeReciprocal(options: LegalizeOptions) {
  return legalizePass(
    "legalize-reciprocal",
    ["Reciprocal"],
    "Reciprocal made Div",
    reciprocal,
    options,
  );
}
