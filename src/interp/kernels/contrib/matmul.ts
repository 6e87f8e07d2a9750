// onnxruntime's quantized matrix products (com.microsoft): MatMulIntegerToFloat,
// DynamicQuantizeMatMul, MatMulNBits, DynamicQuantizeLSTM.
//
// MatMulIntegerToFloat and DynamicQuantizeMatMul are integer products rescaled in float32 as
// onnxruntime does (the activation of DynamicQuantizeMatMul quantized to uint8 first, by
// onnxruntime's rule for its parameters): bit-exact where onnxruntime's float32 steps are.
// MatMulNBits dequantizes its blocked weights ((q - zero point) * scale in float32) and multiplies
// in float64, as onnxruntime computes in float32 at accuracy levels 0 to 3; at level 4 the
// activations are first quantized to int8 per block, as onnxruntime does. DynamicQuantizeLSTM
// quantizes its input and hidden states as onnxruntime does with a thread per batch row, its gate
// activations in float64 (below).

import { DataType } from "../../../ir/types.js";
import { fromFloat64, toFloat64, scratch } from "../../tensor.js";
import type { Kernel, KernelContext, RTensor } from "../../types.js";
import { intAttr, stringAttr } from "../attrs.js";
import { roundEven } from "../quant-linear.js";
import { fail, input, optInput, prod } from "../util.js";

const f = Math.fround;

/**
 * The integer product of A [..., M, K] and B [K, N] (B 2-D, as these ops take it), with zero
 * points (A: scalar; B: scalar or per column), as exact integers in float64: [..., M, N].
 */
function integerProduct(
  ctx: KernelContext,
  a: Float64Array,
  aShape: number[],
  az: number,
  b: RTensor,
  bz: Float64Array,
): { acc: Float64Array; shape: number[]; N: number } {
  if (b.shape.length !== 2) fail(ctx, `B must be 2-D, got [${b.shape.join(",")}]`);
  const [K, N] = b.shape as [number, number];
  if (aShape[aShape.length - 1] !== K)
    fail(ctx, `A [${aShape.join(",")}] and B [${K},${N}]: inner dimensions differ`);
  if (bz.length !== 1 && bz.length !== N) fail(ctx, `b_zero_point must have 1 or ${N} entries`);
  const bv = toFloat64(b);
  const rows = K === 0 ? prod(aShape.slice(0, -1)) : a.length / K;
  const acc = scratch(Float64Array, rows * N);
  for (let r = 0; r < rows; r++)
    for (let n = 0; n < N; n++) {
      const zb = bz[bz.length === 1 ? 0 : n]!;
      let s = 0;
      for (let k = 0; k < K; k++) s += (a[r * K + k]! - az) * (bv[k * N + n]! - zb);
      acc[r * N + n] = s;
    }
  return { acc, shape: [...aShape.slice(0, -1), N], N };
}

/** acc * (a_scale * b_scale) (+ bias), in float32 per element, as onnxruntime's output step. */
function scaleOutput(
  ctx: KernelContext,
  acc: Float64Array,
  shape: number[],
  N: number,
  scale: (n: number) => number,
  bias: RTensor | undefined,
  dtype: number,
): RTensor {
  const bv = bias ? toFloat64(bias) : undefined;
  if (bv && bv.length !== N) fail(ctx, `bias must have ${N} entries`);
  const out = scratch(Float64Array, acc.length);
  for (let i = 0; i < acc.length; i++) {
    const n = i % N;
    const v = f(acc[i]! * scale(n));
    out[i] = bv ? f(v + bv[n]!) : v;
  }
  return fromFloat64(dtype, shape, out);
}

function perColumn(ctx: KernelContext, t: RTensor | undefined, N: number, what: string) {
  if (!t) return new Float64Array(1);
  const v = toFloat64(t);
  if (v.length !== 1 && v.length !== N) fail(ctx, `${what} must have 1 or ${N} entries`);
  return v;
}

/** MatMulIntegerToFloat: (A - a_zp)(B - b_zp) as integers, times a_scale * b_scale, plus bias. */
const MatMulIntegerToFloat: Kernel = (ctx, inputs) => {
  const A = input(ctx, inputs, 0);
  const B = input(ctx, inputs, 1);
  const as = toFloat64(input(ctx, inputs, 2));
  const bsT = input(ctx, inputs, 3);
  const azT = optInput(ctx, inputs, 4);
  const bzT = optInput(ctx, inputs, 5);
  const bias = optInput(ctx, inputs, 6);
  if (as.length !== 1) fail(ctx, "a_scale must be a scalar (per tensor)");
  const az = azT ? toFloat64(azT)[0]! : 0;
  const N = B.shape[B.shape.length - 1]!;
  const bz = perColumn(ctx, bzT, N, "b_zero_point");
  const bs = perColumn(ctx, bsT, N, "b_scale");
  const { acc, shape } = integerProduct(ctx, toFloat64(A), A.shape, az, B, bz);
  const outType = input(ctx, inputs, 2).dtype;
  return [
    scaleOutput(ctx, acc, shape, N, (n) => f(as[0]! * bs[bs.length === 1 ? 0 : n]!), bias, outType),
  ];
};

/**
 * A float32 tensor quantized to uint8 by onnxruntime's rule for dynamic quantization: the range
 * [min(x, 0), max(x, 0)], scale (max - min) / 255 (1 when the range is empty), zero point
 * round(0 - min / scale) in [0, 255]; values round(x / scale) + zero point, saturated.
 */
export function dynamicQuantizeU8(x: Float64Array): { q: Float64Array; scale: number; zp: number } {
  let min = 0;
  let max = 0;
  for (const v of x) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const scale = max === min ? 1 : f(f(max - min) / 255);
  const zp = roundEven(Math.max(0, Math.min(255, f(0 - f(min / scale)))));
  const q = scratch(Float64Array, x.length);
  for (let i = 0; i < x.length; i++)
    q[i] = Math.min(255, Math.max(0, roundEven(f(x[i]! / scale)) + zp));
  return { q, scale, zp };
}

/** DynamicQuantizeMatMul: A quantized to uint8 at run time, then as MatMulIntegerToFloat. */
const DynamicQuantizeMatMul: Kernel = (ctx, inputs) => {
  const A = input(ctx, inputs, 0);
  const B = input(ctx, inputs, 1);
  const bsT = input(ctx, inputs, 2);
  const bzT = optInput(ctx, inputs, 3);
  const bias = optInput(ctx, inputs, 4);
  const { q, scale, zp } = dynamicQuantizeU8(toFloat64(A));
  const N = B.shape[B.shape.length - 1]!;
  const bz = perColumn(ctx, bzT, N, "b_zero_point");
  const bs = perColumn(ctx, bsT, N, "b_scale");
  const { acc, shape } = integerProduct(ctx, q, A.shape, zp, B, bz);
  return [
    scaleOutput(ctx, acc, shape, N, (n) => f(scale * bs[bs.length === 1 ? 0 : n]!), bias, A.dtype),
  ];
};

/**
 * The weights of MatMulNBits dequantized, as W [N, K] in float32 values: B [N, blocks, blob] holds
 * `bits`-bit codes, low bits first; each block of block_size along K has a scale and a zero point
 * (packed `bits`-bit codes in uint8, or values of the scales' type; default 2^(bits - 1)).
 */
export function nbitsWeights(
  ctx: KernelContext,
  B: RTensor,
  scales: RTensor,
  zeros: RTensor | undefined,
  K: number,
  N: number,
  bits: number,
  block: number,
): Float64Array {
  if (bits < 2 || bits > 8) fail(ctx, `bits ${bits} is not supported`);
  const blocks = Math.ceil(K / block);
  const blob = (block * bits) / 8;
  const bv = toFloat64(B);
  if (bv.length !== N * blocks * blob)
    fail(ctx, `B must hold ${N}x${blocks}x${blob} bytes, got [${B.shape.join(",")}]`);
  const sv = toFloat64(scales);
  if (sv.length !== N * blocks) fail(ctx, `scales must have ${N * blocks} entries`);
  const packedZeros = zeros && zeros.dtype === DataType.UINT8;
  const zv = zeros ? toFloat64(zeros) : undefined;
  const zRow = Math.ceil((blocks * bits) / 8);
  const mask = (1 << bits) - 1;
  const code = (bytes: Float64Array, base: number, j: number) => {
    const bit = j * bits;
    const lo = bytes[base + (bit >> 3)]!;
    const hi = (bit & 7) + bits > 8 ? bytes[base + (bit >> 3) + 1]! : 0;
    return ((lo | (hi << 8)) >> (bit & 7)) & mask;
  };
  const W = scratch(Float64Array, N * K);
  for (let n = 0; n < N; n++)
    for (let b = 0; b < blocks; b++) {
      const s = sv[n * blocks + b]!;
      let z = 1 << (bits - 1);
      if (zv) z = packedZeros ? code(zv, n * zRow, b) : zv[n * blocks + b]!;
      for (let j = 0; j < block && b * block + j < K; j++) {
        const q = code(bv, (n * blocks + b) * blob, j);
        W[n * K + b * block + j] = packedZeros || !zv ? f((q - z) * s) : f(f(q * s) - f(z * s));
      }
    }
  return W;
}

/**
 * A's rows quantized to int8 per block of `block` along K, as onnxruntime computes MatMulNBits at
 * accuracy_level 4: scale max|a| / 127, a -> round(a · (1 / scale)) (half to even, in float32)
 * saturated to int8 (onnxruntime narrows without saturating, which differs only where the scale
 * is subnormal), then back to q · scale. In place.
 */
export function quantizeBlocksInt8(a: Float64Array, K: number, block: number): void {
  const rows = K === 0 ? 0 : a.length / K;
  for (let r = 0; r < rows; r++)
    for (let b = 0; b < K; b += block) {
      const end = Math.min(K, b + block);
      let amax = 0;
      for (let k = b; k < end; k++) amax = Math.max(amax, Math.abs(a[r * K + k]!));
      const scale = f(amax / 127);
      const inv = scale ? f(1 / scale) : 0;
      for (let k = b; k < end; k++) {
        const q = roundEven(Math.min(127, Math.max(-128, f(a[r * K + k]! * inv))));
        a[r * K + k] = f(q * scale);
      }
    }
}

/** MatMulNBits: A [..., K] times the dequantized weights transposed (W [N, K]), plus bias. */
const MatMulNBits: Kernel = (ctx, inputs) => {
  const A = input(ctx, inputs, 0);
  const B = input(ctx, inputs, 1);
  const scales = input(ctx, inputs, 2);
  const zeros = optInput(ctx, inputs, 3);
  if (optInput(ctx, inputs, 4)) fail(ctx, "g_idx is not supported");
  const bias = optInput(ctx, inputs, 5);
  const K = intAttr(ctx, "K");
  const N = intAttr(ctx, "N");
  const bits = intAttr(ctx, "bits");
  const block = intAttr(ctx, "block_size");
  if (A.shape[A.shape.length - 1] !== K) fail(ctx, `A's last dimension must be K = ${K}`);
  const W = nbitsWeights(ctx, B, scales, zeros, K, N, bits, block);
  const av = toFloat64(A);
  if (intAttr(ctx, "accuracy_level") === 4) quantizeBlocksInt8(av, K, block);
  const rows = av.length / K || 0;
  const bv = bias ? toFloat64(bias) : undefined;
  const out = scratch(Float64Array, rows * N);
  for (let r = 0; r < rows; r++)
    for (let n = 0; n < N; n++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += av[r * K + k]! * W[n * K + k]!;
      out[r * N + n] = s + (bv ? bv[n]! : 0);
    }
  return [fromFloat64(A.dtype, [...A.shape.slice(0, -1), N], out)];
};

/**
 * DynamicQuantizeLSTM: LSTM with W [dirs, input, 4H] and R [dirs, H, 4H] quantized (a scale and zero
 * point per direction, or per direction and column), computed as onnxruntime does: each product's
 * left operand (the direction's whole input sequence; at each step, each batch row's hidden state,
 * or with H above 256 and at most 4 rows the batch's) quantized to uint8 by dynamicQuantizeU8, the integer product rescaled in float32 and accumulated into the
 * gates (input part, then recurrent part, then the bias Wb + Rb), the gates' activations in
 * float64. Default activations (sigmoid, tanh, tanh), forward, reverse or bidirectional; peepholes,
 * clip, input_forget, sequence_lens and initial states as LSTM.
 */
const DynamicQuantizeLSTM: Kernel = (ctx, inputs) => {
  const X = input(ctx, inputs, 0);
  const Wq = input(ctx, inputs, 1);
  const Rq = input(ctx, inputs, 2);
  const Bt = optInput(ctx, inputs, 3);
  const lensT = optInput(ctx, inputs, 4);
  const h0T = optInput(ctx, inputs, 5);
  const c0T = optInput(ctx, inputs, 6);
  const Pt = optInput(ctx, inputs, 7);
  const act = ctx.node.attributes.find((a) => a.name === "activations");
  if (
    act &&
    act.type === "STRINGS" &&
    (act.value ?? []).some((n, i) => n.toLowerCase() !== ["sigmoid", "tanh", "tanh"][i % 3])
  )
    fail(ctx, "only the default activations (Sigmoid, Tanh, Tanh) are supported");
  const direction = stringAttr(ctx, "direction");
  const dirs = direction === "bidirectional" ? 2 : 1;
  if (X.shape.length !== 3 || Wq.shape.length !== 3 || Rq.shape.length !== 3)
    fail(ctx, "X, W and R must be 3-D");
  const [T, batch, I] = X.shape as [number, number, number];
  const G = Wq.shape[2]!;
  const H = G / 4;
  if (Wq.shape[0] !== dirs || Wq.shape[1] !== I || Rq.shape[1] !== H)
    fail(ctx, `W must be [${dirs}, ${I}, ${G}] and R [${dirs}, ${H}, ${G}]`);
  const clipA = ctx.node.attributes.find((a) => a.name === "clip");
  const clip =
    clipA && clipA.type === "FLOAT" && clipA.value !== undefined ? clipA.value : Infinity;
  const inputForget = intAttr(ctx, "input_forget") !== 0;
  const xv = toFloat64(X);
  const wv = toFloat64(Wq);
  const rv = toFloat64(Rq);
  const param = (i: number, what: string, per: number) => {
    const v = toFloat64(input(ctx, inputs, i));
    if (v.length !== dirs && v.length !== dirs * per)
      fail(ctx, `${what} must have ${dirs} or ${dirs * per} entries`);
    return (d: number, g: number) => v[v.length === dirs ? d : d * per + g]!;
  };
  const ws = param(8, "W_scale", G);
  const wz = param(9, "W_zero_point", G);
  const rs = param(10, "R_scale", G);
  const rz = param(11, "R_zero_point", G);
  const bias = Bt ? toFloat64(Bt) : undefined;
  const P = Pt ? toFloat64(Pt) : undefined;
  const lens = lensT ? toFloat64(lensT) : undefined;
  const h0 = h0T ? toFloat64(h0T) : undefined;
  const c0 = c0T ? toFloat64(c0T) : undefined;
  const Y = scratch(Float64Array, T * dirs * batch * H);
  const Yh = scratch(Float64Array, dirs * batch * H);
  const Yc = scratch(Float64Array, dirs * batch * H);
  const sig = (v: number) => 1 / (1 + Math.exp(-v));
  const cl = (v: number) => (v > clip ? clip : v < -clip ? -clip : v);
  /** rows [n, K] (quantized here) times the direction's [K, G] codes, rescaled: [n, G] in float32. */
  const product = (
    a: Float64Array,
    n: number,
    K: number,
    w: Float64Array,
    d: number,
    s: typeof ws,
    z: typeof wz,
  ) => {
    const { q, scale, zp } = dynamicQuantizeU8(a);
    const out = scratch(Float64Array, n * G);
    for (let r = 0; r < n; r++)
      for (let g = 0; g < G; g++) {
        let acc = 0;
        for (let k = 0; k < K; k++)
          acc += (q[r * K + k]! - zp) * (w[(d * K + k) * G + g]! - z(d, g));
        out[r * G + g] = f(acc * f(scale * s(d, g)));
      }
    return out;
  };
  for (let d = 0; d < dirs; d++) {
    const reverse = direction === "reverse" || d === 1;
    // the direction's input rows in its time order
    const gx = product(xv, T * batch, I, wv, d, ws, wz);
    const h = scratch(Float64Array, batch * H);
    const c = scratch(Float64Array, batch * H);
    if (h0) h.set(h0.subarray(d * batch * H, (d + 1) * batch * H));
    if (c0) c.set(c0.subarray(d * batch * H, (d + 1) * batch * H));
    for (let step = 0; step < T; step++) {
      // The recurrent product quantizes each batch row's hidden state on its own, as onnxruntime
      // does with a thread per row; with H above 256 and at most 4 rows it does not split the
      // batch, whose rows then share one scale (docs/semantics.md).
      let gh: Float64Array;
      if (H > 256 && batch <= 4) gh = product(h, batch, H, rv, d, rs, rz);
      else {
        gh = scratch(Float64Array, batch * G);
        for (let b = 0; b < batch; b++)
          gh.set(product(h.subarray(b * H, (b + 1) * H), 1, H, rv, d, rs, rz), b * G);
      }
      for (let b = 0; b < batch; b++) {
        const len = lens ? lens[b]! : T;
        const t = reverse ? len - 1 - step : step;
        if (t < 0 || step >= len) continue;
        const g = (j: number) => {
          const base = f(gx[(t * batch + b) * G + j]! + gh[b * G + j]!);
          return bias ? f(base + f(bias[d * 2 * G + j]! + bias[d * 2 * G + G + j]!)) : base;
        };
        for (let j = 0; j < H; j++) {
          const pi = P ? P[d * 3 * H + j]! : 0;
          const po = P ? P[d * 3 * H + H + j]! : 0;
          const pf = P ? P[d * 3 * H + 2 * H + j]! : 0;
          const cPrev = c[b * H + j]!;
          const iG = sig(cl(g(j) + pi * cPrev));
          const fG = inputForget ? 1 - iG : sig(cl(g(2 * H + j) + pf * cPrev));
          const cT = Math.tanh(cl(g(3 * H + j)));
          const cNew = f(fG * cPrev + iG * cT);
          const oG = sig(cl(g(H + j) + po * cNew));
          c[b * H + j] = cNew;
          h[b * H + j] = f(oG * Math.tanh(cNew));
          Y[((t * dirs + d) * batch + b) * H + j] = h[b * H + j]!;
        }
      }
    }
    Yh.set(h, d * batch * H);
    Yc.set(c, d * batch * H);
  }
  const dt = X.dtype;
  return [
    fromFloat64(dt, [T, dirs, batch, H], Y),
    fromFloat64(dt, [dirs, batch, H], Yh),
    fromFloat64(dt, [dirs, batch, H], Yc),
  ];
};

export const matmulKernels: Record<string, Kernel> = {
  MatMulIntegerToFloat,
  DynamicQuantizeMatMul,
  MatMulNBits,
  DynamicQuantizeLSTM,
};
