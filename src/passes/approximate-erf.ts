// approximate-erf: Erf, for a target without it (NNAPI), as a rational-exponential formula
// (Abramowitz and Stegun 7.1.26): erf(x) = sign(x)·(1 − t·(a1 + t·(a2 + t·(a3 + t·(a4 + t·a5))))·e^(−x²)),
// t = 1/(1 + p·|x|), whose error is at most 1.5e-7 in exact arithmetic. The sign is
// Clip(x·1e30, -1, 1): ±1 wherever |x| ≥ 1e-30, and where it is not, the formula's value there is
// below 1e-7 anyway. Not exact: only run when asked by name (`lower --approximate erf`); the
// bound measured in float32 on onnxruntime is in docs/semantics.md (ERF_MAX_ERROR here).
// Ops used: Abs, Mul, Add, Sub, Div, Exp, Clip.

import { DataType } from "../ir/types.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

/** The largest absolute difference from erf measured in float32 (test/passes/legalize.test.ts). */
export const ERF_MAX_ERROR = 5e-7;

const P = 0.3275911;
const A = [0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429];

function erf(site: Site): boolean {
  const x = site.node.inputs[0];
  if (!x || site.elem(x) !== DataType.FLOAT || site.opset < 11) return false;
  if (!["Abs", "Mul", "Add", "Sub", "Div", "Exp", "Clip"].every((op) => site.has(op))) return false;
  const c = (name: string, v: number) => site.constant(name, DataType.FLOAT, [], [v]);
  const ax = site.add("Abs", [x]);
  const one = c("one", 1);
  const t = site.add("Div", [one, site.add("Add", [site.add("Mul", [ax, c("p", P)]), one])]);
  let poly = c("a5", A[4]!);
  for (let k = 3; k >= 0; k--)
    poly = site.add("Add", [site.add("Mul", [poly, t]), c(`a${k + 1}`, A[k]!)]);
  poly = site.add("Mul", [poly, t]);
  const e = site.add("Exp", [site.add("Mul", [site.add("Mul", [ax, ax]), c("minus_one", -1)])]);
  const y = site.add("Sub", [one, site.add("Mul", [poly, e])]);
  const sign = site.add("Clip", [site.add("Mul", [x, c("big", 1e30)]), c("lo", -1), c("hi", 1)]);
  site.add("Mul", [y, sign], {}, [...site.out]);
  return true;
}

export function approximateErf(options: LegalizeOptions) {
  return legalizePass("approximate-erf", ["Erf"], "Erf approximated (A&S 7.1.26)", erf, options);
}
