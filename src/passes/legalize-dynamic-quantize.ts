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
// For a target without Round (NNAPI) the clamp is written first, as onnxruntime has it:
//   y = Round(Min(Max(x / scale, −zp), 255 − zp)) + zp cast to uint8 (the bounds integers, so
//   the same integer), each Round, of a value within [−255, 255], as (t + 1.5 · 2^23) − 1.5 · 2^23
//   (legalize-round's rule: exact there; the zero point's input is never −0, and y's −0 from the
//   Round becomes +0 in the sum with zp ≥ +0). ReduceMax stays for legalize-reduce-max.

import { DataType } from "../ir/types.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";
import type { Pass } from "./pass.js";
import { MAGIC } from "./legalize-round.js";

const F = DataType.FLOAT;

function dynamicQuantize(site: Site): boolean {
  const x = site.node.inputs[0];
  if (!x || site.elem(x) !== F) return false;
  const needs = ["Mul", "Max", "Sub", "Div", "Clip", "Add", "Cast"];
  if (!needs.every((op) => site.has(op)) || site.opset < 11) return false;
  // Without ReduceMax, its tree of Max over Slices (legalize-reduce-max, over the fixed dims).
  if (!site.has("ReduceMax") && !(site.has("Slice") && site.shape(x))) return false;
  // Without Round, the clamp first and each Round as Add and Sub of 1.5 · 2^23.
  const rounds = site.has("Round");
  if (!rounds && !site.has("Min")) return false;
  const k = (base: string, v: number) => site.constant(base, F, [], [v]);
  const round = (t: string, out?: string[]) => {
    if (rounds) return site.add("Round", [t], {}, out);
    const m = k("magic", MAGIC);
    return site.add("Sub", [site.add("Add", [t, m]), m], {}, out);
  };
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
  const zpf = round(
    site.add("Clip", [site.add("Sub", [zero, site.add("Div", [lo, scale])]), zero, qmax]),
  );
  if (yZero) site.add("Cast", [zpf], { to: DataType.UINT8 }, [yZero]);
  if (y && rounds) {
    const q = site.add("Add", [round(site.add("Div", [x, scale])), zpf]);
    site.add("Cast", [site.add("Clip", [q, zero, qmax])], { to: DataType.UINT8 }, [y]);
  } else if (y) {
    const floor = site.add("Sub", [zero, zpf]);
    const ceiling = site.add("Sub", [qmax, zpf]);
    const t = site.add("Min", [site.add("Max", [site.add("Div", [x, scale]), floor]), ceiling]);
    site.add("Cast", [site.add("Add", [round(t), zpf])], { to: DataType.UINT8 }, [y]);
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
