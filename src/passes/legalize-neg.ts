// legalize-neg: Neg, for a target without it (CoreML's ML Program), as a Mul by -1 of the
// input's element type. Exact: for floats x·(-1) flips the sign bit as Neg does (0 becomes -0,
// infinities and NaN stay such); for integers both wrap the same way (the most negative value
// stays itself).

import { DataType } from "../ir/types.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

const SIGNED_INTS: readonly number[] = [DataType.INT8, DataType.INT16, DataType.INT32];

function neg(site: Site): boolean {
  const x = site.node.inputs[0];
  const dt = x ? site.elem(x) : undefined;
  if (!x || dt === undefined || !site.has("Mul")) return false;
  let minusOne: string;
  if (dt === DataType.INT64) minusOne = site.constant("minus_one", dt, [], [-1n]);
  else if (
    SIGNED_INTS.includes(dt) ||
    dt === DataType.FLOAT ||
    dt === DataType.DOUBLE ||
    dt === DataType.FLOAT16 ||
    dt === DataType.BFLOAT16
  )
    minusOne = site.constant("minus_one", dt, [], [-1]);
  else return false;
  site.add("Mul", [x, minusOne], {}, [...site.out]);
  return true;
}

export function legalizeNeg(options: LegalizeOptions) {
  return legalizePass("legalize-neg", ["Neg"], "Neg made Mul by -1", neg, options);
}
