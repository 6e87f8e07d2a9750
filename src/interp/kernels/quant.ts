// Linear quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
// ConvInteger, QLinearMatMul, QLinearConv (8-bit integer types; per-tensor or per-axis scales).

import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { fromFloat64, toFloat64, scratch } from "../tensor.js";
import type { Kernel, KernelContext, RTensor } from "../types.js";
import { convPoolKernels } from "./conv-pool.js";
import { nnKernels } from "./nn.js";
import { fail, input, normAxis, optInput } from "./util.js";
import { intAttr } from "./attrs.js";
import { dequantizeLinear, needsGeneralQuant, quantizeLinear } from "./quant-linear.js";

const RANGE: Record<number, [number, number]> = {
  [DataType.UINT8]: [0, 255],
  [DataType.INT8]: [-128, 127],
  [DataType.UINT16]: [0, 65535],
  [DataType.INT16]: [-32768, 32767],
  [DataType.INT32]: [-2147483648, 2147483647],
};

function roundEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Per-element scale/zero-point lookup: scalar, or 1-D along `axis`. */
function perAxis(
  ctx: KernelContext,
  x: RTensor,
  p: RTensor | undefined,
  axisAttr: number,
  dflt: number,
): (i: number) => number {
  if (!p || p.data.length === 0) return () => dflt;
  const v = toFloat64(p);
  if (v.length === 1) {
    const c = v[0]!;
    return () => c;
  }
  const axis = normAxis(ctx, axisAttr, x.shape.length);
  if (v.length !== x.shape[axis])
    fail(ctx, `scale/zero point has ${v.length} entries, axis ${axis} has size ${x.shape[axis]}`);
  const inner = x.shape.slice(axis + 1).reduce((a, d) => a * d, 1);
  const dim = x.shape[axis]!;
  return (i) => v[Math.floor(i / inner) % dim]!;
}

function quantize(
  ctx: KernelContext,
  x: Float64Array,
  like: RTensor,
  scale: (i: number) => number,
  zp: (i: number) => number,
  dtype: number,
): RTensor {
  const range = RANGE[dtype];
  if (!range) fail(ctx, `quantizing to ${dtypeName(dtype)} is not supported`);
  const [lo, hi] = range;
  const out = scratch(Float64Array, x.length);
  // float32 input is divided in float32, as the reference and onnxruntime do (it decides ties).
  const f32 = like.dtype === DataType.FLOAT;
  for (let i = 0; i < x.length; i++) {
    const q = f32 ? Math.fround(x[i]! / scale(i)) : x[i]! / scale(i);
    out[i] = Math.min(hi, Math.max(lo, roundEven(q) + zp(i)));
  }
  return fromFloat64(dtype, [...like.shape], out);
}

const QuantizeLinear: Kernel = (ctx, inputs) => {
  if (needsGeneralQuant(ctx, inputs)) return quantizeLinear(ctx, inputs);
  const x = input(ctx, inputs, 0);
  const s = input(ctx, inputs, 1);
  const z = optInput(ctx, inputs, 2);
  const axis = intAttr(ctx, "axis", { without: 1 });
  const dtype = z ? z.dtype : intAttr(ctx, "output_dtype", { without: 0 }) || DataType.UINT8;
  return [
    quantize(ctx, toFloat64(x), x, perAxis(ctx, x, s, axis, 1), perAxis(ctx, x, z, axis, 0), dtype),
  ];
};

const DequantizeLinear: Kernel = (ctx, inputs) => {
  if (needsGeneralQuant(ctx, inputs)) return dequantizeLinear(ctx, inputs);
  const x = input(ctx, inputs, 0);
  const s = input(ctx, inputs, 1);
  const z = optInput(ctx, inputs, 2);
  const axis = intAttr(ctx, "axis", { without: 1 });
  const scale = perAxis(ctx, x, s, axis, 1);
  const zp = perAxis(ctx, x, z, axis, 0);
  const v = toFloat64(x);
  for (let i = 0; i < v.length; i++) v[i] = (v[i]! - zp(i)) * scale(i);
  return [fromFloat64(s.dtype, [...x.shape], v)];
};

const DynamicQuantizeLinear: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const v = toFloat64(x);
  let min = 0;
  let max = 0;
  for (const e of v) {
    if (e < min) min = e;
    if (e > max) max = e;
  }
  // As the function body computes, in float32: Sub, then Div; the zero point Sub(0, Div(min,
  // scale)), Clip to [0, 255], Round (half to even).
  const scale = Math.fround(Math.fround(max - min) / 255);
  const zp = scale === 0 ? 0 : roundEven(Math.min(255, Math.max(0, -Math.fround(min / scale))));
  const y = quantize(
    ctx,
    v,
    x,
    () => (scale === 0 ? 1 : scale),
    () => zp,
    DataType.UINT8,
  );
  return [
    y,
    fromFloat64(DataType.FLOAT, [], Float64Array.of(scale)),
    fromFloat64(DataType.UINT8, [], Float64Array.of(zp)),
  ];
};

/** a - zero point as a float64 tensor (per-row zero points for A, per-column for B). */
function centered(t: RTensor, zp: RTensor | undefined, axis: number): RTensor {
  const v = toFloat64(t);
  if (zp && zp.data.length) {
    const z = toFloat64(zp);
    const r = t.shape.length;
    const ax = axis < 0 ? axis + r : axis;
    const inner = t.shape.slice(ax + 1).reduce((a, d) => a * d, 1);
    const dim = t.shape[ax] ?? 1;
    for (let i = 0; i < v.length; i++)
      v[i]! -= z.length === 1 ? z[0]! : z[Math.floor(i / inner) % dim]!;
  }
  return { dtype: DataType.DOUBLE, shape: [...t.shape], data: v };
}

const MatMulInteger: Kernel = (ctx, inputs) => {
  const a = centered(input(ctx, inputs, 0), optInput(ctx, inputs, 2), -2);
  const b = centered(input(ctx, inputs, 1), optInput(ctx, inputs, 3), -1);
  const y = nnKernels.MatMul!(ctx, [a, b])[0] as RTensor;
  return [fromFloat64(DataType.INT32, y.shape, y.data as Float64Array)];
};

const ConvInteger: Kernel = (ctx, inputs) => {
  const x = centered(input(ctx, inputs, 0), optInput(ctx, inputs, 2), 1);
  const w = centered(input(ctx, inputs, 1), optInput(ctx, inputs, 3), 0);
  const y = convPoolKernels.Conv!(ctx, [x, w])[0] as RTensor;
  return [fromFloat64(DataType.INT32, y.shape, y.data as Float64Array)];
};

function dequantized(
  ctx: KernelContext,
  q: RTensor,
  s: RTensor,
  z: RTensor | undefined,
  axis: number,
): RTensor {
  const v = toFloat64(q);
  const scale = perAxis(ctx, q, s, axis, 1);
  const zp = perAxis(ctx, q, z, axis, 0);
  for (let i = 0; i < v.length; i++) v[i] = (v[i]! - zp(i)) * scale(i);
  return { dtype: DataType.DOUBLE, shape: [...q.shape], data: v };
}

const QLinearMatMul: Kernel = (ctx, inputs) => {
  const [a, as, az, b, bs, bz, ys, yz] = [0, 1, 2, 3, 4, 5, 6, 7].map((i) =>
    optInput(ctx, inputs, i),
  );
  if (!a || !as || !b || !bs || !ys || !yz)
    fail(ctx, "a, a_scale, b, b_scale, y_scale and y_zero_point are required");
  const A = dequantized(ctx, a, as, az, -2);
  const B = dequantized(ctx, b, bs, bz, -1);
  const y = nnKernels.MatMul!(ctx, [A, B])[0] as RTensor;
  return [
    quantize(
      ctx,
      y.data as Float64Array,
      y,
      perAxis(ctx, y, ys, -1, 1),
      perAxis(ctx, y, yz, -1, 0),
      yz.dtype,
    ),
  ];
};

const QLinearConv: Kernel = (ctx, inputs) => {
  const [x, xs, xz, w, ws, wz, ys, yz, bias] = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) =>
    optInput(ctx, inputs, i),
  );
  if (!x || !xs || !w || !ws || !ys) fail(ctx, "x, x_scale, w, w_scale and y_scale are required");
  const X = dequantized(ctx, x, xs, xz, 1);
  const W = dequantized(ctx, w, ws, wz, 0);
  const wsv = toFloat64(ws);
  const xsv = toFloat64(xs)[0]!;
  let B: RTensor | undefined;
  if (bias) {
    // The int32 bias is in units of x_scale × w_scale (per output channel).
    const bv = toFloat64(bias);
    for (let i = 0; i < bv.length; i++) bv[i]! *= xsv * (wsv.length === 1 ? wsv[0]! : wsv[i]!);
    B = { dtype: DataType.DOUBLE, shape: [bv.length], data: bv };
  }
  const y = convPoolKernels.Conv!(ctx, B ? [X, W, B] : [X, W])[0] as RTensor;
  const outType = yz ? yz.dtype : DataType.UINT8;
  return [
    quantize(
      ctx,
      y.data as Float64Array,
      y,
      perAxis(ctx, y, ys, 1, 1),
      perAxis(ctx, y, yz, 1, 0),
      outType,
    ),
  ];
};

export const quantKernels: Record<string, Kernel> = {
  QuantizeLinear,
  DequantizeLinear,
  DynamicQuantizeLinear,
  MatMulInteger,
  ConvInteger,
  QLinearMatMul,
  QLinearConv,
};
