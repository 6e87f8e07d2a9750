// Normalisations that the spec defines as functions: GroupNormalization-18/21 and
// RMSNormalization-23. Statistics and the normalised values are computed in float64 whatever
// `stash_type` asks (it only sets a lower bound on the precision of stage one) and every output
// is rounded once to its element type.

import { attrInt } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { hasAttribute, scaleIsPerChannel } from "../../schema/facts.js";
import { allocStorage, fromFloat64, toFloat64, scratch } from "../tensor.js";
import type { Kernel, KernelContext, RTensor } from "../types.js";
import {
  broadcastIndex,
  broadcastShapes,
  fail,
  floatInput,
  normAxis,
  checkedCount,
  input,
  optInput,
  strides,
  prod,
  requireFloat,
} from "./util.js";
import { opVersion } from "./version.js";
import { floatAttr, intAttr, intsAttr } from "./attrs.js";

const STASH_TYPES = new Set<number>([
  DataType.FLOAT,
  DataType.DOUBLE,
  DataType.FLOAT16,
  DataType.BFLOAT16,
]);

function checkStashType(ctx: KernelContext): void {
  const stash = intAttr(ctx, "stash_type");
  if (!STASH_TYPES.has(stash))
    fail(ctx, `stash_type must be a floating-point type (1, 10, 11 or 16), got ${stash}`);
}

const shapeText = (s: readonly number[]) => `[${s.join(",")}]`;

/**
 * GroupNormalization: X is (N, C, D1, ..., Dn); the channels split into `num_groups` groups of
 * C / num_groups consecutive channels, and mean and variance are taken per instance and group
 * over those channels and every spatial position. Version 18 scales and shifts per group (scale
 * and bias of shape (num_groups)), version 21 per channel (shape (C)).
 */
const GroupNormalization: Kernel = (ctx, inputs) => {
  const x = floatInput(ctx, inputs, 0, "X");
  const scaleT = floatInput(ctx, inputs, 1, "scale");
  const biasT = floatInput(ctx, inputs, 2, "bias");
  for (const t of [scaleT, biasT])
    if (t.dtype !== x.dtype)
      fail(
        ctx,
        `scale and bias must have X's type ${dtypeName(x.dtype)}, got ${dtypeName(t.dtype)}`,
      );
  const version = opVersion(ctx);
  if (hasAttribute(version, "stash_type")) checkStashType(ctx);
  const groups = attrInt(ctx.node, "num_groups");
  if (groups === undefined) fail(ctx, "the attribute num_groups is required");
  if (x.shape.length < 2)
    fail(ctx, `X must have rank 2 or more (N, C, ...), got ${shapeText(x.shape)}`);
  const [n, c] = x.shape as [number, number];
  if (groups <= 0 || c % groups !== 0)
    fail(ctx, `num_groups ${groups} must be positive and divide the number of channels ${c}`);
  const perChannel = scaleIsPerChannel(version);
  const want = perChannel ? c : groups;
  for (const [t, name] of [
    [scaleT, "scale"],
    [biasT, "bias"],
  ] as const)
    if (t.shape.length !== 1 || t.shape[0] !== want)
      fail(
        ctx,
        `${name} must have shape [${want}] (${perChannel ? "one value per channel" : "one value per group"}), got ${shapeText(t.shape)}`,
      );
  const eps = floatAttr(ctx, "epsilon");
  const spatial = x.shape.slice(2).reduce((p, d) => p * d, 1);
  const perGroup = c / groups;
  const size = perGroup * spatial;
  const v = toFloat64(x);
  const s = toFloat64(scaleT);
  const b = toFloat64(biasT);
  for (let i = 0; i < n; i++)
    for (let g = 0; g < groups; g++) {
      const base = (i * groups + g) * size;
      let mean = 0;
      for (let k = 0; k < size; k++) mean += v[base + k]!;
      mean /= size;
      let sq = 0;
      for (let k = 0; k < size; k++) sq += (v[base + k]! - mean) ** 2;
      const sd = Math.sqrt(sq / size + eps);
      for (let k = 0; k < size; k++) {
        const p = perChannel ? g * perGroup + Math.floor(k / spatial) : g;
        v[base + k] = ((v[base + k]! - mean) / sd) * s[p]! + b[p]!;
      }
    }
  return [fromFloat64(x.dtype, [...x.shape], v)];
};

/**
 * RMSNormalization: Y = X / sqrt(mean(X², over axes [axis, r)) + epsilon) · scale, where scale
 * broadcasts unidirectionally to X; Y has X's shape and scale's type.
 */
const RMSNormalization: Kernel = (ctx, inputs) => {
  const x = floatInput(ctx, inputs, 0, "X");
  const scaleT = floatInput(ctx, inputs, 1, "scale");
  checkStashType(ctx);
  const r = x.shape.length;
  if (r === 0) fail(ctx, "X must have rank 1 or more");
  const axis = normAxis(ctx, intAttr(ctx, "axis"), r);
  const eps = floatAttr(ctx, "epsilon");
  const b = broadcastShapes(ctx, [x.shape, scaleT.shape]);
  if (b.length !== r || b.some((d, i) => d !== x.shape[i]))
    fail(
      ctx,
      `scale ${shapeText(scaleT.shape)} must broadcast to X ${shapeText(x.shape)} without changing its shape`,
    );
  const inner = x.shape.slice(axis).reduce((p, d) => p * d, 1);
  const outer = x.shape.slice(0, axis).reduce((p, d) => p * d, 1);
  const v = toFloat64(x);
  const s = toFloat64(scaleT);
  const sIdx = broadcastIndex(scaleT.shape, x.shape);
  for (let o = 0; o < outer; o++) {
    const base = o * inner;
    let sq = 0;
    for (let k = 0; k < inner; k++) sq += v[base + k]! * v[base + k]!;
    const rms = Math.sqrt(sq / inner + eps);
    for (let k = 0; k < inner; k++) {
      const p = base + k;
      v[p] = (v[p]! / rms) * s[sIdx ? sIdx[p]! : p]!;
    }
  }
  return [fromFloat64(scaleT.dtype, [...x.shape], v)];
};

// ---------------------------------------------------------------------------------------------
// Normalisations

/**
 * Inference on float32: float32 in and out, a channel's values hoisted; each value is computed
 * as the general loop computes it (in float64, rounded once), so the results are the same.
 */
function batchNormFloat32(
  x: RTensor,
  c: number,
  inner: number,
  scale: Float64Array,
  bias: Float64Array,
  mean: Float64Array,
  variance: Float64Array,
  eps: number,
): RTensor {
  const src = x.data as Float32Array;
  const out = allocStorage(DataType.FLOAT, src.length) as Float32Array;
  const blocks = inner > 0 ? src.length / inner : 0;
  for (let b = 0, p = 0; b < blocks; b++) {
    const ch = b % c;
    const s = scale[ch]!;
    const m = mean[ch]!;
    const d = Math.sqrt(variance[ch]! + eps);
    const o = bias[ch]!;
    for (const end = p + inner; p < end; p++) out[p] = (s * (src[p]! - m)) / d + o;
  }
  return { dtype: x.dtype, shape: [...x.shape], data: out };
}

const BatchNormalization: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  requireFloat(ctx, x);
  const [scale, bias, mean, variance] = [1, 2, 3, 4].map((i) => toFloat64(input(ctx, inputs, i)));
  const eps = floatAttr(ctx, "epsilon");
  const c = x.shape[1] ?? 1;
  const inner = prod(x.shape.slice(2));
  const training = intAttr(ctx, "training_mode", { without: 0 }) !== 0;
  if (!training && x.dtype === DataType.FLOAT)
    return [batchNormFloat32(x, c, inner, scale!, bias!, mean!, variance!, eps)];
  const v = toFloat64(x);
  // Training mode normalises with the batch statistics and also returns the updated running ones.
  const useMean = training ? scratch(Float64Array, c) : mean!;
  const useVar = training ? scratch(Float64Array, c) : variance!;
  if (training) {
    const count = v.length / c;
    for (let p = 0; p < v.length; p++) useMean[Math.floor(p / inner) % c]! += v[p]!;
    for (let ch = 0; ch < c; ch++) useMean[ch]! /= count;
    for (let p = 0; p < v.length; p++) {
      const ch = Math.floor(p / inner) % c;
      useVar[ch]! += (v[p]! - useMean[ch]!) ** 2;
    }
    for (let ch = 0; ch < c; ch++) useVar[ch]! /= count;
  }
  for (let p = 0; p < v.length; p++) {
    const ch = Math.floor(p / inner) % c;
    v[p] = (scale![ch]! * (v[p]! - useMean[ch]!)) / Math.sqrt(useVar[ch]! + eps) + bias![ch]!;
  }
  const outs = [fromFloat64(x.dtype, [...x.shape], v)];
  if (training) {
    const mom = floatAttr(ctx, "momentum");
    const meanT = input(ctx, inputs, 3);
    const varT = input(ctx, inputs, 4);
    outs.push(
      fromFloat64(
        meanT.dtype,
        [c],
        mean!.map((m, i) => m * mom + useMean[i]! * (1 - mom)),
      ),
    );
    outs.push(
      fromFloat64(
        varT.dtype,
        [c],
        variance!.map((m, i) => m * mom + useVar[i]! * (1 - mom)),
      ),
    );
  }
  return outs;
};

const InstanceNormalization: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  requireFloat(ctx, x);
  const scale = toFloat64(input(ctx, inputs, 1));
  const bias = toFloat64(input(ctx, inputs, 2));
  const eps = floatAttr(ctx, "epsilon");
  const c = x.shape[1] ?? 1;
  const inner = prod(x.shape.slice(2));
  const v = toFloat64(x);
  for (let g = 0; g < v.length / Math.max(inner, 1); g++) {
    const ch = g % c;
    const [mean, inv] = moments(v, g * inner, inner, eps);
    for (let i = 0; i < inner; i++)
      v[g * inner + i] = (v[g * inner + i]! - mean) * inv * scale[ch]! + bias[ch]!;
  }
  return [fromFloat64(x.dtype, [...x.shape], v)];
};

/** The mean of v[start, start + n) and 1 / sqrt(its variance + eps). */
function moments(
  v: Float64Array | Float32Array,
  start: number,
  n: number,
  eps: number,
): [number, number] {
  let mean = 0;
  for (let i = 0; i < n; i++) mean += v[start + i]!;
  mean /= n;
  let vs = 0;
  for (let i = 0; i < n; i++) vs += (v[start + i]! - mean) ** 2;
  return [mean, 1 / Math.sqrt(vs / n + eps)];
}

const LayerNormalization: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  requireFloat(ctx, x);
  const r = x.shape.length;
  const axis = normAxis(ctx, intAttr(ctx, "axis"), r);
  const eps = floatAttr(ctx, "epsilon");
  const scaleT = input(ctx, inputs, 1);
  const biasT = optInput(ctx, inputs, 2);
  const inner = prod(x.shape.slice(axis));
  const outer = prod(x.shape.slice(0, axis));
  const statShape = x.shape.map((d, i) => (i < axis ? d : 1));
  const statType = intAttr(ctx, "stash_type") === 1 ? DataType.FLOAT : x.dtype;
  const means = scratch(Float64Array, outer);
  const invs = scratch(Float64Array, outer);
  const y32 = layerNorm32(x, scaleT, biasT, axis, eps, means, invs);
  if (y32)
    return [y32, fromFloat64(statType, statShape, means), fromFloat64(statType, statShape, invs)];
  const v = toFloat64(x);
  for (let o = 0; o < outer; o++) {
    const [mean, inv] = moments(v, o * inner, inner, eps);
    means[o] = mean;
    invs[o] = inv;
    for (let i = 0; i < inner; i++) {
      const p = o * inner + i;
      v[p] = (v[p]! - mean) * inv;
    }
  }
  // Y = Normalized * Scale + B with ordinary multidirectional broadcasting, as the function body
  // computes it: a Scale or B of higher rank than the normalised axes (even than X) is allowed.
  const shapes = [x.shape, scaleT.shape, ...(biasT ? [biasT.shape] : [])];
  const outShape = broadcastShapes(ctx, shapes);
  checkedCount(ctx, outShape);
  const s = toFloat64(scaleT);
  const b = biasT ? toFloat64(biasT) : undefined;
  const y = scratch(Float64Array, prod(outShape));
  if (y.length === v.length && perInner(x, axis, scaleT, biasT)) {
    for (let o = 0, p = 0; o < outer; o++)
      for (let i = 0; i < inner; i++, p++) y[p] = v[p]! * s[i]! + (b ? b[i]! : 0);
  } else {
    const xIdx = broadcastAlong(x.shape, outShape);
    const sIdx = broadcastAlong(scaleT.shape, outShape);
    const bIdx = biasT ? broadcastAlong(biasT.shape, outShape) : undefined;
    for (let p = 0; p < y.length; p++) y[p] = v[xIdx(p)]! * s[sIdx(p)]! + (b ? b[bIdx!(p)]! : 0);
  }
  return [
    fromFloat64(x.dtype, outShape, y),
    fromFloat64(statType, statShape, means),
    fromFloat64(statType, statShape, invs),
  ];
};

/**
 * The usual case: Scale and B hold one value per normalised element (and broadcast no further,
 * nor make the output larger than X).
 */
function perInner(x: RTensor, axis: number, scale: RTensor, bias: RTensor | undefined): boolean {
  const lead = (sh: readonly number[]) => sh.slice(sh.findIndex((d) => d !== 1) >>> 0);
  const tail = lead(x.shape.slice(axis)).join(",");
  const ok = (t: RTensor | undefined) =>
    !t || (lead(t.shape).join(",") === tail && t.shape.length <= x.shape.length);
  return ok(scale) && ok(bias) && scale.data.length === prod(x.shape.slice(axis));
}

/**
 * LayerNormalization of float32 X with float32 Scale and B in the usual case, straight from and
 * into float32 storage: the same float64 operations in the same order as the general path
 * (moments, (x − mean)·inv, then ·scale + bias, rounded once), without its float64 copies.
 * Fills means and invs; undefined when the case does not apply.
 */
function layerNorm32(
  x: RTensor,
  scaleT: RTensor,
  biasT: RTensor | undefined,
  axis: number,
  eps: number,
  means: Float64Array,
  invs: Float64Array,
): RTensor | undefined {
  const f32 = (t: RTensor | undefined) => !t || t.dtype === DataType.FLOAT;
  if (!f32(x) || !f32(scaleT) || !f32(biasT) || !perInner(x, axis, scaleT, biasT)) return undefined;
  const inner = prod(x.shape.slice(axis));
  const xv = x.data as Float32Array;
  const s = scaleT.data as Float32Array;
  const b = biasT?.data as Float32Array | undefined;
  const y = allocStorage(DataType.FLOAT, xv.length) as Float32Array;
  for (let o = 0, p = 0; o < means.length; o++) {
    const [mean, inv] = moments(xv, p, inner, eps);
    means[o] = mean;
    invs[o] = inv;
    if (b) for (let i = 0; i < inner; i++, p++) y[p] = (xv[p]! - mean) * inv * s[i]! + b[i]!;
    else for (let i = 0; i < inner; i++, p++) y[p] = (xv[p]! - mean) * inv * s[i]! + 0;
  }
  return { dtype: DataType.FLOAT, shape: [...x.shape], data: y };
}

/** Maps a flat index of `target` to the flat index of a tensor of `shape` broadcast onto it. */
function broadcastAlong(
  shape: readonly number[],
  target: readonly number[],
): (i: number) => number {
  if (shape.length === target.length && shape.every((d, i) => d === target[i])) return (i) => i;
  const st = strides(target);
  const ss = strides(shape);
  const off = target.length - shape.length;
  return (flat) => {
    let idx = 0;
    for (let k = 0; k < target.length; k++) {
      const c = Math.floor(flat / st[k]!) % target[k]!;
      const j = k - off;
      if (j >= 0 && shape[j] !== 1) idx += c * ss[j]!;
    }
    return idx;
  };
}

const MeanVarianceNormalization: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const axes = intsAttr(ctx, "axes").map((a) => normAxis(ctx, a, x.shape.length));
  const v = toFloat64(x);
  const st = strides(x.shape);
  const groupOf = (p: number) => {
    let g = 0;
    for (let k = 0; k < x.shape.length; k++)
      if (!axes.includes(k)) g = g * x.shape[k]! + (Math.floor(p / st[k]!) % x.shape[k]!);
    return g;
  };
  const groups = prod(x.shape.filter((_, k) => !axes.includes(k)));
  const count = v.length / Math.max(groups, 1);
  const mean = scratch(Float64Array, groups);
  const sq = scratch(Float64Array, groups);
  for (let p = 0; p < v.length; p++) {
    const g = groupOf(p);
    mean[g]! += v[p]!;
    sq[g]! += v[p]! * v[p]!;
  }
  for (let p = 0; p < v.length; p++) {
    const g = groupOf(p);
    const m = mean[g]! / count;
    const variance = sq[g]! / count - m * m;
    v[p] = (v[p]! - m) / (Math.sqrt(Math.max(variance, 0)) + 1e-9);
  }
  return [fromFloat64(x.dtype, [...x.shape], v)];
};

const LRN: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const size = intAttr(ctx, "size");
  const alpha = floatAttr(ctx, "alpha");
  const beta = floatAttr(ctx, "beta");
  const bias = floatAttr(ctx, "bias");
  const c = x.shape[1]!;
  const inner = prod(x.shape.slice(2));
  const v = toFloat64(x);
  const out = scratch(Float64Array, v.length);
  const lo = Math.floor((size - 1) / 2);
  const hi = Math.ceil((size - 1) / 2);
  for (let p = 0; p < v.length; p++) {
    const ch = Math.floor(p / inner) % c;
    let s = 0;
    for (let k = Math.max(0, ch - lo); k <= Math.min(c - 1, ch + hi); k++) {
      const e = v[p + (k - ch) * inner]!;
      s += e * e;
    }
    out[p] = v[p]! / Math.pow(bias + (alpha / size) * s, beta);
  }
  return [fromFloat64(x.dtype, [...x.shape], out)];
};

export const normalizationKernels: Record<string, Kernel> = {
  BatchNormalization,
  InstanceNormalization,
  LayerNormalization,
  MeanVarianceNormalization,
  LRN,
  GroupNormalization,
  RMSNormalization,
};
