// QuantizeLinear and DequantizeLinear in general: per tensor, per axis and blocked (block_size)
// scales, every quantized type (8- and 16-bit integers, int4/uint4, int2/uint2, float8 and
// float4e2m1), output_dtype, saturate. Also com.microsoft's QuantizeLinear/DequantizeLinear
// (the same, before ONNX had 16- and 4-bit types). Arithmetic as onnxruntime does it: x / scale in
// float32 for float32 inputs, rounded to nearest even; (x - zero point) * scale in float32.

import {
  dtypeName,
  isMiniFloat,
  numberToMiniFloatBits,
  quantizedRange,
  subByteIntRange,
} from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { allocStorage, fromFloat64, toFloat64, scratch } from "../tensor.js";
import type { Kernel, KernelContext, RTensor, RValue } from "../types.js";
import { intAttr } from "./attrs.js";
import { fail, input, normAxis, optInput } from "./util.js";

/** The integer range of a quantized integer type; undefined for the float types. */
export const quantRange = quantizedRange;

/** Round half to even. */
export function roundEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * For each element of x, the index of its scale (and zero point): one scale (per tensor), one
 * per index along `axis` (1-D scale), or one per block of `block` indices along `axis` (a scale
 * of x's rank with ceil(dim / block) there). Undefined for per tensor.
 */
export function scaleIndex(
  ctx: KernelContext,
  x: RTensor,
  scale: RTensor,
  axisAttr: number,
  block: number,
): ((i: number) => number) | undefined {
  const n = scale.data.length;
  if (n === 1 && block <= 0 && scale.shape.length <= 1) return undefined;
  const rank = x.shape.length;
  const axis = normAxis(ctx, axisAttr, rank);
  const dim = x.shape[axis]!;
  const inner = x.shape.slice(axis + 1).reduce((a, d) => a * d, 1);
  if (block <= 0) {
    if (scale.shape.length !== 1 || n !== dim)
      fail(
        ctx,
        `a per-axis scale must be 1-D with ${dim} entries (axis ${axis}), got shape [${scale.shape.join(",")}]`,
      );
    return (i) => Math.floor(i / inner) % dim;
  }
  const blocks = Math.ceil(dim / block);
  const want = x.shape.map((d, k) => (k === axis ? blocks : d));
  if (scale.shape.length !== rank || scale.shape.some((d, k) => d !== want[k]))
    fail(
      ctx,
      `a blocked scale (block_size ${block}, axis ${axis}) must have shape [${want.join(",")}], got [${scale.shape.join(",")}]`,
    );
  // x index (outer, a, inner) -> scale index (outer, floor(a / block), inner)
  return (i) => {
    const r = i % inner;
    const q = Math.floor(i / inner);
    const a = q % dim;
    const outer = Math.floor(q / dim);
    return (outer * blocks + Math.floor(a / block)) * inner + r;
  };
}

/** The zero point's values (0 when absent), checked to have the scale's shape. */
function zeroPoints(ctx: KernelContext, z: RTensor | undefined, scale: RTensor): Float64Array {
  if (!z) return scratch(Float64Array, scale.data.length);
  if (z.data.length !== scale.data.length)
    fail(
      ctx,
      `the zero point has shape [${z.shape.join(",")}], the scale [${scale.shape.join(",")}]`,
    );
  return toFloat64(z);
}

/** x quantized to `dtype` with the given scales and zero points (float32 division, as ORT). */
export function quantizeValues(
  ctx: KernelContext,
  x: RTensor,
  scale: RTensor,
  zp: Float64Array,
  index: ((i: number) => number) | undefined,
  dtype: number,
  saturate: boolean,
): RTensor {
  const v = toFloat64(x);
  const s = toFloat64(scale);
  const n = v.length;
  const f32 = x.dtype !== DataType.DOUBLE;
  const range = quantRange(dtype);
  if (range) {
    const [lo, hi] = range;
    const out = allocStorage(dtype, n) as Int32Array;
    for (let i = 0; i < n; i++) {
      const k = index ? index(i) : 0;
      const q = f32 ? Math.fround(v[i]! / s[k]!) : v[i]! / s[k]!;
      // NaN quantizes to the zero point, as ORT's saturating conversion gives.
      const r = Number.isNaN(q) ? 0 : roundEven(q);
      out[i] = Math.min(hi, Math.max(lo, r + zp[k]!));
    }
    return { dtype, shape: [...x.shape], data: out };
  }
  if (isMiniFloat(dtype)) {
    const out = allocStorage(dtype, n) as Uint8Array;
    for (let i = 0; i < n; i++) {
      const k = index ? index(i) : 0;
      const q = f32 ? Math.fround(v[i]! / s[k]!) : v[i]! / s[k]!;
      out[i] = numberToMiniFloatBits(dtype, q + zp[k]!, saturate);
    }
    return { dtype, shape: [...x.shape], data: out };
  }
  fail(ctx, `quantizing to ${dtypeName(dtype)} is not supported`);
}

/** (x - zero point) * scale, in float32 (or double for a double scale), as the output type. */
export function dequantizeValues(
  x: RTensor,
  scale: RTensor,
  zp: Float64Array,
  index: ((i: number) => number) | undefined,
  outType: number,
): RTensor {
  const v = toFloat64(x);
  const s = toFloat64(scale);
  const out = scratch(Float64Array, v.length);
  const f32 = outType !== DataType.DOUBLE;
  for (let i = 0; i < v.length; i++) {
    const k = index ? index(i) : 0;
    const d = (v[i]! - zp[k]!) * s[k]!;
    out[i] = f32 ? Math.fround(d) : d;
  }
  return fromFloat64(outType, [...x.shape], out);
}

/** QuantizeLinear (any version), and com.microsoft's. */
export const quantizeLinear: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const s = input(ctx, inputs, 1);
  const z = optInput(ctx, inputs, 2);
  const axis = intAttr(ctx, "axis", { without: 1 });
  const block = intAttr(ctx, "block_size", { without: 0 });
  const saturate = intAttr(ctx, "saturate", { without: 1 }) !== 0;
  const dtype = z ? z.dtype : intAttr(ctx, "output_dtype", { without: 0 }) || DataType.UINT8;
  const index = scaleIndex(ctx, x, s, axis, block);
  return [quantizeValues(ctx, x, s, zeroPoints(ctx, z, s), index, dtype, saturate)];
};

/** DequantizeLinear (any version), and com.microsoft's. */
export const dequantizeLinear: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const s = input(ctx, inputs, 1);
  const z = optInput(ctx, inputs, 2);
  const axis = intAttr(ctx, "axis", { without: 1 });
  const block = intAttr(ctx, "block_size", { without: 0 });
  const outType = intAttr(ctx, "output_dtype", { without: 0 }) || s.dtype;
  const index = scaleIndex(ctx, x, s, axis, block);
  return [dequantizeValues(x, s, zeroPoints(ctx, z, s), index, outType)];
};

/**
 * Whether a QuantizeLinear/DequantizeLinear call needs the general kernels here rather than the
 * 8-bit per-tensor/per-axis ones of quant.ts: a block size, a type other than (u)int8/(u)int16, or a
 * low-precision input.
 */
export function needsGeneralQuant(ctx: KernelContext, inputs: (RValue | undefined)[]): boolean {
  const x = inputs[0] as RTensor | undefined;
  const z = inputs[2] as RTensor | undefined;
  if (intAttr(ctx, "block_size", { without: 0 }) > 0) return true;
  const q = ctx.node.opType === "DequantizeLinear" ? x?.dtype : z?.dtype;
  if (q !== undefined && !quantRange(q)) return true;
  if (q !== undefined && subByteIntRange(q)) return true;
  if (ctx.node.opType === "DequantizeLinear" && intAttr(ctx, "output_dtype", { without: 0 }))
    return true;
  if (ctx.node.opType === "QuantizeLinear" && !z) {
    const t = intAttr(ctx, "output_dtype", { without: 0 });
    return t !== 0 && (!quantRange(t) || !!subByteIntRange(t));
  }
  return false;
}
