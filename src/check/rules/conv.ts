// Convolutions and pooling: Conv, ConvTranspose, ConvInteger, QLinearConv, DeformConv, MaxPool,
// AveragePool, LpPool, MaxUnpool, MaxRoiPool, RoiAlign. Spatial sizes follow the kernel, pads,
// strides, dilations, auto_pad and ceil_mode as ONNX defines them (and ORT computes them);
// a dimension that is not known stays unknown.

import { DataType, type Dim } from "../../ir/types.js";
import { dimAdd, dimFloorDiv } from "../dim-expr.js";
import * as R from "./common.js";

/** The window attributes of a node for `n` spatial axes; undefined when one is not known. */
interface Window {
  kernel: number[];
  strides: number[];
  dilations: number[];
  /** Begin pads then end pads, as ONNX writes them. */
  pads: number[];
  autoPad: string;
  ceil: boolean;
}

function windowOf(c: R.RuleCtx, n: number, kernelFromW?: Dim[]): Window | undefined {
  const list = (name: string, dflt: number, len: number): number[] | undefined => {
    const v = R.intsAttr(c, name);
    if (v === null) return undefined;
    if (v === undefined || v.length === 0) return new Array<number>(len).fill(dflt);
    return v.length === len ? v : undefined;
  };
  let kernel = list("kernel_shape", -1, n);
  if (!kernel) return undefined;
  if (kernel.some((k) => k < 0)) {
    if (!kernelFromW || kernelFromW.some((d) => typeof d !== "number")) return undefined;
    kernel = kernelFromW as number[];
  }
  const strides = list("strides", 1, n);
  const dilations = list("dilations", 1, n);
  const pads = list("pads", 0, 2 * n);
  const ap = c.attr("auto_pad");
  if (ap && (ap.type !== "STRING" || ap.value === undefined)) return undefined;
  const autoPad = ap && ap.type === "STRING" ? String(ap.value) : "NOTSET";
  const ceil = R.intAttr(c, "ceil_mode", 0);
  if (!strides || !dilations || !pads || ceil === null) return undefined;
  if (strides.some((s) => s <= 0) || dilations.some((d) => d <= 0)) return undefined;
  return { kernel, strides, dilations, pads, autoPad, ceil: ceil === 1 };
}

/** The output size of one spatial axis of a convolution or pooling window. */
function windowOut(w: Window, i: number, d: Dim, n: number): Dim {
  const s = w.strides[i]!;
  const k = (w.kernel[i]! - 1) * w.dilations[i]! + 1;
  const same = w.autoPad === "SAME_UPPER" || w.autoPad === "SAME_LOWER";
  const [pb, pe] = same || w.autoPad === "VALID" ? [0, 0] : [w.pads[i]!, w.pads[i + n]!];
  // A symbolic size gives an expression of it (dim-expr.ts): ceil(d/s) for SAME, else
  // floor((d + pads - k)/s) + 1.
  if (typeof d !== "number") {
    if (d === null) return null;
    if (same) return dimFloorDiv(dimAdd(d, s - 1), s);
    if (!w.ceil || s === 1) return dimFloorDiv(dimAdd(d, pb + pe - k + s), s);
    // ceil_mode: ceil((d + pads - k)/s) + 1, where the last window surely starts inside the
    // input or its begin padding (s + end pad ≤ k); else unknown.
    return s + pe <= k ? dimFloorDiv(dimAdd(d, pb + pe - k + 2 * s - 1), s) : null;
  }
  if (same) return Math.ceil(d / s);
  const span = d + pb + pe - k;
  if (span < 0) return null;
  if (!w.ceil) return Math.floor(span / s) + 1;
  let out = Math.ceil(span / s) + 1;
  // The last window must start inside the input or its begin padding.
  if ((out - 1) * s >= d + pb) out--;
  return out;
}

/** Conv-like: X (N, C, spatial...), W (M, C/group, kernel...) → (N, M, out...). */
const convLike =
  (x: number, w: number, elem: (c: R.RuleCtx) => number): R.Rule =>
  (c) => {
    const s = R.shapeOf(c, x);
    const ws = R.shapeOf(c, w);
    const e = elem(c);
    if (!s || s.length < 2) {
      R.out(c, 0, e, ws && ws.length >= 2 ? R.unknownDims(ws.length) : undefined);
      return;
    }
    const n = s.length - 2;
    const win = windowOf(c, n, ws?.slice(2));
    const m: Dim = ws && ws.length === s.length ? ws[0]! : null;
    R.out(c, 0, e, [s[0]!, m, ...s.slice(2).map((d, i) => (win ? windowOut(win, i, d, n) : null))]);
  };

const convTranspose: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const ws = R.shapeOf(c, 1);
  const e = R.elemOf(c, 0);
  if (!s || s.length < 2) {
    R.out(c, 0, e, ws && ws.length >= 2 ? R.unknownDims(ws.length) : undefined);
    return;
  }
  const n = s.length - 2;
  const group = R.intAttr(c, "group", 1);
  const wm = ws && ws.length === s.length ? ws[1]! : null;
  const m: Dim = typeof wm === "number" && typeof group === "number" ? wm * group : null;
  const given = R.intsAttr(c, "output_shape");
  if (given && given.length >= n) {
    R.out(c, 0, e, [s[0]!, m, ...given.slice(given.length - n)]);
    return;
  }
  const win = windowOf(c, n, ws?.slice(2));
  const outPad = R.intsAttr(c, "output_padding");
  const spatial = s.slice(2).map((d, i): Dim => {
    if (!win || typeof d !== "number" || outPad === null) return null;
    const st = win.strides[i]!;
    if (win.autoPad === "SAME_UPPER" || win.autoPad === "SAME_LOWER") return d * st;
    const k = (win.kernel[i]! - 1) * win.dilations[i]! + 1;
    const [pb, pe] = win.autoPad === "VALID" ? [0, 0] : [win.pads[i]!, win.pads[i + n]!];
    return st * (d - 1) + (outPad?.[i] ?? 0) + k - pb - pe;
  });
  R.out(c, 0, e, [s[0]!, m, ...spatial]);
};

/** MaxPool, AveragePool, LpPool: (N, C, out...); MaxPool's indices alike as int64. */
const pool: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const e = R.elemOf(c, 0);
  if (!s || s.length < 2) {
    R.out(c, 0, e);
    if (c.node.outputs.length > 1) R.out(c, 1, DataType.INT64);
    return;
  }
  const n = s.length - 2;
  const win = windowOf(c, n);
  const dims: Dim[] = [
    s[0]!,
    s[1]!,
    ...s.slice(2).map((d, i) => (win ? windowOut(win, i, d, n) : null)),
  ];
  R.out(c, 0, e, dims);
  if (c.node.outputs.length > 1) R.out(c, 1, DataType.INT64, dims);
};

/** MaxUnpool: the output_shape input when constant, else the inverse of the pooling window. */
const maxUnpool: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const e = R.elemOf(c, 0);
  const given = R.present(c, 2) ? R.symInput(c, 2) : undefined;
  if (given) {
    R.out(c, 0, e, given);
    return;
  }
  if (!s || s.length < 2 || R.present(c, 2)) {
    R.out(c, 0, e, s ? R.unknownDims(s.length) : undefined);
    return;
  }
  const n = s.length - 2;
  const win = windowOf(c, n);
  R.out(c, 0, e, [
    s[0]!,
    s[1]!,
    ...s
      .slice(2)
      .map((d, i): Dim =>
        win && typeof d === "number"
          ? (d - 1) * win.strides[i]! + win.kernel[i]! - win.pads[i]! - win.pads[i + n]!
          : null,
      ),
  ]);
};

/** MaxRoiPool (X, rois) → (num_rois, C, pooled...); RoiAlign (X, rois, batch_indices) → (num_rois, C, h, w). */
const roiPool =
  (align: boolean): R.Rule =>
  (c) => {
    const s = R.shapeOf(c, 0);
    const rois = R.shapeOf(c, 1);
    const e = R.elemOf(c, 0);
    const num: Dim = rois ? (rois[0] ?? null) : null;
    const ch: Dim = s ? (s[1] ?? null) : null;
    let spatial: Dim[];
    if (align) {
      const h = R.intAttr(c, "output_height", 1);
      const w = R.intAttr(c, "output_width", 1);
      spatial = [h, w];
    } else {
      const p = R.intsAttr(c, "pooled_shape");
      spatial = p ? p : [null, null];
    }
    R.out(c, 0, e, [num, ch, ...spatial]);
  };

const rules: Record<string, R.Rule> = {
  Conv: convLike(0, 1, (c) => R.elemOf(c, 0)),
  ConvInteger: convLike(0, 1, () => DataType.INT32),
  QLinearConv: convLike(0, 3, (c) => R.elemOf(c, 7)),
  DeformConv: convLike(0, 1, (c) => R.elemOf(c, 0)),
  ConvTranspose: convTranspose,
  MaxPool: pool,
  AveragePool: pool,
  LpPool: pool,
  MaxUnpool: maxUnpool,
  MaxRoiPool: roiPool(false),
  RoiAlign: roiPool(true),
};

export const convRules: Readonly<Record<string, R.Rule>> = Object.freeze(rules);
