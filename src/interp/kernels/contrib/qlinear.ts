// onnxruntime's quantized operators (com.microsoft): QLinearAdd, QLinearMul, QLinearSigmoid,
// QLinearLeakyRelu, QLinearSoftmax, QLinearGlobalAveragePool, QLinearAveragePool, QLinearConcat,
// QGemm, and com.microsoft's QuantizeLinear/DequantizeLinear.
//
// Each computes what its definition says: the dequantized inputs, the float op, the result
// quantized (round half to even, saturated). The arithmetic follows onnxruntime's CPU kernels
// step by step in float32 where those are integer arithmetic with a float rescale (QLinearAdd,
// QLinearMul, QGemm, QLinearGlobalAveragePool, QLinearConcat), so that results are bit-exact
// against onnxruntime; where onnxruntime evaluates a float function with an approximation of its
// own (QLinearSigmoid's logistic, QLinearSoftmax's exp), results are within one quantum.

import { DataType } from "../../../ir/types.js";
import { allocStorage, toFloat64, scratch } from "../../tensor.js";
import type { Kernel, KernelContext, RTensor, RValue } from "../../types.js";
import { floatAttr, intAttr } from "../attrs.js";
import { convPoolKernels } from "../conv-pool.js";
import { dequantizeLinear, quantizeLinear, quantRange, roundEven } from "../quant-linear.js";
import { broadcastIndex, broadcastShapes, fail, input, normAxis, optInput, prod } from "../util.js";

const f = Math.fround;

/** A per-tensor quantization parameter: the scalar's value (a zero point absent: 0). */
function scalarOf(ctx: KernelContext, t: RTensor | undefined, what: string, dflt = 0): number {
  if (!t) return dflt;
  if (t.data.length !== 1)
    fail(ctx, `${what} must be a scalar (per tensor), got shape [${t.shape.join(",")}]`);
  return toFloat64(t)[0]!;
}

/** Quantized storage of `dtype` from integer values already rounded: saturated to its range. */
function saturated(
  ctx: KernelContext,
  dtype: number,
  shape: number[],
  q: ArrayLike<number>,
): RTensor {
  const range = quantRange(dtype);
  if (!range) fail(ctx, `the quantized type must be an integer type`);
  const [lo, hi] = range;
  const out = allocStorage(dtype, q.length) as Int32Array;
  for (let i = 0; i < q.length; i++) out[i] = Math.min(hi, Math.max(lo, q[i]!));
  return { dtype, shape, data: out };
}

/** The inputs of QLinearAdd / QLinearMul: A, B (values), their parameters, C's. */
interface Binary {
  a: RTensor;
  b: RTensor;
  as: number;
  az: number;
  bs: number;
  bz: number;
  cs: number;
  cz: number;
}

function binaryInputs(ctx: KernelContext, inputs: (RValue | undefined)[]): Binary {
  const a = input(ctx, inputs, 0);
  const b = input(ctx, inputs, 3);
  return {
    a,
    b,
    as: scalarOf(ctx, input(ctx, inputs, 1), "A_scale"),
    az: scalarOf(ctx, optInput(ctx, inputs, 2), "A_zero_point"),
    bs: scalarOf(ctx, input(ctx, inputs, 4), "B_scale"),
    bz: scalarOf(ctx, optInput(ctx, inputs, 5), "B_zero_point"),
    cs: scalarOf(ctx, input(ctx, inputs, 6), "C_scale"),
    cz: scalarOf(ctx, optInput(ctx, inputs, 7), "C_zero_point"),
  };
}

/**
 * A binary quantized op over broadcast A and B: `op(p, a, b, scalarB)` gives the result before
 * rounding. onnxruntime's kernels run over spans of the output's last axis, folding an operand that
 * is constant along the span into their constant part (`scalarB`), which changes the order of
 * the float32 steps; an A constant along the span is swapped with B (the ops commute).
 */
function quantBinary(
  ctx: KernelContext,
  p: Binary,
  op: (p: Binary, a: number, b: number, scalarB: boolean) => number,
): RTensor {
  const shape = broadcastShapes(ctx, [p.a.shape, p.b.shape]);
  const last = shape[shape.length - 1] ?? 1;
  const constant = (s: number[]) => s.length === 0 || s[s.length - 1] === 1 || last === 1;
  let q = p;
  if (constant(p.a.shape) && !constant(p.b.shape))
    q = { ...p, a: p.b, b: p.a, as: p.bs, az: p.bz, bs: p.as, bz: p.az };
  const scalarB = constant(q.b.shape);
  const ia = broadcastIndex(q.a.shape, shape);
  const ib = broadcastIndex(q.b.shape, shape);
  const av = toFloat64(q.a);
  const bv = toFloat64(q.b);
  const n = prod(shape);
  const out = scratch(Float64Array, n);
  for (let i = 0; i < n; i++)
    out[i] = roundEven(op(q, av[ia ? ia[i]! : i]!, bv[ib ? ib[i]! : i]!, scalarB));
  return saturated(ctx, q.a.dtype, shape, out);
}

/** fma(x, y, z) in float32: x·y is exact in double for the codes and float32 ratios here. */
const fma = (x: number, y: number, z: number) => f(x * y + z);

/**
 * QLinearAdd: C = (A_scale (A - A_zp) + B_scale (B - B_zp)) / C_scale + C_zp, evaluated as
 * onnxruntime's x86 AVX2 kernel does: ratios r_A = A_scale / C_scale and r_B = B_scale / C_scale,
 * a constant part C_zp - (r_A A_zp + r_B B_zp), then fma(A, r_A, fma(B, r_B, constant)); a B
 * constant along the span is folded into the constant part first (constant + B r_B).
 */
const QLinearAdd: Kernel = (ctx, inputs) => [
  quantBinary(ctx, binaryInputs(ctx, inputs), (q, a, b, scalarB) => {
    const rA = f(q.as / q.cs);
    const rB = f(q.bs / q.cs);
    const fixed = f(q.cz - fma(rA, q.az, f(rB * q.bz)));
    return scalarB ? fma(a, rA, f(fixed + f(b * rB))) : fma(a, rA, fma(b, rB, fixed));
  }),
];

/** QLinearMul: C = A_scale (A - A_zp) B_scale (B - B_zp) / C_scale + C_zp, in float32. */
const QLinearMul: Kernel = (ctx, inputs) => {
  const p = binaryInputs(ctx, inputs);
  const ratio = f(f(p.as * p.bs) / p.cs);
  return [quantBinary(ctx, p, (q, a, b) => f(f(f((a - q.az) * (b - q.bz)) * ratio) + q.cz))];
};

/**
 * A quantized unary op by its lookup table, as onnxruntime builds it: each code dequantized
 * ((x - zp) * scale in float32), `fn` applied, the result quantized (x / scale in float32).
 */
function lookupUnary(fn: (ctx: KernelContext, x: number) => number): Kernel {
  return (ctx, inputs) => {
    const x = input(ctx, inputs, 0);
    const xs = scalarOf(ctx, input(ctx, inputs, 1), "X_scale");
    const xz = scalarOf(ctx, optInput(ctx, inputs, 2), "X_zero_point");
    const ys = scalarOf(ctx, input(ctx, inputs, 3), "Y_scale");
    const yz = scalarOf(ctx, optInput(ctx, inputs, 4), "Y_zero_point");
    const range = quantRange(x.dtype);
    if (!range || range[1] - range[0] > 255) fail(ctx, "X must be uint8 or int8");
    const [lo, hi] = range;
    const table = new Float64Array(256);
    for (let c = lo; c <= hi; c++) {
      const v = fn(ctx, f((c - xz) * xs));
      table[c - lo] = Math.min(hi, Math.max(lo, roundEven(f(v / ys)) + yz));
    }
    const xv = toFloat64(x);
    const out = scratch(Float64Array, xv.length);
    for (let i = 0; i < xv.length; i++) out[i] = table[xv[i]! - lo]!;
    return [saturated(ctx, x.dtype, [...x.shape], out)];
  };
}

const QLinearSigmoid = lookupUnary((_, x) => f(1 / (1 + Math.exp(-x))));
const QLinearLeakyRelu = lookupUnary((ctx, x) => (x >= 0 ? x : f(x * floatAttr(ctx, "alpha"))));

/**
 * QLinearSoftmax as onnxruntime computes it, which is the definition (Softmax of the dequantized
 * X along `axis`; opset < 13: over the flattened axes from `axis` on, quantized) up to one quantum:
 * a float32 table of exp((c - 255 + shift) x_scale) over the codes c (shift keeps the row sum
 * below float's range), each row's sum of the table entries of its codes (the table moved so that
 * the row's largest code reads entry 255), and y = round(entry · floor(1 / y_scale) / sum) + y_zp.
 * The zero point of X cancels out.
 */
const QLinearSoftmax: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const xs = scalarOf(ctx, input(ctx, inputs, 1), "X_scale");
  const ys = scalarOf(ctx, input(ctx, inputs, 3), "y_scale");
  const yz = scalarOf(ctx, optInput(ctx, inputs, 4), "y_zero_point");
  const signed = x.dtype === DataType.INT8;
  if (!signed && x.dtype !== DataType.UINT8) fail(ctx, "X must be uint8 or int8");
  const rank = x.shape.length;
  const axis = normAxis(ctx, intAttr(ctx, "axis"), rank);
  const flat = intAttr(ctx, "opset") < 13;
  const len = flat ? prod(x.shape.slice(axis)) : x.shape[axis]!;
  const inner = flat ? 1 : prod(x.shape.slice(axis + 1));
  // The table: entry u holds exp((i - 255 + shift) x_scale), u the byte of i (signed: i - 128).
  const FLT_MAX = 3.4028234663852886e38;
  const shift = Math.max(0, Math.log(FLT_MAX / len) - 5) / xs;
  const table = new Float64Array(256);
  for (let i = 0; i < 256; i++)
    table[(signed ? i - 128 : i) & 0xff] = f(Math.exp((i - 255 + shift) * xs));
  const yScale = f(Math.floor(f(1 / ys)));
  const xv = toFloat64(x);
  const out = scratch(Float64Array, xv.length);
  const outer = xv.length / (len * inner) || 0;
  const codes = scratch(Float64Array, len);
  for (let o = 0; o < outer; o++)
    for (let r = 0; r < inner; r++) {
      const at = (k: number) => (o * len + k) * inner + r;
      let max = -Infinity;
      for (let k = 0; k < len; k++) max = Math.max(max, xv[at(k)]!);
      // the table index of each code, the row's largest reading entry 255 (signed: 127)
      for (let k = 0; k < len; k++)
        codes[k] = signed ? (127 - max + xv[at(k)]!) & 0xff : 255 - max + xv[at(k)]!;
      let sum = 0;
      for (let k = 0; k < len; k++) sum = f(sum + table[codes[k]!]!);
      for (let k = 0; k < len; k++)
        out[at(k)] = roundEven(f(f(table[codes[k]!]! * yScale) / sum)) + yz;
    }
  return [saturated(ctx, x.dtype, [...x.shape], out)];
};

/** The inputs of a pooling QLinear op: X with its scale and zero point, then Y's (scalars). */
function quantizedXY(ctx: KernelContext, inputs: (RValue | undefined)[]) {
  return {
    x: input(ctx, inputs, 0),
    xs: scalarOf(ctx, input(ctx, inputs, 1), "x_scale"),
    xz: scalarOf(ctx, optInput(ctx, inputs, 2), "x_zero_point"),
    ys: scalarOf(ctx, input(ctx, inputs, 3), "y_scale"),
    yz: scalarOf(ctx, optInput(ctx, inputs, 4), "y_zero_point"),
  };
}

/**
 * QLinearGlobalAveragePool: the integer sum over the spatial axes, its mean rescaled to Y in
 * float32: round((sum - N x_zp) * (x_scale / (N y_scale))) + y_zp.
 */
const QLinearGlobalAveragePool: Kernel = (ctx, inputs) => {
  const { x, xs, xz, ys, yz } = quantizedXY(ctx, inputs);
  const last = intAttr(ctx, "channels_last") === 1;
  if (x.shape.length < 3) fail(ctx, "X must have rank 3 or more");
  const N = x.shape[0]!;
  const C = last ? x.shape[x.shape.length - 1]! : x.shape[1]!;
  const spatial = last ? x.shape.slice(1, -1) : x.shape.slice(2);
  const S = prod(spatial);
  const xv = toFloat64(x);
  const scale = f(xs / f(ys * S));
  const out = scratch(Float64Array, N * C);
  for (let n = 0; n < N; n++)
    for (let c = 0; c < C; c++) {
      let sum = 0;
      for (let s = 0; s < S; s++) sum += xv[last ? (n * S + s) * C + c : (n * C + c) * S + s]!;
      out[n * C + c] = roundEven(f(f(sum - S * xz) * scale)) + yz;
    }
  const ones = spatial.map(() => 1);
  return [saturated(ctx, x.dtype, last ? [N, ...ones, C] : [N, C, ...ones], out)];
};

/** QLinearAveragePool: AveragePool of the dequantized X (float64), quantized. */
const QLinearAveragePool: Kernel = (ctx, inputs) => {
  const { x, xs, xz, ys, yz } = quantizedXY(ctx, inputs);
  if (intAttr(ctx, "channels_last") === 1) fail(ctx, "channels_last = 1 is not supported");
  const xv = toFloat64(x);
  for (let i = 0; i < xv.length; i++) xv[i] = (xv[i]! - xz) * xs;
  const pooled = convPoolKernels.AveragePool!(ctx, [
    { dtype: DataType.DOUBLE, shape: [...x.shape], data: xv },
  ])[0] as RTensor;
  const pv = pooled.data as Float64Array;
  const out = scratch(Float64Array, pv.length);
  for (let i = 0; i < pv.length; i++) out[i] = roundEven(f(pv[i]! / ys)) + yz;
  return [saturated(ctx, x.dtype, pooled.shape, out)];
};

/**
 * QLinearConcat: inputs Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) triples. An input
 * with Y's parameters is copied; another is requantized code by code (dequantized in float32,
 * divided by Y_scale in float32, rounded), as onnxruntime's lookup tables do.
 */
const QLinearConcat: Kernel = (ctx, inputs) => {
  const ys = scalarOf(ctx, input(ctx, inputs, 0), "Y_scale");
  const yz = scalarOf(ctx, optInput(ctx, inputs, 1), "Y_zero_point");
  const parts: RTensor[] = [];
  const params: [number, number][] = [];
  for (let i = 2; i < inputs.length; i += 3) {
    parts.push(input(ctx, inputs, i));
    params.push([
      scalarOf(ctx, input(ctx, inputs, i + 1), "X_scale"),
      scalarOf(ctx, optInput(ctx, inputs, i + 2), "X_zero_point"),
    ]);
  }
  if (parts.length === 0) fail(ctx, "no inputs to concatenate");
  const rank = parts[0]!.shape.length;
  const axis = normAxis(ctx, intAttr(ctx, "axis"), rank);
  const dtype = parts[0]!.dtype;
  const shape = [...parts[0]!.shape];
  shape[axis] = parts.reduce((s, p) => s + p.shape[axis]!, 0);
  const outer = prod(shape.slice(0, axis));
  const inner = prod(shape.slice(axis + 1));
  const out = scratch(Float64Array, prod(shape));
  let offset = 0;
  parts.forEach((p, k) => {
    const [xs, xz] = params[k]!;
    const same = xs === ys && xz === yz;
    const v = toFloat64(p);
    const len = p.shape[axis]! * inner;
    for (let o = 0; o < outer; o++)
      for (let j = 0; j < len; j++) {
        const c = v[o * len + j]!;
        out[o * shape[axis]! * inner + offset + j] = same
          ? c
          : roundEven(f(f((c - xz) * xs) / ys)) + yz;
      }
    offset += len;
  });
  return [saturated(ctx, dtype, shape, out)];
};

/**
 * QGemm: alpha A'B' (+ C) with integer products: the int32 accumulator of (A - a_zp)(B - b_zp),
 * plus C (int32, at scale a_scale b_scale); quantized with y_scale / y_zero_point when given
 * (acc * (alpha a_scale b_scale / y_scale) in float32, rounded), else float (acc * alpha a_scale
 * b_scale). B may be quantized per column (b_scale and b_zero_point of length N).
 */
const QGemm: Kernel = (ctx, inputs) => {
  const A = input(ctx, inputs, 0);
  const as = scalarOf(ctx, input(ctx, inputs, 1), "a_scale");
  const az = scalarOf(ctx, input(ctx, inputs, 2), "a_zero_point");
  const B = input(ctx, inputs, 3);
  const bsT = input(ctx, inputs, 4);
  const bzT = input(ctx, inputs, 5);
  const C = optInput(ctx, inputs, 6);
  const ysT = optInput(ctx, inputs, 7);
  const yzT = optInput(ctx, inputs, 8);
  const transA = intAttr(ctx, "transA") === 1;
  const transB = intAttr(ctx, "transB") === 1;
  const alpha = floatAttr(ctx, "alpha");
  if (A.shape.length !== 2 || B.shape.length !== 2) fail(ctx, "A and B must be 2-D");
  const [M, K] = transA ? [A.shape[1]!, A.shape[0]!] : [A.shape[0]!, A.shape[1]!];
  const [K2, N] = transB ? [B.shape[1]!, B.shape[0]!] : [B.shape[0]!, B.shape[1]!];
  if (K !== K2) fail(ctx, `inner dimensions differ: ${K} and ${K2}`);
  const av = toFloat64(A);
  const bv = toFloat64(B);
  const bs = toFloat64(bsT);
  const bz = toFloat64(bzT);
  if ((bs.length !== 1 && bs.length !== N) || bz.length !== bs.length)
    fail(ctx, `b_scale and b_zero_point must have 1 or ${N} entries`);
  const cv = C ? toFloat64(C) : undefined;
  const ci = C ? broadcastIndex(C.shape, [M, N]) : null;
  const ys = ysT ? scalarOf(ctx, ysT, "y_scale") : undefined;
  const yz = yzT ? scalarOf(ctx, yzT, "y_zero_point") : 0;
  const acc = scratch(Float64Array, M * N);
  for (let m = 0; m < M; m++)
    for (let n = 0; n < N; n++) {
      const zb = bz[bz.length === 1 ? 0 : n]!;
      let s = 0;
      for (let k = 0; k < K; k++) {
        const a = av[transA ? k * M + m : m * K + k]! - az;
        const b = bv[transB ? n * K + k : k * N + n]! - zb;
        s += a * b;
      }
      if (cv) s += cv[ci ? ci[m * N + n]! : m * N + n]!;
      acc[m * N + n] = s;
    }
  if (ys === undefined) {
    const out = scratch(Float32Array, M * N);
    for (let i = 0; i < M * N; i++) {
      const sb = bs[bs.length === 1 ? 0 : i % N]!;
      out[i] = f(acc[i]! * f(f(alpha * as) * sb));
    }
    return [{ dtype: DataType.FLOAT, shape: [M, N], data: out }];
  }
  const q = scratch(Float64Array, M * N);
  for (let i = 0; i < M * N; i++) {
    const sb = bs[bs.length === 1 ? 0 : i % N]!;
    const multiplier = f(f(f(alpha * as) * sb) / ys);
    q[i] = roundEven(f(f(acc[i]!) * multiplier)) + yz;
  }
  return [saturated(ctx, yzT ? yzT.dtype : DataType.UINT8, [M, N], q)];
};

export const qlinearKernels: Record<string, Kernel> = {
  QLinearAdd,
  QLinearMul,
  QLinearSigmoid,
  QLinearLeakyRelu,
  QLinearSoftmax,
  QLinearGlobalAveragePool,
  QLinearAveragePool,
  QLinearConcat,
  QGemm,
  QuantizeLinear: quantizeLinear,
  DequantizeLinear: dequantizeLinear,
};
