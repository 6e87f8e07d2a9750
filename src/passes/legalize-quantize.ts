// legalize-quantize: QuantizeLinear and DequantizeLinear, for a target without them (CoreML's ML
// Program), as the float32 arithmetic both ops define, which is what onnxruntime computes:
// DequantizeLinear is (Cast(x) - zero point) · scale, exact up to the one rounding of the product
// (x - zero point is an integer below 2^24; an int32 x has no zero point); QuantizeLinear is
// Cast(Clip(Round(x / scale) + zero point)) to the quantized type, rounding half to even and
// saturating. Per tensor or per axis (the scale and zero point laid along the axis); a float32
// scale and, for QuantizeLinear, a float32 x; the 8-bit types, and the 16-bit ones where the opset
// has them. A blocked scale, output_dtype, float8 and 4-bit types are left. Where the target lacks
// Round, legalize-round writes it with Add and Sub (exact on the clipped range). The weights'
// DequantizeLinear becomes float arithmetic on constants, which simplify then folds.

import { quantizedRange } from "../ir/dtype.js";
import { attrInt } from "../ir/attributes.js";
import { DataType } from "../ir/types.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

const F = DataType.FLOAT;
const QUANTIZED: readonly number[] = [
  DataType.UINT8,
  DataType.INT8,
  DataType.UINT16,
  DataType.INT16,
];

/**
 * A scale or zero point laid along x's axis (per axis), or as it is (per tensor), as float32: a
 * constant becomes a float32 constant of the broadcasting shape; another value a Cast (and a
 * Reshape). Undefined where the layout cannot be told or the target lacks what it needs.
 */
function along(site: Site, p: string, axis: number | undefined, rank: number): string | undefined {
  const dims = site.shape(p);
  const perAxis = axis !== undefined && dims?.length === 1;
  const shape = perAxis ? [dims[0]!, ...new Array<number>(rank - 1 - axis).fill(1)] : dims;
  if (!shape) return undefined;
  const k = site.value(p);
  if (k) return site.constant("f", F, shape, k.values);
  let v = p;
  if (site.elem(p) !== F) {
    if (!site.has("Cast")) return undefined;
    v = site.add("Cast", [p], { to: F });
  }
  if (!perAxis || shape.length === 1) return v;
  if (!site.has("Reshape")) return undefined;
  const target = site.constant("axis_shape", DataType.INT64, [shape.length], shape.map(BigInt));
  return site.add("Reshape", [v, target]);
}

function quantize(site: Site): boolean {
  const n = site.node;
  const dequantize = n.opType === "DequantizeLinear";
  const [x, scale, zp = ""] = n.inputs;
  if (!x || !scale || site.elem(scale) !== F) return false;
  if ((attrInt(n, "block_size") ?? 0) > 0 || attrInt(n, "output_dtype") !== undefined) return false;
  const xDims = site.type(x);
  const rank = xDims?.kind === "tensor" ? xDims.shape?.length : undefined;
  const sDims = site.shape(scale);
  if (rank === undefined || !sDims) return false;
  const numel = sDims.reduce((a, d) => a * d, 1);
  // ONNX reads a 1-D scale of one element as per axis; either way it broadcasts the same.
  let axis: number | undefined;
  if (sDims.length === 1 && numel > 1) {
    const a = attrInt(n, "axis") ?? 1;
    axis = a < 0 ? a + rank : a;
    if (axis < 0 || axis >= rank) return false;
  } else if (numel !== 1) return false;
  const quantized = dequantize ? site.elem(x) : zp ? site.elem(zp) : DataType.UINT8;
  const needs = dequantize ? ["Cast", "Mul", "Sub"] : ["Cast", "Div", "Add", "Clip"];
  if (!needs.every((op) => site.has(op))) return false;
  // Round, or what legalize-round writes it with.
  if (!dequantize && !site.has("Round") && !site.has("Sub")) return false;
  if (dequantize) {
    const dt = site.elem(x);
    const isInt32 = dt === DataType.INT32;
    if (dt === undefined || !(QUANTIZED.includes(dt) || isInt32)) return false;
    if (isInt32 && zp && !site.value(zp)?.values.every((v) => v === 0)) return false;
    const s = along(site, scale, axis, rank);
    if (!s) return false;
    let v = site.add("Cast", [x], { to: F });
    if (zp && !(isInt32 || site.value(zp)?.values.every((z) => z === 0))) {
      const z = along(site, zp, axis, rank);
      if (!z) return false;
      v = site.add("Sub", [v, z]);
    }
    site.add("Mul", [v, s], {}, [...site.out]);
    return true;
  }
  if (site.elem(x) !== F || quantized === undefined || !QUANTIZED.includes(quantized)) return false;
  const range = quantizedRange(quantized)!;
  const s = along(site, scale, axis, rank);
  if (!s) return false;
  let q = site.add("Round", [site.add("Div", [x, s])]);
  // A zero point of 0 adds nothing the Cast would see (-0 + 0 is +0; both cast to 0).
  if (zp && !site.value(zp)?.values.every((z) => z === 0)) {
    const z = along(site, zp, axis, rank);
    if (!z) return false;
    q = site.add("Add", [q, z]);
  }
  const [lo, hi] = range.map((b, i) => site.constant(i ? "hi" : "lo", F, [], [b]));
  const clipped =
    site.opset >= 11
      ? site.add("Clip", [q, lo!, hi!])
      : site.add("Clip", [q], { min: range[0], max: range[1] });
  site.add("Cast", [clipped], { to: quantized }, [...site.out]);
  return true;
}

export function legalizeQuantize(options: LegalizeOptions) {
  return legalizePass(
    "legalize-quantize",
    ["QuantizeLinear", "DequantizeLinear"],
    "QuantizeLinear/DequantizeLinear made float arithmetic",
    quantize,
    options,
  );
}
