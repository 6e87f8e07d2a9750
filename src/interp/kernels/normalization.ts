// Normalisations that the spec defines as functions: GroupNormalization-18/21 and
// RMSNormalization-23. Statistics and the normalised values are computed in float64 whatever
// `stash_type` asks (it only sets a lower bound on the precision of stage one) and every output
// is rounded once to its element type.

import { attrInt } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { hasAttribute, scaleIsPerChannel } from "../../schema/facts.js";
import { fromFloat64, toFloat64 } from "../tensor.js";
import type { Kernel, KernelContext } from "../types.js";
import { broadcastIndex, broadcastShapes, fail, floatInput, normAxis } from "./util.js";
import { opVersion } from "./version.js";
import { floatAttr, intAttr } from "./attrs.js";

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

export const normalizationKernels: Record<string, Kernel> = {
  GroupNormalization,
  RMSNormalization,
};
