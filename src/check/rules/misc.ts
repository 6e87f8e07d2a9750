// Shape rules for the remaining ops that real models use: Resize and Upsample, GatherND, OneHot,
// Compress, the quantization ops, the recurrent ops (RNN, GRU, LSTM), Det, CumProd,
// ReverseSequence, NonMaxSuppression, Unique, the random generators and windows, GridSample, the
// losses and a few sequence ops.

import { DataType, type Dim } from "../../ir/types.js";
import { hasAttribute, hasInput } from "../../schema/facts.js";
import { broadcastShapes, isTensor, tensorOf } from "../types.js";
import * as R from "./common.js";

/** floor(d · scale) as ORT computes it: in single precision. */
const scaled = (d: Dim, scale: number): Dim =>
  typeof d === "number"
    ? Math.floor(Math.fround(Math.fround(scale) * Math.fround(d)))
    : scale === 1
      ? d
      : null;

function stringAttr(c: R.RuleCtx, name: string, dflt: string): string | undefined {
  const a = c.attr(name);
  if (!a) return dflt;
  return a.type === "STRING" && a.value !== undefined ? String(a.value) : undefined;
}

/** Resize (10: X, scales; 11+: X, roi, scales, sizes; 18+: axes, keep_aspect_ratio_policy). */
const resize: R.Rule = (c) => {
  const s = R.shapeOrUnknownOut(c);
  if (!s) return;
  const e = R.elemOf(c, 0);
  const r = s.length;
  const unknown = () => R.out(c, 0, e, R.unknownDims(r));
  const scalesAt = hasInput(c.schema, "roi") ? 2 : 1;
  const sizesAt = hasInput(c.schema, "sizes") ? 3 : -1;
  const axesAttr = R.intsAttr(c, "axes");
  if (axesAttr === null) return unknown();
  const axes: number[] = [];
  for (const a of axesAttr ?? s.map((_, i) => i)) {
    const n = R.normAxis(c, a, r);
    if (n === undefined) return;
    axes.push(n);
  }
  const policy = stringAttr(c, "keep_aspect_ratio_policy", "stretch");
  const mode = stringAttr(c, "coordinate_transformation_mode", "half_pixel");
  const dims = [...s];
  if (sizesAt > 0 && R.present(c, sizesAt)) {
    const sizes = R.symInput(c, sizesAt);
    if (!sizes || sizes.length !== axes.length || policy !== "stretch") return unknown();
    axes.forEach((a, k) => (dims[a] = sizes[k]!));
  } else if (R.present(c, scalesAt)) {
    const k = c.consts[scalesAt];
    if (!k || k.values.length !== axes.length || mode === "tf_crop_and_resize") {
      // An empty scales input beside sizes is "not given" (checked above); otherwise unknown.
      return unknown();
    }
    axes.forEach((a, i) => (dims[a] = scaled(s[a]!, k.values[i]!)));
  } else return unknown();
  R.out(c, 0, e, dims);
};

/** Upsample: scales from attributes (1: height/width, 7: scales) or the constant input (9). */
const upsample: R.Rule = (c) => {
  const s = R.shapeOrUnknownOut(c);
  if (!s) return;
  const e = R.elemOf(c, 0);
  let scales: number[] | undefined;
  if (hasInput(c.schema, "scales")) scales = c.consts[1]?.values;
  else if (hasAttribute(c.schema, "scales")) {
    const a = c.attr("scales");
    scales = a && a.type === "FLOATS" && a.value ? [...a.value] : undefined;
  } else {
    const h = c.attr("height_scale");
    const w = c.attr("width_scale");
    if (
      h?.type === "FLOAT" &&
      w?.type === "FLOAT" &&
      h.value !== undefined &&
      w.value !== undefined
    )
      scales = [1, 1, h.value, w.value];
  }
  if (!scales || scales.length !== s.length) {
    R.out(c, 0, e, R.unknownDims(s.length));
    return;
  }
  R.out(
    c,
    0,
    e,
    s.map((d, i) => scaled(d, scales![i]!)),
  );
};

/** GatherND: indices.shape[:-1] + data.shape[batch_dims + indices.shape[-1]:]. */
const gatherND: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const is = R.shapeOf(c, 1);
  const e = R.elemOf(c, 0);
  const b = R.intAttr(c, "batch_dims", 0);
  const last = is?.[is.length - 1];
  if (!s || !is || is.length === 0 || typeof last !== "number" || b === null) {
    R.out(c, 0, e);
    return;
  }
  if (b + last > s.length) {
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: indices address ${last} axes after ${b} batch axes, but data has rank ${s.length}`,
    );
    return;
  }
  R.out(c, 0, e, [...is.slice(0, -1), ...s.slice(b + last)]);
};

/** OneHot: the indices' shape with depth inserted at axis; values' element type. */
const oneHot: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const e = R.elemOf(c, 2);
  const axis = R.intAttr(c, "axis", -1);
  if (!s || axis === null) {
    R.out(c, 0, e);
    return;
  }
  const r = s.length + 1;
  if (axis < -r || axis >= r) {
    c.error(
      "axis-out-of-range",
      `${R.opName(c)}: axis ${axis} is out of range for output rank ${r} (valid range is [${-r}, ${r - 1}])`,
    );
    return;
  }
  const a = axis < 0 ? axis + r : axis;
  const depth = R.symInput(c, 1)?.[0];
  const d: Dim = typeof depth === "number" ? Math.trunc(depth) : (depth ?? null);
  R.out(c, 0, e, [...s.slice(0, a), d, ...s.slice(a)]);
};

/** Compress: the input with the compressed axis unknown; flattened to 1-D without an axis. */
const compress: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const e = R.elemOf(c, 0);
  const axis = R.attrIntOf(c, "axis");
  if (axis === undefined) {
    R.out(c, 0, e, [null]);
    return;
  }
  if (!s || axis === null) {
    R.out(c, 0, e, s ? R.unknownDims(s.length) : undefined);
    return;
  }
  const a = R.normAxis(c, axis, s.length);
  if (a === undefined) return;
  R.out(
    c,
    0,
    e,
    s.map((d, i) => (i === a ? null : d)),
  );
};

/** QuantizeLinear: x's shape; the zero point's type, else output_dtype, else uint8. */
const quantize: R.Rule = (c) => {
  const zp = R.present(c, 2) ? R.elemOf(c, 2) : 0;
  const od = R.intAttr(c, "output_dtype", 0);
  R.out(c, 0, zp || od || DataType.UINT8, R.shapeOf(c, 0));
};

/** DequantizeLinear: x's shape; output_dtype, else the scale's type. */
const dequantize: R.Rule = (c) => {
  const od = R.intAttr(c, "output_dtype", 0);
  R.out(c, 0, od || R.elemOf(c, 1), R.shapeOf(c, 0));
};

const dynamicQuantize: R.Rule = (c) => {
  R.out(c, 0, DataType.UINT8, R.shapeOf(c, 0));
  R.out(c, 1, DataType.FLOAT, []);
  R.out(c, 2, DataType.UINT8, []);
};

/** The shape of a matrix product of two shapes (numpy's matmul), or undefined. */
function matmulShape(a: Dim[] | undefined, b: Dim[] | undefined): Dim[] | undefined {
  if (!a || !b || a.length === 0 || b.length === 0) return undefined;
  const a2 = a.length === 1 ? [1, a[0]!] : a;
  const b2 = b.length === 1 ? [b[0]!, 1] : b;
  const batch = broadcastShapes([a2.slice(0, -2), b2.slice(0, -2)]);
  if (typeof batch === "string") return undefined;
  const dims = [...batch];
  if (a.length > 1) dims.push(a2[a2.length - 2]!);
  if (b.length > 1) dims.push(b2[b2.length - 1]!);
  return dims;
}

const matmulLike =
  (x: number, w: number, elem: (c: R.RuleCtx) => number): R.Rule =>
  (c) =>
    R.out(c, 0, elem(c), matmulShape(R.shapeOf(c, x), R.shapeOf(c, w)));

/** RNN, GRU, LSTM: Y (seq, dirs, batch, hidden) and Y_h/Y_c (dirs, batch, hidden); layout 1 puts batch first. */
const recurrent: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const e = R.elemOf(c, 0);
  const hidden = R.attrIntOf(c, "hidden_size");
  const h: Dim = typeof hidden === "number" ? hidden : (R.shapeOf(c, 2)?.[2] ?? null);
  const dirAttr = stringAttr(c, "direction", "forward");
  const dirs: Dim =
    dirAttr === undefined ? (R.shapeOf(c, 1)?.[0] ?? null) : dirAttr === "bidirectional" ? 2 : 1;
  const layout = R.intAttr(c, "layout", 0);
  const [seq, batch]: Dim[] =
    s && s.length === 3 && layout !== null
      ? layout
        ? [s[1]!, s[0]!]
        : [s[0]!, s[1]!]
      : [null, null];
  const known = layout !== null;
  const y = layout ? [batch, seq, dirs, h] : [seq, dirs, batch, h];
  const yh = layout ? [batch, dirs, h] : [dirs, batch, h];
  if ((c.node.outputs[0] ?? "") !== "") R.out(c, 0, e, known ? y : undefined);
  for (let i = 1; i < c.node.outputs.length; i++)
    if ((c.node.outputs[i] ?? "") !== "") R.out(c, i, e, known ? yh : undefined);
};

const det: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  R.out(c, 0, R.elemOf(c, 0), s && s.length >= 2 ? s.slice(0, -2) : undefined);
};

const nms: R.Rule = (c) => R.out(c, 0, DataType.INT64, [null, 3]);

const unique: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const e = R.elemOf(c, 0);
  const axis = R.attrIntOf(c, "axis");
  let y: Dim[] | undefined;
  let inv: Dim[] | undefined;
  if (axis === undefined) {
    y = [null];
    const n = s && R.product(s);
    inv = [n ?? null];
  } else if (s && axis !== null) {
    const a = R.normAxis(c, axis, s.length);
    if (a === undefined) return;
    y = s.map((d, i) => (i === a ? null : d));
    inv = [s[a]!];
  }
  R.out(c, 0, e, y);
  for (const [i, shape] of [
    [1, [null]],
    [2, inv],
    [3, [null]],
  ] as const)
    if ((c.node.outputs[i] ?? "") !== "")
      R.out(c, i, DataType.INT64, shape ? [...shape] : undefined);
};

/** RandomNormal/RandomUniform: the shape attribute, dtype (float by default). */
const random: R.Rule = (c) => {
  const shape = R.intsAttr(c, "shape");
  const dtype = R.intAttr(c, "dtype", DataType.FLOAT);
  R.out(c, 0, dtype ?? 0, shape ?? undefined);
};

const multinomial: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const n = R.intAttr(c, "sample_size", 1);
  const dtype = R.intAttr(c, "dtype", DataType.INT32);
  R.out(c, 0, dtype ?? 0, [s?.[0] ?? null, n]);
};

/** The window functions: a 1-D tensor of the constant size. */
const windowFn: R.Rule = (c) => {
  const n = R.symInput(c, 0)?.[0];
  const dtype = R.intAttr(c, "output_datatype", DataType.FLOAT);
  R.out(c, 0, dtype ?? 0, [n === undefined ? null : n]);
};

/** GridSample: (N, C) of X, the spatial sizes of the grid. */
const gridSample: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const g = R.shapeOf(c, 1);
  R.out(
    c,
    0,
    R.elemOf(c, 0),
    g && g.length >= 3 ? [s?.[0] ?? g[0]!, s?.[1] ?? null, ...g.slice(1, -1)] : undefined,
  );
};

/** The losses: reduction "none" keeps the target's shape, else a scalar. */
const loss =
  (withLogProb: boolean): R.Rule =>
  (c) => {
    const red = stringAttr(c, "reduction", "mean");
    const e = R.elemOf(c, 0);
    R.out(c, 0, e, red === undefined ? undefined : red === "none" ? R.shapeOf(c, 1) : []);
    if (withLogProb && (c.node.outputs[1] ?? "") !== "") R.out(c, 1, e, R.shapeOf(c, 0));
  };

/** SequenceConstruct: a sequence of the inputs' element type; shapes kept when all alike. */
const sequenceConstruct: R.Rule = (c) => {
  const ts = c.inputs.filter(isTensor);
  const first = ts[0];
  if (!first || ts.length !== c.inputs.length) return;
  const same = ts.every(
    (t) =>
      t.shape &&
      first.shape &&
      t.shape.length === first.shape.length &&
      t.shape.every((d, i) => d === first.shape![i]),
  );
  c.outputs[0] = {
    kind: "sequence",
    elem: tensorOf(first.elemType, same ? first.shape : undefined),
  };
};

const sequenceAt: R.Rule = (c) => {
  const t = c.inputs[0];
  if (t?.kind === "sequence" && isTensor(t.elem)) c.outputs[0] = t.elem;
};

const sequenceLength: R.Rule = (c) => R.out(c, 0, DataType.INT64, []);

const rules: Record<string, R.Rule> = {
  Resize: resize,
  Upsample: upsample,
  GatherND: gatherND,
  OneHot: oneHot,
  Compress: compress,
  QuantizeLinear: quantize,
  DequantizeLinear: dequantize,
  DynamicQuantizeLinear: dynamicQuantize,
  MatMulInteger: matmulLike(0, 1, () => DataType.INT32),
  QLinearMatMul: matmulLike(0, 3, (c) => R.elemOf(c, 7)),
  RNN: recurrent,
  GRU: recurrent,
  LSTM: recurrent,
  Det: det,
  CumProd: R.sameAsInput,
  ReverseSequence: R.sameAsInput,
  TensorScatter: R.sameAsInput,
  NonMaxSuppression: nms,
  Unique: unique,
  RandomNormal: random,
  RandomUniform: random,
  Multinomial: multinomial,
  HannWindow: windowFn,
  HammingWindow: windowFn,
  BlackmanWindow: windowFn,
  GridSample: gridSample,
  NegativeLogLikelihoodLoss: loss(false),
  SoftmaxCrossEntropyLoss: loss(true),
  SequenceConstruct: sequenceConstruct,
  SequenceAt: sequenceAt,
  SequenceLength: sequenceLength,
};

export const miscRules: Readonly<Record<string, R.Rule>> = Object.freeze(rules);
