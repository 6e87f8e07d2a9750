// onnxruntime's fused float operators (com.microsoft) and its SimplifiedLayerNormalization (which
// it registers in the ONNX domain): Gelu, BiasGelu, FastGelu, QuickGelu, BiasAdd, FusedConv,
// FusedMatMul, SkipLayerNormalization, SkipSimplifiedLayerNormalization,
// SimplifiedLayerNormalization, EmbedLayerNormalization. Computed in float64 and rounded once to
// the output type, as the interpreter's own normalisations are.

import { DataType } from "../../../ir/types.js";
import { fromFloat64, toFloat64, scratch } from "../../tensor.js";
import type { Kernel, KernelContext, RTensor } from "../../types.js";
import { getAttr } from "../../../ir/attributes.js";
import { floatAttr, intAttr, stringAttr } from "../attrs.js";
import { gelu, geluTanh } from "../activation.js";
import { convPoolKernels } from "../conv-pool.js";
import { nnKernels } from "../nn.js";
import {
  broadcastIndex,
  broadcastShapes,
  fail,
  floatInput,
  input,
  normAxis,
  optInput,
  prod,
} from "../util.js";

/** x (+ a bias broadcast against it) mapped elementwise, in x's type. */
function mapWithBias(
  ctx: KernelContext,
  x: RTensor,
  bias: RTensor | undefined,
  fn: (v: number) => number,
): RTensor {
  const v = toFloat64(x);
  if (bias) {
    const shape = broadcastShapes(ctx, [x.shape, bias.shape]);
    if (shape.length !== x.shape.length || shape.some((d, i) => d !== x.shape[i]))
      fail(ctx, `bias [${bias.shape.join(",")}] must broadcast to X [${x.shape.join(",")}]`);
    const b = toFloat64(bias);
    const ib = broadcastIndex(bias.shape, x.shape);
    for (let i = 0; i < v.length; i++) v[i] = v[i]! + b[ib ? ib[i]! : i]!;
  }
  for (let i = 0; i < v.length; i++) v[i] = fn(v[i]!);
  return fromFloat64(x.dtype, [...x.shape], v);
}

const sigmoid = (t: number) => (t >= 0 ? 1 / (1 + Math.exp(-t)) : Math.exp(t) / (1 + Math.exp(t)));

const Gelu: Kernel = (ctx, inputs) => [
  mapWithBias(ctx, floatInput(ctx, inputs, 0, "X"), undefined, gelu),
];
const BiasGelu: Kernel = (ctx, inputs) => [
  mapWithBias(ctx, floatInput(ctx, inputs, 0, "A"), input(ctx, inputs, 1), gelu),
];
const FastGelu: Kernel = (ctx, inputs) => [
  mapWithBias(ctx, floatInput(ctx, inputs, 0, "X"), optInput(ctx, inputs, 1), geluTanh),
];
const QuickGelu: Kernel = (ctx, inputs) => {
  const alpha = floatAttr(ctx, "alpha");
  return [
    mapWithBias(ctx, floatInput(ctx, inputs, 0, "X"), undefined, (v) => v * sigmoid(alpha * v)),
  ];
};

/** BiasAdd: X + bias + skip; X and skip [N, S, C], bias [C]. */
const BiasAdd: Kernel = (ctx, inputs) => {
  const x = floatInput(ctx, inputs, 0, "X");
  const bias = input(ctx, inputs, 1);
  const skip = input(ctx, inputs, 2);
  const C = x.shape[x.shape.length - 1];
  if (bias.shape.length !== 1 || bias.shape[0] !== C) fail(ctx, `bias must be [${C}]`);
  if (skip.shape.length !== x.shape.length || skip.shape.some((d, i) => d !== x.shape[i]))
    fail(ctx, "skip must have X's shape");
  const v = toFloat64(x);
  const b = toFloat64(bias);
  const s = toFloat64(skip);
  for (let i = 0; i < v.length; i++) v[i] = v[i]! + b[i % C!]! + s[i]!;
  return [fromFloat64(x.dtype, [...x.shape], v)];
};

/** The activation FusedConv names, with its parameters. */
function fusedActivation(ctx: KernelContext): ((v: number) => number) | undefined {
  const name = stringAttr(ctx, "activation", { without: "" });
  const a = getAttr(ctx.node, "activation_params");
  const p = a && a.type === "FLOATS" ? (a.value ?? []) : [];
  switch (name) {
    case "":
      return undefined;
    case "Relu":
      return (v) => Math.max(v, 0);
    case "Tanh":
      return Math.tanh;
    case "Sigmoid":
      return sigmoid;
    case "LeakyRelu": {
      const a = p[0] ?? 0.01;
      return (v) => (v >= 0 ? v : a * v);
    }
    case "Clip": {
      const [lo, hi] = [p[0] ?? -Infinity, p[1] ?? Infinity];
      return (v) => Math.min(hi, Math.max(lo, v));
    }
    case "HardSigmoid": {
      const [a, b] = [p[0] ?? 0.2, p[1] ?? 0.5];
      return (v) => Math.max(0, Math.min(1, a * v + b));
    }
  }
  return fail(ctx, `activation '${name}' is not one FusedConv applies`);
}

/** FusedConv: Conv(X, W, B) (+ Z), then the activation. */
const FusedConv: Kernel = (ctx, inputs) => {
  const [x, w, b, z] = [0, 1, 2, 3].map((i) => optInput(ctx, inputs, i));
  if (!x || !w) fail(ctx, "X and W are required");
  const y = convPoolKernels.Conv!(ctx, b ? [x, w, b] : [x, w])[0] as RTensor;
  const act = fusedActivation(ctx);
  if (!z && !act) return [y];
  const v = toFloat64(y);
  if (z) {
    const zv = toFloat64(z);
    if (zv.length !== v.length) fail(ctx, "Z must have the shape of the convolution's output");
    for (let i = 0; i < v.length; i++) v[i] = v[i]! + zv[i]!;
  }
  if (act) for (let i = 0; i < v.length; i++) v[i] = act(v[i]!);
  return [fromFloat64(y.dtype, y.shape, v)];
};

/** A tensor's last two axes swapped, in float64. */
function transposed(t: RTensor): RTensor {
  const r = t.shape.length;
  const v = toFloat64(t);
  const perm = [...Array.from({ length: r - 2 }, (_, i) => i), r - 1, r - 2];
  const shape = perm.map((p) => t.shape[p]!);
  const inStr = t.shape.map((_, i) => prod(t.shape.slice(i + 1)));
  const out = scratch(Float64Array, v.length);
  const idx = new Array<number>(r).fill(0);
  for (let o = 0; o < v.length; o++) {
    let src = 0;
    for (let k = 0; k < r; k++) src += idx[k]! * inStr[perm[k]!]!;
    out[o] = v[src]!;
    for (let k = r - 1; k >= 0; k--) {
      if (++idx[k]! < shape[k]!) break;
      idx[k] = 0;
    }
  }
  return { dtype: DataType.DOUBLE, shape, data: out };
}

/** FusedMatMul: alpha · MatMul(A', B'), A' and B' transposed as transA/transB (transBatch*) say. */
const FusedMatMul: Kernel = (ctx, inputs) => {
  const a = floatInput(ctx, inputs, 0, "A");
  const b = floatInput(ctx, inputs, 1, "B");
  const dtype = a.dtype;
  const alpha = floatAttr(ctx, "alpha");
  const tA = intAttr(ctx, "transA") === 1;
  const tB = intAttr(ctx, "transB") === 1;
  if (intAttr(ctx, "transBatchA") === 1 || intAttr(ctx, "transBatchB") === 1)
    fail(ctx, "transBatchA / transBatchB are not supported");
  const A =
    tA && a.shape.length >= 2
      ? transposed(a)
      : { ...a, dtype: DataType.DOUBLE, data: toFloat64(a) };
  const B =
    tB && b.shape.length >= 2
      ? transposed(b)
      : { ...b, dtype: DataType.DOUBLE, data: toFloat64(b) };
  const y = nnKernels.MatMul!(ctx, [A, B])[0] as RTensor;
  const v = y.data as Float64Array;
  if (alpha !== 1) for (let i = 0; i < v.length; i++) v[i] = v[i]! * alpha;
  return [fromFloat64(dtype, y.shape, v)];
};

/**
 * Normalisation of rows of length `len`: (x - mean) / sqrt(var + eps) (rms: x / sqrt(mean(x^2) +
 * eps)) times gamma (+ beta). Returns y, and each row's mean and 1 / sqrt(var + eps).
 */
function normalizeRows(
  x: Float64Array,
  len: number,
  gamma: Float64Array,
  beta: Float64Array | undefined,
  eps: number,
  rms: boolean,
): { y: Float64Array; mean: Float64Array; inv: Float64Array } {
  const rows = len === 0 ? 0 : x.length / len;
  const y = scratch(Float64Array, x.length);
  const mean = scratch(Float64Array, rows);
  const inv = scratch(Float64Array, rows);
  for (let r = 0; r < rows; r++) {
    const o = r * len;
    let m = 0;
    if (!rms) {
      for (let j = 0; j < len; j++) m += x[o + j]!;
      m /= len;
    }
    let s = 0;
    for (let j = 0; j < len; j++) s += (x[o + j]! - m) ** 2;
    const iv = 1 / Math.sqrt(s / len + eps);
    mean[r] = m;
    inv[r] = iv;
    for (let j = 0; j < len; j++)
      y[o + j] = (x[o + j]! - m) * iv * gamma[j]! + (beta ? beta[j]! : 0);
  }
  return { y, mean, inv };
}

/** A [len] parameter of a normalisation over the last axis. */
function rowParam(ctx: KernelContext, t: RTensor | undefined, len: number, what: string) {
  if (!t) return undefined;
  if (t.data.length !== len)
    fail(ctx, `${what} must have ${len} elements, got [${t.shape.join(",")}]`);
  return toFloat64(t);
}

/** SkipLayerNormalization / SkipSimplifiedLayerNormalization over the last axis of input + skip (+ bias). */
function skipNorm(rms: boolean): Kernel {
  return (ctx, inputs) => {
    const x = floatInput(ctx, inputs, 0, "input");
    const skip = input(ctx, inputs, 1);
    const len = x.shape[x.shape.length - 1] ?? 1;
    const gamma = rowParam(ctx, input(ctx, inputs, 2), len, "gamma")!;
    const beta = rms ? undefined : rowParam(ctx, optInput(ctx, inputs, 3), len, "beta");
    const bias = rowParam(ctx, optInput(ctx, inputs, rms ? 3 : 4), len, "bias");
    const sum = toFloat64(x);
    const sv = toFloat64(skip);
    // skip is [B, S, H] or [S, H] / [1, S, H]: broadcast over the batch.
    if (sum.length % sv.length !== 0) fail(ctx, "skip does not broadcast to input");
    for (let i = 0; i < sum.length; i++)
      sum[i] = sum[i]! + sv[i % sv.length]! + (bias ? bias[i % len]! : 0);
    // The sum output is rounded to the input's type, and normalised as rounded (as onnxruntime).
    const rounded = toFloat64(fromFloat64(x.dtype, [...x.shape], sum));
    const eps = floatAttr(ctx, "epsilon");
    const { y, mean, inv } = normalizeRows(rounded, len, gamma, beta, eps, rms);
    const stat = [...x.shape.slice(0, -1), 1];
    return [
      fromFloat64(x.dtype, [...x.shape], y),
      fromFloat64(DataType.FLOAT, stat, mean),
      fromFloat64(DataType.FLOAT, stat, inv),
      fromFloat64(x.dtype, [...x.shape], rounded),
    ];
  };
}

/** SimplifiedLayerNormalization (onnxruntime's, ONNX domain): RMS over the axes from `axis` on. */
const SimplifiedLayerNormalization: Kernel = (ctx, inputs) => {
  const x = floatInput(ctx, inputs, 0, "X");
  const scale = input(ctx, inputs, 1);
  const axis = normAxis(ctx, intAttr(ctx, "axis"), x.shape.length);
  const len = prod(x.shape.slice(axis));
  const gamma = toFloat64(scale);
  if (gamma.length !== len) fail(ctx, `scale must have ${len} elements`);
  const { y, inv } = normalizeRows(
    toFloat64(x),
    len,
    gamma,
    undefined,
    floatAttr(ctx, "epsilon"),
    true,
  );
  const stash = intAttr(ctx, "stash_type") === DataType.DOUBLE ? DataType.DOUBLE : DataType.FLOAT;
  return [
    fromFloat64(scale.dtype, [...x.shape], y),
    fromFloat64(
      stash,
      x.shape.map((d, i) => (i < axis ? d : 1)),
      inv,
    ),
  ];
};

/**
 * EmbedLayerNormalization: word (+ position, by position_ids or 0..S-1) (+ segment) embeddings,
 * summed and layer-normalised; mask_index the count of mask entries equal to 1 per row, as
 * onnxruntime counts them (a 2 or a -1 is not counted: measured on onnxruntime 1.24, rows
 * [2,2,2,0,...] give 0); zeros without a mask.
 */
const EmbedLayerNormalization: Kernel = (ctx, inputs) => {
  const ids = input(ctx, inputs, 0);
  const seg = optInput(ctx, inputs, 1);
  const word = floatInput(ctx, inputs, 2, "word_embedding");
  const pos = input(ctx, inputs, 3);
  const segEmb = optInput(ctx, inputs, 4);
  const gammaT = input(ctx, inputs, 5);
  const betaT = input(ctx, inputs, 6);
  const mask = optInput(ctx, inputs, 7);
  const posIds = optInput(ctx, inputs, 8);
  if (ids.shape.length !== 2) fail(ctx, "input_ids must be [batch, sequence]");
  const [B, S] = ids.shape as [number, number];
  const H = word.shape[1]!;
  const idv = toFloat64(ids);
  const sv = seg ? toFloat64(seg) : undefined;
  const wv = toFloat64(word);
  const pv = toFloat64(pos);
  const ev = segEmb ? toFloat64(segEmb) : undefined;
  const piv = posIds ? toFloat64(posIds) : undefined;
  const sum = scratch(Float64Array, B * S * H);
  const row = (table: Float64Array, rows: number, i: number, what: string) => {
    if (!(i >= 0 && i < rows)) fail(ctx, `${what} index ${i} is out of range [0, ${rows})`);
    return i * H;
  };
  for (let b = 0; b < B; b++)
    for (let s = 0; s < S; s++) {
      const t = b * S + s;
      const w = row(wv, word.shape[0]!, idv[t]!, "input_ids");
      const pi = piv ? piv[piv.length === S ? s : t]! : s;
      const p = row(pv, pos.shape[0]!, pi, "position");
      const g = ev && sv ? row(ev, segEmb!.shape[0]!, sv[t]!, "segment_ids") : -1;
      for (let h = 0; h < H; h++)
        sum[t * H + h] = wv[w + h]! + pv[p + h]! + (g >= 0 ? ev![g + h]! : 0);
    }
  const rounded = toFloat64(fromFloat64(word.dtype, [B, S, H], sum));
  const { y } = normalizeRows(
    rounded,
    H,
    toFloat64(gammaT),
    toFloat64(betaT),
    floatAttr(ctx, "epsilon"),
    false,
  );
  const maskIndex = scratch(Int32Array, B);
  if (mask) {
    const mv = toFloat64(mask);
    for (let b = 0; b < B; b++) {
      let c = 0;
      for (let s = 0; s < S; s++) if (mv[b * S + s] === 1) c++;
      maskIndex[b] = c;
    }
  }
  return [
    fromFloat64(word.dtype, [B, S, H], y),
    { dtype: DataType.INT32, shape: [B], data: maskIndex },
    fromFloat64(word.dtype, [B, S, H], rounded),
  ];
};

export const fusedKernels: Record<string, Kernel> = {
  Gelu,
  BiasGelu,
  FastGelu,
  QuickGelu,
  BiasAdd,
  FusedConv,
  FusedMatMul,
  SkipLayerNormalization: skipNorm(false),
  SkipSimplifiedLayerNormalization: skipNorm(true),
  EmbedLayerNormalization,
};

/** onnxruntime's own registrations in the ONNX domain (LayerNormalization-1 uses ai.onnx's kernel). */
export const onnxDomainKernels: Record<string, Kernel> = { SimplifiedLayerNormalization };
