// Resize / Upsample (nearest, linear, cubic; every coordinate transformation mode up to
// version 18 without antialiasing) and ConvTranspose.
//
// Resizing is separable: each axis is resampled in turn from a table of (source index, weight)
// pairs per output index, so linear and cubic cost O(taps) per element and axis.

import { attrInts } from "../../ir/attributes.js";
import { DataType } from "../../ir/types.js";
import {
  allocStorage,
  fromFloat64,
  fromProductSums,
  isFloatType,
  toFloat64,
  scratch,
} from "../tensor.js";
import type { Kernel, KernelContext, RTensor } from "../types.js";
import { checkedCount, fail, input, intValues, optInput, strides } from "./util.js";
import { hasInput, inputIndex } from "../../schema/facts.js";
import { opVersion } from "./version.js";
import { floatAttr, intAttr, stringAttr } from "./attrs.js";
import { gemmFor, product, srcOf } from "./gemm-ops.js";
import {
  f32At,
  f64At,
  gemmArena,
  gemmEnabled,
  scratchAlloc,
  scratchRelease,
  type Src,
} from "./wasm/gemm.js";

const prod = (xs: readonly number[]) => xs.reduce((p, d) => p * d, 1);

interface AxisPlan {
  /** taps per output index */
  taps: number;
  index: Int32Array;
  weight: Float64Array;
  /** output indices whose source lies outside the input (tf_crop_and_resize): extrapolation */
  outside: Uint8Array;
}

interface ResizeOptions {
  mode: string;
  coord: string;
  nearest: string;
  cubicA: number;
  excludeOutside: boolean;
}

function sourceCoord(
  o: ResizeOptions,
  x: number,
  scale: number,
  outLen: number,
  inLen: number,
  roiStart: number,
  roiEnd: number,
): number {
  switch (o.coord) {
    case "half_pixel":
      return (x + 0.5) / scale - 0.5;
    case "half_pixel_symmetric": {
      const adj = (inLen * scale) / outLen;
      const center = inLen / 2;
      const offset = center * (1 - adj);
      return offset + (x + 0.5) / scale - 0.5;
    }
    case "pytorch_half_pixel":
      return outLen > 1 ? (x + 0.5) / scale - 0.5 : 0;
    case "align_corners":
      return outLen === 1 ? 0 : (x * (inLen - 1)) / (outLen - 1);
    case "asymmetric":
      return x / scale;
    case "tf_half_pixel_for_nn":
      return (x + 0.5) / scale;
    case "tf_crop_and_resize":
      return outLen > 1
        ? roiStart * (inLen - 1) + (x * (roiEnd - roiStart) * (inLen - 1)) / (outLen - 1)
        : 0.5 * (roiStart + roiEnd) * (inLen - 1);
  }
  return NaN;
}

function nearestIndex(mode: string, x: number): number {
  switch (mode) {
    case "floor":
      return Math.floor(x);
    case "ceil":
      return Math.ceil(x);
    case "round_prefer_ceil":
      return Math.floor(x + 0.5);
    default: // round_prefer_floor
      return x === Math.floor(x) + 0.5 ? Math.floor(x) : Math.round(x);
  }
}

function cubicWeights(t: number, a: number): number[] {
  const w = (d: number) => {
    const ad = Math.abs(d);
    if (ad <= 1) return ((a + 2) * ad - (a + 3)) * ad * ad + 1;
    if (ad < 2) return ((a * ad - 5 * a) * ad + 8 * a) * ad - 4 * a;
    return 0;
  };
  return [w(t + 1), w(t), w(1 - t), w(2 - t)];
}

function planAxis(
  o: ResizeOptions,
  inLen: number,
  outLen: number,
  scale: number,
  roiStart: number,
  roiEnd: number,
): AxisPlan {
  const taps = o.mode === "nearest" ? 1 : o.mode === "linear" ? 2 : 4;
  const index = scratch(Int32Array, outLen * taps);
  const weight = scratch(Float64Array, outLen * taps);
  const outside = scratch(Uint8Array, outLen);
  const clamp = (i: number) => Math.min(Math.max(i, 0), inLen - 1);
  for (let x = 0; x < outLen; x++) {
    // The reference uses the unrounded resized length (input length × scale) in the formulas.
    const src = sourceCoord(o, x, scale, inLen * scale, inLen, roiStart, roiEnd);
    if (o.coord === "tf_crop_and_resize" && (src < 0 || src > inLen - 1)) outside[x] = 1;
    if (o.mode === "nearest") {
      index[x] = clamp(nearestIndex(o.nearest, src));
      weight[x] = 1;
    } else if (o.mode === "linear") {
      const c = Math.min(Math.max(src, 0), inLen - 1);
      const i0 = Math.floor(c);
      const t = c - i0;
      index[2 * x] = clamp(i0);
      index[2 * x + 1] = clamp(i0 + 1);
      weight[2 * x] = 1 - t;
      weight[2 * x + 1] = t;
    } else {
      const i0 = Math.floor(src);
      const ws = cubicWeights(src - i0, o.cubicA);
      let sum = 0;
      for (let k = 0; k < 4; k++) {
        const i = i0 - 1 + k;
        const inside = i >= 0 && i < inLen;
        const wk = o.excludeOutside && !inside ? 0 : ws[k]!;
        index[4 * x + k] = clamp(i);
        weight[4 * x + k] = wk;
        sum += wk;
      }
      if (o.excludeOutside && sum !== 0) for (let k = 0; k < 4; k++) weight[4 * x + k]! /= sum;
    }
  }
  return { taps, index, weight, outside };
}

/** Resamples one axis of `v` (shape `shape`) to length outLen. */
function resampleAxis(
  v: Float64Array,
  shape: number[],
  axis: number,
  outLen: number,
  plan: AxisPlan,
  extrapolation: number,
): Float64Array {
  const outer = prod(shape.slice(0, axis));
  const inLen = shape[axis]!;
  const inner = prod(shape.slice(axis + 1));
  const out = scratch(Float64Array, outer * outLen * inner);
  const { taps, index, weight, outside } = plan;
  if (inner === 1) {
    // The last axis: one output at a time, its taps summed into a local in the same order.
    for (let a = 0; a < outer; a++) {
      const base = a * inLen;
      for (let x = 0, dst = a * outLen; x < outLen; x++, dst++) {
        if (outside[x]) {
          out[dst] = extrapolation;
          continue;
        }
        let s = 0;
        for (let k = x * taps, end = k + taps; k < end; k++) {
          const w = weight[k]!;
          if (w !== 0) s += w * v[base + index[k]!]!;
        }
        out[dst] = s;
      }
    }
    return out;
  }
  for (let a = 0; a < outer; a++)
    for (let x = 0; x < outLen; x++) {
      const dst = (a * outLen + x) * inner;
      if (outside[x]) {
        out.fill(extrapolation, dst, dst + inner);
        continue;
      }
      for (let k = 0; k < taps; k++) {
        const w = weight[x * taps + k]!;
        if (w === 0) continue;
        const src = (a * inLen + index[x * taps + k]!) * inner;
        for (let j = 0; j < inner; j++) out[dst + j]! += w * v[src + j]!;
      }
    }
  return out;
}

function resize(
  ctx: KernelContext,
  x: RTensor,
  scales: number[] | undefined,
  sizes: number[] | undefined,
  roi: number[] | undefined,
  o: ResizeOptions,
): RTensor {
  const r = x.shape.length;
  let outShape: number[];
  let sc: number[];
  if (sizes && sizes.length) {
    if (sizes.length !== r) fail(ctx, `sizes has ${sizes.length} entries, the input has rank ${r}`);
    outShape = sizes;
    sc = sizes.map((s, i) => s / x.shape[i]!);
  } else if (scales && scales.length) {
    if (scales.length !== r)
      fail(ctx, `scales has ${scales.length} entries, the input has rank ${r}`);
    if (scales.some((s) => !(s > 0))) fail(ctx, `scales [${scales.join(",")}] must be positive`);
    sc = scales;
    outShape = x.shape.map((d, i) => Math.floor(d * scales[i]!));
  } else return fail(ctx, "one of scales and sizes is required");
  checkedCount(ctx, outShape);
  if (!isFloatType(x.dtype) && o.mode !== "nearest")
    fail(ctx, `${o.mode} resizing needs floating-point input`);
  const extrapolation = floatAttr(ctx, "extrapolation_value", { without: 0 });
  if (x.dtype === DataType.FLOAT && o.mode === "nearest" && o.coord !== "tf_crop_and_resize")
    return nearest32(x, outShape, sc, roi, o);
  const kept = (axis: number) => x.shape[axis] === outShape[axis] && sc[axis] === 1;
  if (
    x.dtype === DataType.FLOAT &&
    r >= 2 &&
    o.coord !== "tf_crop_and_resize" &&
    x.shape.slice(0, -2).every((_, axis) => kept(axis)) &&
    gemmEnabled()
  ) {
    const plans = [r - 2, r - 1].map((axis) =>
      kept(axis) ? undefined : planAxis(o, x.shape[axis]!, outShape[axis]!, sc[axis]!, 0, 1),
    );
    return resize2d(x, outShape, plans[0], plans[1]);
  }
  let v = toFloat64(x);
  let shape = [...x.shape];
  for (let axis = 0; axis < r; axis++) {
    const inLen = shape[axis]!;
    const outLen = outShape[axis]!;
    const roiStart = roi && roi.length === 2 * r ? roi[axis]! : 0;
    const roiEnd = roi && roi.length === 2 * r ? roi[axis + r]! : 1;
    if (inLen === outLen && sc[axis] === 1 && o.coord !== "tf_crop_and_resize") continue;
    const plan = planAxis(o, inLen, outLen, sc[axis]!, roiStart, roiEnd);
    v = resampleAxis(v, shape, axis, outLen, plan, extrapolation);
    shape = [...shape];
    shape[axis] = outLen;
  }
  return fromFloat64(x.dtype, outShape, v);
}

/**
 * Resizing of float32 over its last two axes (the others kept) on WebAssembly (ewmem.wat's rszh
 * and rszw), plane by plane: the same float64 operations as resampleAxis, in the same order
 * (the second-last axis first, its float64 results kept for the last), rounded to float32 once.
 * An axis without a plan is kept (skipped, as the general path skips it).
 */
function resize2d(
  x: RTensor,
  outShape: number[],
  ph: AxisPlan | undefined,
  pw: AxisPlan | undefined,
): RTensor {
  const r = x.shape.length;
  const [H, W] = [x.shape[r - 2]!, x.shape[r - 1]!];
  const [OH, OW] = [outShape[r - 2]!, outShape[r - 1]!];
  const planes = prod(x.shape.slice(0, -2));
  const src = x.data as Float32Array;
  const out = allocStorage(DataType.FLOAT, planes * OH * OW) as Float32Array;
  const ar = gemmArena()!;
  try {
    const table = (p: AxisPlan | undefined, len: number): [number, number] => {
      if (!p) return [0, 0];
      const idx = scratchAlloc(ar, len * p.taps * 4, "resize indices");
      const wts = scratchAlloc(ar, len * p.taps * 8, "resize weights");
      new Int32Array(ar.memory.buffer, idx, len * p.taps).set(p.index);
      f64At(ar, wts, len * p.taps).set(p.weight);
      return [idx, wts];
    };
    const [ih, wh] = table(ph, OH);
    const [iw, ww] = table(pw, OW);
    const inAt = scratchAlloc(ar, H * W * 4 + 16, "a plane");
    const midAt = scratchAlloc(ar, OH * W * 8 + 16, "a resized plane");
    const outAt = scratchAlloc(ar, OH * OW * 4, "a resized plane");
    for (let p = 0; p < planes; p++) {
      const plane = src.subarray(p * H * W, (p + 1) * H * W);
      if (ph) {
        f32At(ar, inAt, H * W).set(plane);
        ar.ex.rszh!(inAt, W, OH, ph.taps, ih, wh, midAt);
      } else f64At(ar, midAt, H * W).set(plane);
      if (pw) {
        ar.ex.rszw!(midAt, OH, W, OW, pw.taps, iw, ww, outAt);
        out.set(f32At(ar, outAt, OH * OW), p * OH * OW);
      } else out.set(f64At(ar, midAt, OH * W), p * OH * OW);
    }
  } finally {
    scratchRelease(ar);
  }
  return { dtype: DataType.FLOAT, shape: outShape, data: out };
}

/**
 * Nearest resizing of float32, as one gather from the input: each resampled axis of the general
 * path stores 0 + 1·v (v, with −0 made +0), so an output is its source value + 0 when any axis is
 * resampled, the value itself when none is.
 */
function nearest32(
  x: RTensor,
  outShape: number[],
  sc: number[],
  roi: number[] | undefined,
  o: ResizeOptions,
): RTensor {
  const r = x.shape.length;
  const inStr = strides(x.shape);
  let touched = false;
  // Per axis: the input offset (index · stride) of each output coordinate.
  const offs = x.shape.map((inLen, axis) => {
    const outLen = outShape[axis]!;
    const a = scratch(Int32Array, outLen);
    if (inLen === outLen && sc[axis] === 1) {
      for (let i = 0; i < outLen; i++) a[i] = i * inStr[axis]!;
      return a;
    }
    touched = true;
    const roiStart = roi && roi.length === 2 * r ? roi[axis]! : 0;
    const roiEnd = roi && roi.length === 2 * r ? roi[axis + r]! : 1;
    const plan = planAxis(o, inLen, outLen, sc[axis]!, roiStart, roiEnd);
    for (let i = 0; i < outLen; i++) a[i] = plan.index[i]! * inStr[axis]!;
    return a;
  });
  const src = x.data as Float32Array;
  const out = allocStorage(DataType.FLOAT, prod(outShape)) as Float32Array;
  const z = touched ? 0 : -0; // v + -0 is v, also for −0
  const last = offs[r - 1] ?? new Int32Array(1);
  const c = new Array<number>(Math.max(r - 1, 0)).fill(0);
  for (let dst = 0; dst < out.length;) {
    let base = 0;
    for (let i = 0; i < r - 1; i++) base += offs[i]![c[i]!]!;
    for (let j = 0; j < last.length; j++) out[dst++] = src[base + last[j]!]! + z;
    for (let i = r - 2; i >= 0 && ++c[i]! === outShape[i]!; i--) c[i] = 0;
  }
  return { dtype: DataType.FLOAT, shape: outShape, data: out };
}

function floatsOf(t: RTensor | undefined): number[] | undefined {
  return t ? Array.from(toFloat64(t)) : undefined;
}

const Resize: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  if (intAttr(ctx, "antialias", { without: 0 }) !== 0)
    fail(ctx, "antialiased resizing is not supported");
  if (attrInts(ctx.node, "axes")) fail(ctx, "the axes attribute of Resize is not supported");
  const policy = stringAttr(ctx, "keep_aspect_ratio_policy", { without: "stretch" });
  if (policy !== "stretch") fail(ctx, `keep_aspect_ratio_policy '${policy}' is not supported`);
  const mode = stringAttr(ctx, "mode");
  if (!["nearest", "linear", "cubic"].includes(mode)) fail(ctx, `mode '${mode}' is not supported`);
  const v = opVersion(ctx);
  if (!hasInput(v, "sizes")) {
    // Resize-10: scales only, asymmetric coordinates, nearest rounds down.
    const scales = floatsOf(input(ctx, inputs, inputIndex(v, "scales")));
    return [
      resize(ctx, x, scales, undefined, undefined, {
        mode,
        coord: "asymmetric",
        nearest: "floor",
        cubicA: -0.75,
        excludeOutside: false,
      }),
    ];
  }
  const roi = floatsOf(optInput(ctx, inputs, 1));
  const scales = floatsOf(optInput(ctx, inputs, 2));
  const sizesT = optInput(ctx, inputs, 3);
  const sizes = sizesT ? intValues(ctx, sizesT, "sizes") : undefined;
  const o: ResizeOptions = {
    mode,
    coord: stringAttr(ctx, "coordinate_transformation_mode", { without: "half_pixel" }),
    nearest: stringAttr(ctx, "nearest_mode", { without: "round_prefer_floor" }),
    cubicA: floatAttr(ctx, "cubic_coeff_a", { without: -0.75 }),
    excludeOutside: intAttr(ctx, "exclude_outside", { without: 0 }) !== 0,
  };
  return [resize(ctx, x, scales, sizes, roi, o)];
};

const Upsample: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const mode = stringAttr(ctx, "mode");
  const v = opVersion(ctx);
  const scales = hasInput(v, "scales")
    ? floatsOf(input(ctx, inputs, inputIndex(v, "scales")))
    : (attrInts(ctx.node, "scales") ?? undefined);
  const fromAttr = ctx.node.attributes.find((a) => a.name === "scales");
  const sc = scales ?? (fromAttr && fromAttr.type === "FLOATS" ? fromAttr.value : undefined);
  const m = mode === "bilinear" ? "linear" : mode;
  return [
    resize(ctx, x, sc, undefined, undefined, {
      mode: m,
      coord: "asymmetric",
      nearest: "floor",
      cubicA: -0.75,
      excludeOutside: false,
    }),
  ];
};

// ---------------------------------------------------------------------------------------------

const ConvTranspose: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const wT = input(ctx, inputs, 1);
  const bT = optInput(ctx, inputs, 2);
  if (!isFloatType(x.dtype)) fail(ctx, "input must be floating point");
  if (x.shape.length < 3) fail(ctx, "input must have rank at least 3 (N, C, spatial...)");
  const [n, c] = x.shape as [number, number];
  const inSp = x.shape.slice(2);
  const k = inSp.length;
  const group = intAttr(ctx, "group");
  if (wT.shape[0] !== c) fail(ctx, `weights have ${wT.shape[0]} input channels, the input ${c}`);
  const mg = wT.shape[1]!;
  const m = mg * group;
  const cg = c / group;
  const kernel = attrInts(ctx.node, "kernel_shape") ?? wT.shape.slice(2);
  const st = attrInts(ctx.node, "strides") ?? new Array<number>(k).fill(1);
  const dil = attrInts(ctx.node, "dilations") ?? new Array<number>(k).fill(1);
  const outPad = attrInts(ctx.node, "output_padding") ?? new Array<number>(k).fill(0);
  const outShapeAttr = attrInts(ctx.node, "output_shape");
  const autoPad = stringAttr(ctx, "auto_pad");
  let pads = attrInts(ctx.node, "pads") ?? new Array<number>(2 * k).fill(0);
  let outSp: number[];
  const full = (i: number) => st[i]! * (inSp[i]! - 1) + outPad[i]! + (kernel[i]! - 1) * dil[i]! + 1;
  if (outShapeAttr || autoPad === "SAME_UPPER" || autoPad === "SAME_LOWER") {
    const target = outShapeAttr ? outShapeAttr.slice(-k) : inSp.map((d, i) => d * st[i]!);
    pads = new Array<number>(2 * k).fill(0);
    for (let i = 0; i < k; i++) {
      const total = Math.max(0, full(i) - target[i]!);
      const half = Math.floor(total / 2);
      if (autoPad === "SAME_UPPER") {
        pads[i] = half;
        pads[i + k] = total - half;
      } else {
        pads[i] = total - half;
        pads[i + k] = half;
      }
    }
    outSp = target;
  } else {
    if (autoPad === "VALID") pads = new Array<number>(2 * k).fill(0);
    outSp = inSp.map((_, i) => full(i) - pads[i]! - pads[i + k]!);
  }
  const outShape = [n, m, ...outSp];
  checkedCount(ctx, outShape);
  const inSize = prod(inSp);
  const outSize = prod(outSp);
  const nK = prod(kernel);
  const oStr = strides(outSp);
  // For each (input position, kernel position): the output offset it adds to, or -1. Per axis
  // first (axisOff[i][ic·kernel[i] + kc]), then summed over the axes of each pair.
  const axisOff = inSp.map((d, i) => {
    const a = scratch(Int32Array, d * kernel[i]!);
    for (let ic = 0; ic < d; ic++)
      for (let kc = 0; kc < kernel[i]!; kc++) {
        const pos = ic * st[i]! - pads[i]! + kc * dil[i]!;
        a[ic * kernel[i]! + kc] = pos < 0 || pos >= outSp[i]! ? -1 : pos * oStr[i]!;
      }
    return a;
  });
  const table = scratch(Int32Array, inSize * nK);
  const ic = new Array<number>(k).fill(0);
  const kc = new Array<number>(k).fill(0);
  const step = (c: number[], dims: readonly number[]) => {
    for (let i = k - 1; i >= 0 && ++c[i]! === dims[i]!; i--) c[i] = 0;
  };
  for (let p = 0, t = 0; p < inSize; p++, step(ic, inSp)) {
    kc.fill(0);
    for (let q = 0; q < nK; q++, t++, step(kc, kernel)) {
      let off = 0;
      for (let i = 0; i < k; i++) {
        const a = axisOff[i]![ic[i]! * kernel[i]! + kc[i]!]!;
        if (a < 0) {
          off = -1;
          break;
        }
        off += a;
      }
      table[t] = off;
    }
  }
  const ar = group === 1 && disjointTaps(kernel, st, dil) ? gemmFor(x, wT, bT) : undefined;
  const ws = ar && srcOf(wT);
  if (ar && ws && allFinite(ws)) {
    // Each output receives at most one tap: the loop below gives it (0 + Σ) + bias, rounded
    // once, and an output without a tap 0 + bias. Filled with the bias, then each tap's sum
    // (float16 and bfloat16: in float64, rounded once at the end).
    const half = ws.half !== 0;
    const out = half
      ? scratch(Float64Array, prod(outShape))
      : (allocStorage(DataType.FLOAT, prod(outShape)) as Float32Array);
    const bv = bT && toFloat64(bT);
    if (bv)
      for (let i = 0; i < n * m; i++) out.fill(bv[i % m]! + 0, i * outSize, (i + 1) * outSize);
    for (let b = 0; b < n; b++) {
      // Per input position p, the products over input channels for every (oc, q): the same sums,
      // in the same channel order, as the loop below (no tap of another position shares an output).
      const N = mg * nK;
      product(ar, srcOf(x), b * c * inSize, 1, inSize, ws, 0, N, 1, inSize, N, c, (res) => {
        for (let oc = 0; oc < mg; oc++) {
          const oBase = (b * m + oc) * outSize;
          const bias = bv ? bv[oc]! : 0;
          for (let p = 0; p < inSize; p++) {
            const r = p * N + oc * nK;
            for (let q = 0; q < nK; q++) {
              const off = table[p * nK + q]!;
              if (off >= 0) out[oBase + off] = res[r + q]! + bias;
            }
          }
        }
      });
    }
    if (out instanceof Float64Array) return [fromProductSums(x.dtype, outShape, out)];
    return [{ dtype: DataType.FLOAT, shape: outShape, data: out }];
  }
  const out = scratch(Float64Array, prod(outShape));
  {
    const xv = toFloat64(x);
    const wv = toFloat64(wT);
    for (let b = 0; b < n; b++)
      for (let ci = 0; ci < c; ci++) {
        const g = Math.floor(ci / cg);
        const xBase = (b * c + ci) * inSize;
        for (let oc = 0; oc < mg; oc++) {
          const wBase = (ci * mg + oc) * nK;
          const oBase = (b * m + g * mg + oc) * outSize;
          for (let p = 0; p < inSize; p++) {
            const xvv = xv[xBase + p]!;
            if (xvv === 0) continue;
            for (let q = 0; q < nK; q++) {
              const off = table[p * nK + q]!;
              if (off >= 0) out[oBase + off]! += xvv * wv[wBase + q]!;
            }
          }
        }
      }
  }
  if (bT) {
    const bv = toFloat64(bT);
    for (let b = 0; b < n; b++)
      for (let oc = 0; oc < m; oc++)
        for (let p = 0; p < outSize; p++) out[(b * m + oc) * outSize + p]! += bv[oc]!;
  }
  return [fromProductSums(x.dtype, outShape, out)];
};

/** Whether no two taps of one input position, nor of two positions, reach one output. */
function disjointTaps(kernel: number[], st: number[], dil: number[]): boolean {
  return kernel.every((kd, i) => dil[i] === 1 && kd <= st[i]!);
}

/**
 * Whether every weight is finite: the loop skips zero inputs, the product does not, and 0 · ±Inf
 * or 0 · NaN would add a NaN that the loop never sees.
 */
function allFinite(w: Src): boolean {
  const d = w.data;
  if (w.half === 0) {
    for (let i = 0; i < d.length; i++) if (!Number.isFinite(d[i]!)) return false;
    return true;
  }
  // float16: exponent bits 0x7c00 all set; bfloat16: 0x7f80.
  const e = w.half === 1 ? 0x7c00 : 0x7f80;
  for (let i = 0; i < d.length; i++) if ((d[i]! & e) === e) return false;
  return true;
}

export const resampleKernels: Record<string, Kernel> = { Resize, Upsample, ConvTranspose };
