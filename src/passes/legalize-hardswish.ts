// legalize-hardswish: HardSwish, for a target that lacks it but has HardSigmoid and Mul
// (onnxruntime-web's WebGPU execution provider), as ONNX's own function body of HardSwish:
// x · HardSigmoid<alpha = 1/6, beta = 1/2>(x). The project's expansion of HardSwish computes the
// clamp with Min and Max, which that target lacks as well; onnxruntime inlines the schema's body
// and runs it on WebGPU. The same formula, y = x · max(0, min(1, x/6 + 1/2)), with alpha the
// float nearest 1/6 as the operator states it.

import { FLOAT_TYPES } from "../ir/dtype.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

function hardSwish(site: Site): boolean {
  const x = site.node.inputs[0];
  const dt = x ? site.elem(x) : undefined;
  if (!x || dt === undefined || !FLOAT_TYPES.includes(dt)) return false;
  if (!site.has("HardSigmoid") || !site.has("Mul")) return false;
  const gate = site.add("HardSigmoid", [x], { alpha: 1 / 6, beta: 0.5 });
  site.add("Mul", [x, gate], {}, [...site.out]);
  return true;
}

export function legalizeHardSwish(options: LegalizeOptions) {
  return legalizePass(
    "legalize-hardswish",
    ["HardSwish"],
    "HardSwish made x · HardSigmoid(x)",
    hardSwish,
    options,
  );
}
