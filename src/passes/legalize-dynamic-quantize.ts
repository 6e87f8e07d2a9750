// legalize-dynamic-quantize: DynamicQuantizeLinear (in onnxruntime's dynamically quantized
// MatMuls: DynamicQuantizeMatMul, MatMulIntegerToFloat), for a target without it or the
// QuantizeLinear of its body (CoreML), in float arithmetic with the same numbers:
// DynamicQuantizeLinear(x) as ONNX's body computes it, with its QuantizeLinear written out:
//   min(ReduceMin(x), 0) as −max(ReduceMax(−x), 0) (negation is exact, so the same value),
//   scale = (max(ReduceMax(x), 0) − that) / 255, the zero point Round(Clip(−min / scale, 0, 255)),
//   and y = Clip(Round(x / scale) + zero point, 0, 255) cast to uint8: onnxruntime clamps x / scale
//   to [−zp, 255 − zp] and then rounds half to even, which gives the same integer since the bounds
//   are integers, and the sum is exact (an integer below 2^24, or past 255 either way). Where
//   every value is 0 the scale is 1, as onnxruntime's kernel has it.

import { DataType } from "../ir/types.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";
import type { Pass } from "./pass.js";

const F = DataType.FLOAT;

function dynamicQuantize(site: Site): boolean {
  const x = site.node.inputs[0];
  if (!x || site.elem(x) !== F) return false;
  const needs = ["Mul", "Max", "ReduceMax", "Sub", "Div", "Clip", "Round", "Add", "Cast"];
  if (!needs.every((op) => site.has(op)) || site.opset < 11) return false;
  const k = (base: string, v: number) => site.constant(base, F, [], [v]);
  const [zero, minus, qmax] = [k("zero", 0), k("minus", -1), k("qmax", 255)];
  const all = { keepdims: 0 };
  const lo = site.add("Mul", [
    site.add("Max", [site.add("ReduceMax", [site.add("Mul", [x, minus])], all), zero]),
    minus,
  ]);
  const hi = site.add("Max", [site.add("ReduceMax", [x], all), zero]);
  const [y, yScale, yZero] = site.out;
  // onnxruntime's scale is 1 where the range is 0 (ONNX's body would divide by 0): the range
  // times 2^200 clipped to [0, 1] is 1 for every positive range (2^-149 · 2^200 > 1), 0 for 0
  const range = site.add("Sub", [hi, lo]);
  const big = k("big", 2 ** 100);
  const positive = site.add("Clip", [
    site.add("Mul", [site.add("Mul", [range, big]), big]),
    zero,
    k("one", 1),
  ]);
  const scale = site.add(
    "Add",
    [site.add("Div", [range, qmax]), site.add("Sub", [k("one", 1), positive])],
    {},
    yScale ? [yScale] : undefined,
  );
  const zpf = site.add("Round", [
    site.add("Clip", [site.add("Sub", [zero, site.add("Div", [lo, scale])]), zero, qmax]),
  ]);
  if (yZero) site.add("Cast", [zpf], { to: DataType.UINT8 }, [yZero]);
  if (y) {
    const q = site.add("Add", [site.add("Round", [site.add("Div", [x, scale])]), zpf]);
    site.add("Cast", [site.add("Clip", [q, zero, qmax])], { to: DataType.UINT8 }, [y]);
  }
  return true;
}

export function legalizeDynamicQuantize(options: LegalizeOptions): Pass {
  return legalizePass(
    "legalize-dynamic-quantize",
    ["DynamicQuantizeLinear"],
    "DynamicQuantizeLinear made float arithmetic",
    dynamicQuantize,
    options,
  );
}
