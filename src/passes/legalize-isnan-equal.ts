// legalize-isnan-equal: IsNaN, for a target without it (onnxruntime-web's WebGPU execution provider,
// which then runs it on CPU between two GPU partitions: after each Softmax of a dynamo-exported
// decoder), as Not(Equal(x, x)). Exact: NaN is the only value not equal to itself under IEEE
// comparison, and infinities and zeros of either sign equal themselves.

import { FLOAT_TYPES } from "../ir/dtype.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

function isNaN(site: Site): boolean {
  const x = site.node.inputs[0];
  const dt = x ? site.elem(x) : undefined;
  if (!x || dt === undefined || !FLOAT_TYPES.includes(dt)) return false;
  if (!site.has("Equal") || !site.has("Not")) return false;
  site.add("Not", [site.add("Equal", [x, x])], {}, [...site.out]);
  return true;
}

export function legalizeIsNaNByEqual(options: LegalizeOptions) {
  return legalizePass(
    "legalize-isnan-equal",
    ["IsNaN"],
    "IsNaN made Not(Equal(x, x))",
    isNaN,
    options,
  );
}
