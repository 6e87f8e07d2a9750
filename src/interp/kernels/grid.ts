// Geometry ops that the spec defines as functions: AffineGrid-20 (a sampling grid from affine
// matrices) and CenterCropPad-18 (a centred crop or zero pad of chosen axes).

import { attrInts } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { fromFloat64, toFloat64, scratch } from "../tensor.js";
import type { Kernel } from "../types.js";
import {
  alloc,
  checkedCount,
  fail,
  floatInput,
  input,
  intValues,
  normAxis,
  strides,
} from "./util.js";
import { intAttr } from "./attrs.js";

const shapeText = (s: readonly number[]) => `[${s.join(",")}]`;

/**
 * The normalised coordinate of position i of n along one axis, in [-1, 1]: the centres of the
 * corner pixels with align_corners = 1 (a single position sits at -1), their outer edges with
 * align_corners = 0 (a single position sits at 0).
 */
function coordinate(i: number, n: number, alignCorners: boolean): number {
  if (alignCorners) return n === 1 ? -1 : -1 + (2 * i) / (n - 1);
  return -1 + (2 * i + 1) / n;
}

/**
 * AffineGrid: theta (N, 2, 3) with size (N, C, H, W) gives grid (N, H, W, 2) with
 * grid[n, h, w] = theta[n] · (x_w, y_h, 1); theta (N, 3, 4) with size (N, C, D, H, W) gives
 * (N, D, H, W, 3) with theta[n] · (x_w, y_h, z_d, 1). N comes from theta.
 */
const AffineGrid: Kernel = (ctx, inputs) => {
  const theta = floatInput(ctx, inputs, 0, "theta");
  const sizeT = input(ctx, inputs, 1);
  if (sizeT.dtype !== DataType.INT64)
    fail(ctx, `size must be an int64 tensor, got ${dtypeName(sizeT.dtype)}`);
  const size = intValues(ctx, sizeT, "size");
  const align = intAttr(ctx, "align_corners") !== 0;
  if (sizeT.shape.length !== 1 || (size.length !== 4 && size.length !== 5))
    fail(
      ctx,
      `size must be (N, C, H, W) or (N, C, D, H, W), got ${size.length} values of shape ${shapeText(sizeT.shape)}`,
    );
  const dims = size.length - 2; // 2 or 3 spatial dimensions
  const n = theta.shape[0]!;
  if (theta.shape.length !== 3 || theta.shape[1] !== dims || theta.shape[2] !== dims + 1)
    fail(
      ctx,
      `theta must have shape [N,${dims},${dims + 1}] for a ${dims}-D size, got ${shapeText(theta.shape)}`,
    );
  const spatial = size.slice(2);
  if (spatial.some((d) => d < 0)) fail(ctx, `size ${shapeText(size)} has a negative dimension`);
  const outShape = [n, ...spatial, dims];
  checkedCount(ctx, outShape);
  const th = toFloat64(theta);
  const count = spatial.reduce((p, d) => p * d, 1);
  const out = scratch(Float64Array, n * count * dims);
  // Spatial coordinates in the order (x, y[, z]): x runs along the last axis.
  const axes = spatial.map((len) =>
    Float64Array.from({ length: len }, (_, i) => coordinate(i, len, align)),
  );
  const st = strides(spatial);
  const homo = scratch(Float64Array, dims + 1);
  homo[dims] = 1;
  for (let b = 0; b < n; b++)
    for (let p = 0; p < count; p++) {
      for (let k = 0; k < dims; k++) {
        const axis = dims - 1 - k; // x from the last spatial axis, then y, then z
        homo[k] = axes[axis]![Math.floor(p / st[axis]!) % spatial[axis]!]!;
      }
      for (let r = 0; r < dims; r++) {
        let acc = 0;
        for (let c = 0; c <= dims; c++) acc += th[(b * dims + r) * (dims + 1) + c]! * homo[c]!;
        out[(b * count + p) * dims + r] = acc;
      }
    }
  return [fromFloat64(theta.dtype, outShape, out)];
};

/**
 * CenterCropPad: along each chosen axis, a longer input is cropped to a window starting at
 * floor((dim − target) / 2), a shorter one is placed at floor((target − dim) / 2) in zeros (the
 * odd pixel of padding goes to the end). Every element type is accepted; the pad value is 0,
 * false or "".
 */
const CenterCropPad: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const shapeT = input(ctx, inputs, 1);
  if (shapeT.dtype !== DataType.INT64 && shapeT.dtype !== DataType.INT32)
    fail(ctx, `shape must be an int32 or int64 tensor, got ${dtypeName(shapeT.dtype)}`);
  if (shapeT.shape.length !== 1)
    fail(ctx, `shape must be 1-D, got shape ${shapeText(shapeT.shape)}`);
  const target = intValues(ctx, shapeT, "shape");
  const r = x.shape.length;
  const given = attrInts(ctx.node, "axes");
  const axes = given
    ? given.map((a) => normAxis(ctx, a, r, "axes entry"))
    : Array.from({ length: r }, (_, i) => i);
  if (new Set(axes).size !== axes.length) fail(ctx, `axes [${given!.join(",")}] repeat an axis`);
  if (target.length !== axes.length)
    fail(ctx, `shape has ${target.length} values but there are ${axes.length} axes`);
  const outShape = [...x.shape];
  const inStart = new Array<number>(r).fill(0); // first input index read along each axis
  const outStart = new Array<number>(r).fill(0); // where it lands in the output
  const len = [...x.shape]; // how many are copied along each axis
  axes.forEach((a, k) => {
    const want = target[k]!;
    if (want < 0) fail(ctx, `shape value ${want} for axis ${a} is negative`);
    const dim = x.shape[a]!;
    outShape[a] = want;
    if (want < dim) {
      inStart[a] = Math.floor((dim - want) / 2);
      len[a] = want;
    } else {
      outStart[a] = Math.floor((want - dim) / 2);
      len[a] = dim;
    }
  });
  const out = alloc(ctx, x.dtype, outShape);
  const count = len.reduce((p, d) => p * d, 1);
  if (count === 0) return [out];
  const inSt = strides(x.shape);
  const outSt = strides(outShape);
  const lenSt = strides(len);
  const src = x.data as unknown as unknown[];
  const dst = out.data as unknown as unknown[];
  for (let q = 0; q < count; q++) {
    let i = 0;
    let o = 0;
    for (let a = 0; a < r; a++) {
      const c = Math.floor(q / lenSt[a]!) % len[a]!;
      i += (inStart[a]! + c) * inSt[a]!;
      o += (outStart[a]! + c) * outSt[a]!;
    }
    dst[o] = src[i];
  }
  return [out];
};

export const gridKernels: Record<string, Kernel> = { AffineGrid, CenterCropPad };
