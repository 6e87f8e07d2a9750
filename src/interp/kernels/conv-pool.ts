// Convolution and pooling: Conv, MaxPool, AveragePool, their global forms and MaxUnpool.
// Window geometry (strides, pads, dilations, auto_pad) is worked out once per node; defaults that
// depend on the input's rank (strides, pads, dilations of 1/0 per spatial axis, kernel_shape from
// W) are the kernel's own. Floating-point work is done in float64 and rounded once.

import { attrInts } from "../../ir/attributes.js";
import { DataType } from "../../ir/types.js";
import { fromFloat64, fromProductSums, isHalfType, toFloat64, scratch } from "../tensor.js";
import type { Kernel, KernelContext, RTensor } from "../types.js";
import { intAttr, stringAttr } from "./attrs.js";
import { convDepthwise, convGemm, gemmFor } from "./gemm-ops.js";
import { gemmEnabled } from "./wasm/gemm.js";
import { maxPool2d } from "./pool2d.js";
import {
  alloc,
  checkedCount,
  fail,
  input,
  intValues,
  optInput,
  strides,
  prod,
  requireFloat,
  type AnyStore,
} from "./util.js";

interface Window {
  outSpatial: number[];
  padBegin: number[];
  kernel: number[];
  strides: number[];
  dilations: number[];
}

function windowGeometry(
  ctx: KernelContext,
  inSpatial: number[],
  kernel: number[],
  ceil = false,
): Window {
  const k = inSpatial.length;
  const strides = attrInts(ctx.node, "strides") ?? new Array<number>(k).fill(1);
  const dilations = attrInts(ctx.node, "dilations") ?? new Array<number>(k).fill(1);
  const autoPad = stringAttr(ctx, "auto_pad");
  let pads = attrInts(ctx.node, "pads") ?? new Array<number>(2 * k).fill(0);
  if (
    kernel.length !== k ||
    strides.length !== k ||
    dilations.length !== k ||
    pads.length !== 2 * k
  )
    fail(ctx, `kernel_shape, strides, dilations and pads must match ${k} spatial dimensions`);
  const outSpatial: number[] = [];
  if (autoPad === "SAME_UPPER" || autoPad === "SAME_LOWER") {
    pads = new Array<number>(2 * k).fill(0);
    for (let i = 0; i < k; i++) {
      const out = Math.ceil(inSpatial[i]! / strides[i]!);
      const total = Math.max(
        0,
        (out - 1) * strides[i]! + (kernel[i]! - 1) * dilations[i]! + 1 - inSpatial[i]!,
      );
      const small = Math.floor(total / 2);
      pads[i] = autoPad === "SAME_UPPER" ? small : total - small;
      pads[i + k] = total - pads[i]!;
      outSpatial.push(out);
    }
  } else {
    if (autoPad === "VALID") pads = new Array<number>(2 * k).fill(0);
    else if (autoPad !== "NOTSET") fail(ctx, `auto_pad '${autoPad}' is not supported`);
    for (let i = 0; i < k; i++) {
      const span = inSpatial[i]! + pads[i]! + pads[i + k]! - (kernel[i]! - 1) * dilations[i]! - 1;
      let out = (ceil ? Math.ceil(span / strides[i]!) : Math.floor(span / strides[i]!)) + 1;
      // A window must start inside the input or its leading padding.
      if (ceil && (out - 1) * strides[i]! >= inSpatial[i]! + pads[i]!) out--;
      outSpatial.push(Math.max(0, out));
    }
  }
  return { outSpatial, padBegin: pads.slice(0, k), kernel, strides, dilations };
}

/**
 * For every (output position, kernel position) pair: the flat input spatial offset it reads,
 * or -1 where the window lies in padding.
 */
function windowTable(inSpatial: number[], w: Window): Int32Array {
  const nOut = prod(w.outSpatial);
  const nK = prod(w.kernel);
  const table = scratch(Int32Array, nOut * nK);
  const k = inSpatial.length;
  const inStr = strides(inSpatial);
  const oc = new Array<number>(k).fill(0);
  for (let o = 0; o < nOut; o++) {
    let rem = o;
    for (let i = k - 1; i >= 0; i--) {
      oc[i] = rem % w.outSpatial[i]!;
      rem = Math.floor(rem / w.outSpatial[i]!);
    }
    for (let q = 0; q < nK; q++) {
      let r2 = q;
      let off = 0;
      for (let i = k - 1; i >= 0; i--) {
        const kc = r2 % w.kernel[i]!;
        r2 = Math.floor(r2 / w.kernel[i]!);
        const pos = oc[i]! * w.strides[i]! - w.padBegin[i]! + kc * w.dilations[i]!;
        if (off < 0 || pos < 0 || pos >= inSpatial[i]!) off = -1;
        else off += pos * inStr[i]!;
      }
      table[o * nK + q] = off;
    }
  }
  return table;
}

/** A convolution's geometry, worked out once per node (Conv, ConvInteger, QLinearConv). */
export interface ConvPlan {
  n: number;
  c: number;
  m: number;
  /** Input channels per group, groups, output channels per group. */
  cg: number;
  group: number;
  mg: number;
  inSpatial: number[];
  kernel: number[];
  w: Window;
  /** Output positions, kernel positions, input positions (per image and channel). */
  nOut: number;
  nK: number;
  inSize: number;
  outShape: number[];
  /** 2-D windows: [H, W, KH, KW, sh, sw, dh, dw, ph, pw, OW] (im2col in WebAssembly), OH. */
  win2d?: number[];
  OH?: number;
  /** For each (output position, kernel position): the input offset read, -1 in padding. */
  table: () => Int32Array;
}

/** The geometry of a convolution of x by weights wT (shapes checked; errors name the node). */
export function convPlan(ctx: KernelContext, x: RTensor, wT: RTensor): ConvPlan {
  if (x.shape.length < 3) fail(ctx, "input must have rank at least 3 (N, C, spatial...)");
  const [n, c] = x.shape as [number, number];
  const inSpatial = x.shape.slice(2);
  const [m, cg] = wT.shape as [number, number];
  const kernel = attrInts(ctx.node, "kernel_shape") ?? wT.shape.slice(2);
  const group = intAttr(ctx, "group");
  if (cg * group !== c)
    fail(ctx, `weights expect ${cg * group} input channels, the input has ${c}`);
  if (m % group !== 0) fail(ctx, `output channels ${m} are not divisible by group ${group}`);
  const w = windowGeometry(ctx, inSpatial, kernel);
  const outShape = [n, m, ...w.outSpatial];
  checkedCount(ctx, outShape);
  const win2d =
    inSpatial.length === 2
      ? [...inSpatial, ...kernel, ...w.strides, ...w.dilations, ...w.padBegin, w.outSpatial[1]!]
      : undefined;
  return {
    n,
    c,
    m,
    cg,
    group,
    mg: m / group,
    inSpatial,
    kernel,
    w,
    nOut: prod(w.outSpatial),
    nK: prod(kernel),
    inSize: prod(inSpatial),
    outShape,
    win2d,
    OH: w.outSpatial[0],
    table: () => windowTable(inSpatial, w),
  };
}

const Conv: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const wT = input(ctx, inputs, 1);
  const bT = optInput(ctx, inputs, 2);
  requireFloat(ctx, x);
  const p = convPlan(ctx, x, wT);
  const { n, c, m, cg, group, mg, inSpatial, w, nOut, nK, inSize, outShape } = p;
  if (
    cg === 1 &&
    group === c &&
    inSpatial.length === 2 &&
    gemmEnabled() &&
    x.dtype === DataType.FLOAT &&
    wT.dtype === DataType.FLOAT &&
    (!bT || bT.dtype === DataType.FLOAT)
  )
    return [convDepthwise(x, wT, bT, { n, c, m, inSpatial, ...w }, outShape)];
  const ar = gemmFor(x, wT, bT);
  if (ar) return [convGemm(ar, x, wT, bT, p, outShape)];
  const table = windowTable(inSpatial, w);
  const xv = toFloat64(x);
  const wv = toFloat64(wT);
  const bv = bT ? toFloat64(bT) : undefined;
  const out = scratch(Float64Array, prod(outShape));
  // float16 / bfloat16 sum in float32 (each product and each sum rounded to float32), float32 and
  // float64 in float64.
  const f32 = isHalfType(x.dtype);
  for (let b = 0; b < n; b++)
    for (let oc = 0; oc < m; oc++) {
      const g = Math.floor(oc / mg);
      const base = (b * m + oc) * nOut;
      for (let o = 0; o < nOut; o++) {
        let s = bv ? bv[oc]! : 0;
        for (let ic = 0; ic < cg; ic++) {
          const xBase = (b * c + g * cg + ic) * inSize;
          const wBase = (oc * cg + ic) * nK;
          for (let q = 0; q < nK; q++) {
            const off = table[o * nK + q]!;
            // A padded tap multiplies 0 by its weight: an Inf or NaN weight there gives NaN.
            const p = (off >= 0 ? xv[xBase + off]! : 0) * wv[wBase + q]!;
            s = f32 ? Math.fround(s + Math.fround(p)) : s + p;
          }
        }
        out[base + o] = s;
      }
    }
  return [fromProductSums(x.dtype, outShape, out)];
};

function pool(kind: "max" | "avg"): Kernel {
  return (ctx, inputs) => {
    const x = input(ctx, inputs, 0);
    if (x.shape.length < 3) fail(ctx, "input must have rank at least 3 (N, C, spatial...)");
    const kernel =
      attrInts(ctx.node, "kernel_shape") ?? fail(ctx, "attribute 'kernel_shape' is required");
    const inSpatial = x.shape.slice(2);
    const w = windowGeometry(
      ctx,
      inSpatial,
      kernel,
      intAttr(ctx, "ceil_mode", { without: 0 }) !== 0,
    );
    const wantIndices = kind === "max" && ctx.node.outputs.length > 1 && ctx.node.outputs[1] !== "";
    if (
      kind === "max" &&
      !wantIndices &&
      inSpatial.length === 2 &&
      (x.dtype === DataType.FLOAT || isHalfType(x.dtype)) &&
      gemmEnabled()
    ) {
      const outShape = [x.shape[0]!, x.shape[1]!, ...w.outSpatial];
      checkedCount(ctx, outShape);
      return [maxPool2d(x, { inSpatial, ...w }, outShape)];
    }
    const table = windowTable(inSpatial, w);
    const includePad = intAttr(ctx, "count_include_pad", { without: 0 }) !== 0;
    const nOut = prod(w.outSpatial);
    const nK = prod(kernel);
    const inSize = prod(inSpatial);
    const planes = x.shape[0]! * x.shape[1]!;
    const outShape = [x.shape[0]!, x.shape[1]!, ...w.outSpatial];
    checkedCount(ctx, outShape);
    const xv = toFloat64(x);
    const out = scratch(Float64Array, prod(outShape));
    const columnMajor = intAttr(ctx, "storage_order", { without: 0 }) !== 0;
    const inStr = strides(inSpatial);
    const indices = wantIndices ? scratch(BigInt64Array, out.length) : undefined;
    // With count_include_pad, the divisor counts window positions inside the padded extent.
    const padEnd = (attrInts(ctx.node, "pads") ?? []).slice(inSpatial.length);
    for (let p = 0; p < planes; p++)
      for (let o = 0; o < nOut; o++) {
        let acc = kind === "max" ? -Infinity : 0;
        let count = 0;
        let at = -1;
        for (let q = 0; q < nK; q++) {
          const off = table[o * nK + q]!;
          if (off < 0) continue;
          const v = xv[p * inSize + off]!;
          count++;
          if (kind === "max") {
            // Any NaN in the window gives NaN (the first one's index), whatever its position.
            if (v > acc || at < 0 || (v !== v && acc === acc)) {
              acc = v;
              at = off;
            }
          } else acc += v;
        }
        if (kind === "avg") {
          let divisor = count;
          if (includePad) divisor = paddedCount(o, w, inSpatial, padEnd);
          acc = divisor ? acc / divisor : NaN;
        }
        out[p * nOut + o] = acc;
        if (indices) {
          let idx = at;
          if (columnMajor) {
            // Re-linearise the spatial position with the first spatial axis varying fastest.
            idx = 0;
            let mul = 1;
            for (let i = 0; i < inSpatial.length; i++) {
              idx += (Math.floor(at / inStr[i]!) % inSpatial[i]!) * mul;
              mul *= inSpatial[i]!;
            }
          }
          indices[p * nOut + o] = BigInt(p * inSize + idx);
        }
      }
    const outs: RTensor[] = [fromFloat64(x.dtype, outShape, out)];
    if (indices) outs.push({ dtype: DataType.INT64, shape: outShape, data: indices });
    return outs;
  };
}

/** Window positions of output `o` that fall inside the input plus its explicit padding. */
function paddedCount(o: number, w: Window, inSpatial: number[], padEnd: number[]): number {
  const k = inSpatial.length;
  let rem = o;
  let total = 1;
  for (let i = k - 1; i >= 0; i--) {
    const oc = rem % w.outSpatial[i]!;
    rem = Math.floor(rem / w.outSpatial[i]!);
    let cnt = 0;
    for (let kc = 0; kc < w.kernel[i]!; kc++) {
      const pos = oc * w.strides[i]! - w.padBegin[i]! + kc * w.dilations[i]!;
      if (pos >= -w.padBegin[i]! && pos < inSpatial[i]! + (padEnd[i] ?? 0)) cnt++;
    }
    total *= cnt;
  }
  return total;
}

function globalPool(kind: "max" | "avg"): Kernel {
  return (ctx, inputs) => {
    const x = input(ctx, inputs, 0);
    if (x.shape.length < 2) fail(ctx, "input must have rank at least 2");
    const inner = prod(x.shape.slice(2));
    const planes = x.shape[0]! * x.shape[1]!;
    const v = toFloat64(x);
    const out = scratch(Float64Array, planes);
    for (let p = 0; p < planes; p++) {
      let acc = kind === "max" ? -Infinity : 0;
      for (let i = 0; i < inner; i++) {
        const e = v[p * inner + i]!;
        acc = kind === "max" ? Math.max(acc, e) : acc + e;
      }
      out[p] = kind === "max" ? acc : acc / inner;
    }
    return [
      fromFloat64(x.dtype, [x.shape[0]!, x.shape[1]!, ...x.shape.slice(2).map(() => 1)], out),
    ];
  };
}

const MaxUnpool: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const idx = input(ctx, inputs, 1);
  const shapeT = optInput(ctx, inputs, 2);
  const kernel =
    attrInts(ctx.node, "kernel_shape") ?? fail(ctx, "attribute 'kernel_shape' is required");
  const k = kernel.length;
  const st = attrInts(ctx.node, "strides") ?? new Array<number>(k).fill(1);
  const pads = attrInts(ctx.node, "pads") ?? new Array<number>(2 * k).fill(0);
  // Indices refer to the default unpooled shape; a larger output_shape pads at the end.
  const natural = [
    x.shape[0]!,
    x.shape[1]!,
    ...x.shape.slice(2).map((d, i) => (d - 1) * st[i]! + kernel[i]! - pads[i]! - pads[i + k]!),
  ];
  const shape = shapeT ? intValues(ctx, shapeT, "output_shape") : natural;
  if (shape.length !== natural.length || shape.some((d, i) => d < natural[i]!))
    fail(
      ctx,
      `output_shape [${shape.join(",")}] is smaller than the unpooled shape [${natural.join(",")}]`,
    );
  const out = alloc(ctx, x.dtype, shape);
  const iv = intValues(ctx, idx, "indices");
  const s = x.data as unknown as AnyStore;
  const d = out.data as unknown as AnyStore;
  const nst = strides(natural);
  const ost = strides(shape);
  const total = prod(natural);
  for (let i = 0; i < iv.length; i++) {
    const at = iv[i]!;
    if (at < 0 || at >= total)
      fail(ctx, `index ${at} is outside the unpooled tensor of ${total} elements`);
    let off = 0;
    for (let a = 0; a < natural.length; a++)
      off += (Math.floor(at / nst[a]!) % natural[a]!) * ost[a]!;
    d[off] = s[i];
  }
  return [out];
};

export const convPoolKernels: Record<string, Kernel> = {
  Conv,
  MaxPool: pool("max"),
  AveragePool: pool("avg"),
  GlobalMaxPool: globalPool("max"),
  GlobalAveragePool: globalPool("avg"),
  MaxUnpool,
};
