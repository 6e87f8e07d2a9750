// legalize-abs: Abs, for a target without it (CoreML's ML Program), as Relu(x) + Relu(x · -1).
// Exact for every float32 value free of NaN: for x > 0 the sum is x + 0, for x < 0 it is 0 + -x
// (each Relu's zero is +0 or -0, either way the sum is exactly the other term), and for either
// zero at least one term is +0, so the sum is +0 as Abs gives. An infinity gives +inf. NaN gives
// NaN on onnxruntime (its Relu keeps NaN), as Abs does.

import { DataType } from "../ir/types.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

function abs(site: Site): boolean {
  const x = site.node.inputs[0];
  if (!x || site.elem(x) !== DataType.FLOAT) return false;
  if (!["Relu", "Mul", "Add"].every((op) => site.has(op))) return false;
  const minus = site.constant("minus_one", DataType.FLOAT, [], [-1]);
  const neg = site.add("Relu", [site.add("Mul", [x, minus])]);
  site.add("Add", [site.add("Relu", [x]), neg], {}, [...site.out]);
  return true;
}

export function legalizeAbs(options: LegalizeOptions) {
  return legalizePass("legalize-abs", ["Abs"], "Abs made Relu(x) + Relu(-x)", abs, options);
}
