// Linear quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
// ConvInteger, QLinearMatMul, QLinearConv (8-bit integer types; per-tensor or per-axis scales).

import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { allocStorage, fromFloat64, toFloat64, scratch } from "../tensor.js";
import type { Kernel, KernelContext, RTensor } from "../types.js";
import { convPlan, convPoolKernels } from "./conv-pool.js";
import { nnKernels } from "./nn.js";
import {
  dynamicQuantizeWasm,
  qconv,
  qgemmFor,
  qproduct,
  type Int8Data,
  type ZeroPoints,
} from "./qgemm-ops.js";
import { checkedCount, fail, input, normAxis, optInput } from "./util.js";
import { isConstant } from "./wasm/gemm.js";
import { dynamicQuantizeInPlace } from "./ew-wasm.js";
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

/**
 * DynamicQuantizeLinear's scale and zero point for the range [min, max] (min ≤ 0 ≤ max), as the
 * function body computes them, in float32: Sub, then Div; the zero point Sub(0, Div(min, scale)),
 * Clip to [0, 255], Round (half to even).
 */
function dynamicParams(min: number, max: number): { scale: number; zero: number } {
  const scale = Math.fround(Math.fround(max - min) / 255);
  const zero = scale === 0 ? 0 : roundEven(Math.min(255, Math.max(0, -Math.fround(min / scale))));
  return { scale, zero };
}

const DynamicQuantizeLinear: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const out = () => allocStorage(DataType.UINT8, x.data.length) as Uint8Array;
  const fast =
    x.dtype === DataType.FLOAT &&
    (dynamicQuantizeInPlace(x.data as Float32Array, dynamicParams, out) ??
      dynamicQuantizeWasm(x.data as Float32Array, dynamicParams));
  if (fast)
    return [
      { dtype: DataType.UINT8, shape: [...x.shape], data: fast.y },
      fromFloat64(DataType.FLOAT, [], Float64Array.of(fast.scale)),
      fromFloat64(DataType.UINT8, [], Float64Array.of(fast.zero)),
    ];
  const v = toFloat64(x);
  let min = 0;
  let max = 0;
  for (const e of v) {
    if (e < min) min = e;
    if (e > max) max = e;
  }
  const { scale, zero: zp } = dynamicParams(min, max);
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

/**
 * A zero point's values for the integer product: absent → 0; one value → that number; `n`
 * values (one per row or column) → the array; any other count → undefined (the reference loop).
 */
function zeroOf(z: RTensor | undefined, n: number): ZeroPoints | undefined {
  if (!z || z.data.length === 0) return 0;
  if (z.dtype !== DataType.INT8 && z.dtype !== DataType.UINT8) return undefined;
  const d = z.data as Int8Array | Uint8Array;
  if (d.length === 1) return d[0]!;
  return d.length === n ? d : undefined;
}

const constantZero = (z: RTensor | undefined) => !z || isConstant(z.data);

/**
 * Σ_t (a[i, t] − a_zero_point) · (b[t, j] − b_zero_point) for a B of two axes (every row of A
 * against it) on the integer product, wrapping to int32; undefined where it cannot take them.
 */
function matmulSums(
  ctx: KernelContext,
  A: RTensor,
  za: RTensor | undefined,
  B: RTensor,
  zb: RTensor | undefined,
): { sums: Int32Array; shape: number[] } | undefined {
  const ar = qgemmFor(A.dtype, B.dtype);
  if (!ar || A.shape.length < 2 || B.shape.length !== 2 || A.shape.at(-1) !== B.shape[0])
    return undefined;
  // B (K × N) for every row of A: one product of all of A's rows, its zero points per row
  // (a_zero_point's M values repeated for each batch entry) and per column.
  const [M, K] = [A.shape.at(-2)!, A.shape.at(-1)!];
  const N = B.shape[1]!;
  const zA = zeroOf(za, M);
  const zB = zeroOf(zb, N);
  if (zA === undefined || zB === undefined) return undefined;
  const shape = [...A.shape.slice(0, -1), N];
  checkedCount(ctx, shape);
  const rows = A.data.length / K;
  const zeroA = typeof zA === "number" ? zA : Array.from({ length: rows }, (_, i) => zA[i % M]!);
  const sums = allocStorage(DataType.INT32, rows * N) as Int32Array;
  const a = { data: A.data as Int8Data, off: 0, rs: K, cs: 1, zero: zeroA };
  const b = {
    data: B.data as Int8Data,
    off: 0,
    rs: N,
    cs: 1,
    zero: zB,
    zeroConstant: constantZero(zb),
  };
  qproduct(ar, a, b, rows, N, K, sums, 0);
  return { sums, shape };
}

type IntegerSums = (
  ctx: KernelContext,
  a: RTensor,
  za: RTensor | undefined,
  b: RTensor,
  zb: RTensor | undefined,
) => { sums: Int32Array; shape: number[] } | undefined;

/**
 * MatMulInteger and ConvInteger: a, b and their optional zero points; the exact int32 sums of the
 * fast path, else `op` (MatMul, Conv) in float64 on the operands minus their zero points (a per
 * `axes[0]`, b per `axes[1]`), whose sums are exact below 2^53.
 */
function integerKernel(fast: IntegerSums, axes: [number, number], op: () => Kernel): Kernel {
  return (ctx, inputs) => {
    const A = input(ctx, inputs, 0);
    const B = input(ctx, inputs, 1);
    const [za, zb] = [optInput(ctx, inputs, 2), optInput(ctx, inputs, 3)];
    const f = fast(ctx, A, za, B, zb);
    if (f) return [{ dtype: DataType.INT32, shape: f.shape, data: f.sums }];
    const y = op()(ctx, [centered(A, za, axes[0]), centered(B, zb, axes[1])])[0] as RTensor;
    return [fromFloat64(DataType.INT32, y.shape, y.data as Float64Array)];
  };
}

const MatMulInteger = integerKernel(matmulSums, [-2, -1], () => nnKernels.MatMul!);

/**
 * A 2-D integer convolution's exact int32 sums (bias + Σ (x − zx)(w − zw)) on the WebAssembly
 * integer product, or undefined where it does not apply (then the kernels compute them in
 * float64 through Conv).
 */
function fastConv(
  ctx: KernelContext,
  x: RTensor,
  xz: RTensor | undefined,
  w: RTensor,
  wz: RTensor | undefined,
  bias?: Int32Array,
): { sums: Int32Array; shape: number[] } | undefined {
  const ar = qgemmFor(x.dtype, w.dtype);
  if (!ar || x.shape.length !== 4) return undefined;
  const p = convPlan(ctx, x, w);
  const zx = zeroOf(xz, 1);
  const zw = zeroOf(wz, p.m);
  if (!p.win2d || typeof zx !== "number" || zw === undefined) return undefined;
  const sums = qconv(ar, x.data as Int8Data, zx, w.data as Int8Data, zw, constantZero(wz), p, bias);
  return { sums, shape: p.outShape };
}

const ConvInteger = integerKernel(fastConv, [1, 0], () => convPoolKernels.Conv!);

/**
 * A quantized product's result from its exact integer sums S (int32, wrapped as the reference
 * and onnxruntime accumulate): S · (scale_a · scale_b) in float64 (the scales' product is exact,
 * so one rounding), then quantized by y_scale and y_zero_point.
 */
function requantized(
  ctx: KernelContext,
  sums: Int32Array,
  shape: number[],
  scale: (i: number) => number,
  ys: RTensor,
  yz: RTensor | undefined,
  axis: number,
  outType: number,
): RTensor {
  const y = scratch(Float64Array, sums.length);
  for (let i = 0; i < y.length; i++) y[i] = sums[i]! * scale(i);
  const like: RTensor = { dtype: DataType.DOUBLE, shape, data: y };
  return quantize(
    ctx,
    y,
    like,
    perAxis(ctx, like, ys, axis, 1),
    perAxis(ctx, like, yz, axis, 0),
    outType,
  );
}

/** Exact sums of centred integers (float64, below 2^53) wrapped to int32. */
function wrapped(v: Float64Array): Int32Array {
  const out = scratch(Int32Array, v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! | 0;
  return out;
}

/** Scales as float64 values: one, or one per entry along the axis's n. */
function scalesOf(ctx: KernelContext, s: RTensor, n: number, what: string): Float64Array {
  const v = toFloat64(s);
  if (v.length !== 1 && v.length !== n)
    fail(ctx, `${what} has ${v.length} entries, expected 1 or ${n}`);
  return v;
}

const QLinearMatMul: Kernel = (ctx, inputs) => {
  const [a, as, az, b, bs, bz, ys, yz] = [0, 1, 2, 3, 4, 5, 6, 7].map((i) =>
    optInput(ctx, inputs, i),
  );
  if (!a || !as || !b || !bs || !ys || !yz)
    fail(ctx, "a, a_scale, b, b_scale, y_scale and y_zero_point are required");
  // The sums Σ (a − a_zero_point) (b − b_zero_point), per row of a and column of b.
  const fast = matmulSums(ctx, a, az, b, bz);
  let sums = fast?.sums;
  let shape = fast?.shape;
  if (!sums) {
    const y = nnKernels.MatMul!(ctx, [centered(a, az, -2), centered(b, bz, -1)])[0] as RTensor;
    sums = wrapped(y.data as Float64Array);
    shape = y.shape;
  }
  // Scales: a per row (its second-last axis), b per column (its last).
  const M = a.shape.length >= 2 ? a.shape.at(-2)! : 1;
  const N = b.shape.length >= 2 ? b.shape.at(-1)! : 1;
  const sa = scalesOf(ctx, as, M, "a_scale");
  const sb = scalesOf(ctx, bs, N, "b_scale");
  const scale = (i: number) =>
    (sa.length === 1 ? sa[0]! : sa[Math.floor(i / N) % M]!) *
    (sb.length === 1 ? sb[0]! : sb[i % N]!);
  return [requantized(ctx, sums, shape!, scale, ys, yz, -1, yz.dtype)];
};

const QLinearConv: Kernel = (ctx, inputs) => {
  const [x, xs, xz, w, ws, wz, ys, yz, bias] = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) =>
    optInput(ctx, inputs, i),
  );
  if (!x || !xs || !w || !ws || !ys) fail(ctx, "x, x_scale, w, w_scale and y_scale are required");
  // The sums bias + Σ (x − x_zero_point)(w − w_zero_point), the bias in units of
  // x_scale · w_scale (per output channel).
  const bv = bias && (bias.data as Int32Array);
  const fast = fastConv(ctx, x, xz, w, wz, bv);
  let sums = fast?.sums;
  let shape = fast?.shape;
  if (!sums) {
    const B: RTensor | undefined = bias && {
      dtype: DataType.DOUBLE,
      shape: [...bias.shape],
      data: toFloat64(bias),
    };
    const X = centered(x, xz, 1);
    const W = centered(w, wz, 0);
    const y = convPoolKernels.Conv!(ctx, B ? [X, W, B] : [X, W])[0] as RTensor;
    sums = wrapped(y.data as Float64Array);
    shape = y.shape;
  }
  const M = shape![1]!;
  const inner = shape!.slice(2).reduce((p, d) => p * d, 1);
  const sx = toFloat64(xs)[0]!;
  const sw = scalesOf(ctx, ws, M, "w_scale");
  const scale = (i: number) => sx * (sw.length === 1 ? sw[0]! : sw[Math.floor(i / inner) % M]!);
  return [requantized(ctx, sums, shape!, scale, ys, yz, 1, yz ? yz.dtype : DataType.UINT8)];
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
