// Shape rules of onnxruntime's operators: the com.microsoft ops its quantizer, transformers
// optimizer and graph optimizations write, and SimplifiedLayerNormalization, which onnxruntime
// registers in the ONNX domain. Element types come from the schemas' type constraints
// (check/node.ts); these rules add shapes where the inputs tell them.

import { DataType, type Dim } from "../../ir/types.js";
import { broadcastShapes } from "../types.js";
import * as R from "./common.js";
import { convRules } from "./conv.js";
import { nnRules } from "./nn.js";

/** Output `i` of the first input's shape, with element type `elem` (default: the input's). */
function like(c: R.RuleCtx, i: number, from = 0, elem?: number): void {
  const t = R.tin(c, from);
  if (t) R.out(c, i, elem ?? t.elemType, t.shape);
}

/** The broadcast of the inputs at `idx` (undefined when a shape is unknown or they clash). */
function broadcastOf(c: R.RuleCtx, idx: number[]): Dim[] | undefined {
  const shapes: Dim[][] = [];
  for (const i of idx) {
    const s = R.shapeOf(c, i);
    if (!s) return undefined;
    shapes.push(s);
  }
  const r = broadcastShapes(shapes);
  if (typeof r === "string") {
    c.error("shape-mismatch", `${R.opName(c)}: inputs cannot be broadcast: ${r}`);
    return undefined;
  }
  return r;
}

/** The shape of a value with its last axis replaced by `last` (undefined: unknown). */
function withLast(s: Dim[] | undefined, last: Dim): Dim[] | undefined {
  return s && s.length > 0 ? [...s.slice(0, -1), last] : undefined;
}

/** Statistics of a normalisation over the last axis: the input's shape with 1 there. */
function statShape(s: Dim[] | undefined): Dim[] | undefined {
  return withLast(s, 1);
}

const quantBinary: R.Rule = (c) => {
  R.out(c, 0, R.elemOf(c, 0), broadcastOf(c, [0, 3]));
};

const skipNorm: R.Rule = (c) => {
  like(c, 0);
  const s = R.shapeOf(c, 0);
  // Mean and InvStdDev are of type U, which the inputs do not bind: left to the constraint.
  R.out(c, 1, 0, statShape(s));
  R.out(c, 2, 0, statShape(s));
  like(c, 3);
};

/** MatMul of inputs a and b (shapes only) with element type `elem` into output 0. */
function matmulOf(c: R.RuleCtx, a: number, b: number, elem: number): void {
  const inner: R.RuleCtx = {
    ...c,
    inputs: [c.inputs[a], c.inputs[b]],
    consts: [],
    outputs: [],
    node: { ...c.node, inputs: [c.node.inputs[a] ?? "", c.node.inputs[b] ?? ""] },
  };
  nnRules.MatMul!(inner);
  const t = inner.outputs[0];
  if (t && t.kind === "tensor") R.out(c, 0, elem, t.shape);
  else R.out(c, 0, elem);
}

const rules: Record<string, R.Rule> = {
  Gelu: (c) => like(c, 0),
  FastGelu: (c) => like(c, 0),
  QuickGelu: (c) => like(c, 0),
  BiasGelu: (c) => like(c, 0),
  BiasAdd: (c) => like(c, 0),
  RotaryEmbedding: (c) => like(c, 0),
  QuantizeLinear: (c) => like(c, 0, 0, R.present(c, 2) ? R.elemOf(c, 2) : DataType.UINT8),
  DequantizeLinear: (c) => like(c, 0, 0, R.elemOf(c, 1)),
  QLinearAdd: quantBinary,
  QLinearMul: quantBinary,
  QLinearSigmoid: (c) => like(c, 0),
  QLinearLeakyRelu: (c) => like(c, 0),
  QLinearSoftmax: (c) => like(c, 0),
  QLinearGlobalAveragePool: (c) => {
    const s = R.shapeOf(c, 0);
    const last = R.intAttr(c, "channels_last", 0) === 1;
    if (!s || s.length < 3) return R.out(c, 0, R.elemOf(c, 0));
    const ones = s.slice(2).map(() => 1);
    R.out(
      c,
      0,
      R.elemOf(c, 0),
      last ? [s[0]!, ...ones, s[s.length - 1]!] : [s[0]!, s[1]!, ...ones],
    );
  },
  QLinearConcat: (c) => {
    const axis = R.attrIntOf(c, "axis");
    const xs: Dim[][] = [];
    for (let i = 2; i < c.node.inputs.length; i += 3) {
      const s = R.shapeOf(c, i);
      if (!s) return R.out(c, 0, R.elemOf(c, 1));
      xs.push(s);
    }
    const first = xs[0];
    if (!first || axis === undefined || axis === null) return R.out(c, 0, R.elemOf(c, 1));
    const a = R.normAxis(c, axis, first.length);
    if (a === undefined) return;
    let total: Dim = 0;
    for (const s of xs)
      total =
        typeof total === "number" && typeof s[a] === "number" ? total + (s[a] as number) : null;
    R.out(
      c,
      0,
      R.elemOf(c, 1),
      first.map((d, i) => (i === a ? total : d)),
    );
  },
  QGemm: (c) => {
    const a = R.shapeOf(c, 0);
    const b = R.shapeOf(c, 3);
    const elem = R.present(c, 8) ? R.elemOf(c, 8) : DataType.FLOAT;
    if (!a || !b || a.length !== 2 || b.length !== 2) return R.out(c, 0, elem);
    const m = R.intAttr(c, "transA", 0) ? a[1]! : a[0]!;
    const n = R.intAttr(c, "transB", 0) ? b[0]! : b[1]!;
    R.out(c, 0, elem, [m, n]);
  },
  FusedConv: (c) => {
    const inner: R.RuleCtx = { ...c, node: { ...c.node, inputs: c.node.inputs.slice(0, 3) } };
    convRules.Conv!(inner);
  },
  FusedMatMul: (c) => {
    const a = R.shapeOf(c, 0);
    const b = R.shapeOf(c, 1);
    const elem = R.elemOf(c, 0);
    if (
      !a ||
      !b ||
      a.length < 2 ||
      b.length < 2 ||
      R.intAttr(c, "transBatchA", 0) ||
      R.intAttr(c, "transBatchB", 0)
    )
      return R.out(c, 0, elem);
    const swap = (s: Dim[]) => [...s.slice(0, -2), s[s.length - 1]!, s[s.length - 2]!];
    const inner: R.RuleCtx = {
      ...c,
      inputs: [
        { kind: "tensor", elemType: elem, shape: R.intAttr(c, "transA", 0) ? swap(a) : a },
        { kind: "tensor", elemType: elem, shape: R.intAttr(c, "transB", 0) ? swap(b) : b },
      ],
    };
    nnRules.MatMul!(inner);
  },
  MatMulNBits: (c) => {
    const n = R.attrIntOf(c, "N");
    R.out(c, 0, R.elemOf(c, 0), withLast(R.shapeOf(c, 0), typeof n === "number" ? n : null));
  },
  MatMulIntegerToFloat: (c) => matmulOf(c, 0, 1, R.elemOf(c, 2) || DataType.FLOAT),
  DynamicQuantizeMatMul: (c) => matmulOf(c, 0, 1, R.elemOf(c, 0) || DataType.FLOAT),
  SkipLayerNormalization: skipNorm,
  SkipSimplifiedLayerNormalization: skipNorm,
  Attention: (c) => {
    const x = R.shapeOf(c, 0);
    const w = R.shapeOf(c, 1);
    const sizes = R.intsAttr(c, "qkv_hidden_sizes");
    let v: Dim = null;
    if (sizes && sizes.length === 3) v = sizes[2]!;
    else if (w && w.length === 2 && typeof w[1] === "number") v = w[1] / 3;
    R.out(c, 0, R.elemOf(c, 0), x && x.length === 3 ? [x[0]!, x[1]!, v] : undefined);
  },
  MultiHeadAttention: (c) => {
    const q = R.shapeOf(c, 0);
    const v = R.shapeOf(c, 2);
    const heads = R.attrIntOf(c, "num_heads");
    let hidden: Dim = null;
    if (v && v.length === 3) hidden = v[2]!;
    else if (v && v.length === 4 && typeof v[3] === "number" && typeof heads === "number")
      hidden = v[3] * heads;
    else if (!R.present(c, 2) && q && q.length === 3 && !R.present(c, 1)) hidden = null;
    else if (q && q.length === 3) hidden = q[2]!;
    R.out(c, 0, R.elemOf(c, 0), q && q.length >= 3 ? [q[0]!, q[1]!, hidden] : undefined);
  },
  GroupQueryAttention: (c) => {
    const q = R.shapeOf(c, 0);
    const heads = R.attrIntOf(c, "num_heads");
    const kv = R.attrIntOf(c, "kv_num_heads");
    const packed = !R.present(c, 1);
    let hidden: Dim = null;
    let head: Dim = null;
    if (q && q.length === 3 && typeof q[2] === "number" && typeof heads === "number") {
      head = packed && typeof kv === "number" ? q[2] / (heads + 2 * kv) : q[2] / heads;
      hidden = head * heads;
    }
    R.out(c, 0, R.elemOf(c, 0), q && q.length === 3 ? [q[0]!, q[1]!, hidden] : undefined);
    const cache = R.present(c, 3) ? R.elemOf(c, 3) : R.elemOf(c, 0);
    const batch = q?.[0] ?? null;
    R.out(c, 1, cache, [batch, typeof kv === "number" ? kv : null, null, head]);
    R.out(c, 2, cache, [batch, typeof kv === "number" ? kv : null, null, head]);
  },
  EmbedLayerNormalization: (c) => {
    const ids = R.shapeOf(c, 0);
    const emb = R.shapeOf(c, 2);
    const hidden = emb && emb.length === 2 ? emb[1]! : null;
    const elem = R.elemOf(c, 2);
    R.out(c, 0, elem, ids && ids.length === 2 ? [ids[0]!, ids[1]!, hidden] : undefined);
    R.out(c, 1, DataType.INT32, ids && ids.length === 2 ? [ids[0]!] : undefined);
    R.out(c, 2, elem, ids && ids.length === 2 ? [ids[0]!, ids[1]!, hidden] : undefined);
  },
  DynamicQuantizeLSTM: (c) => {
    const x = R.shapeOf(c, 0);
    const h = R.attrIntOf(c, "hidden_size");
    const dir = c.attr("direction");
    const dirs = dir && dir.type === "STRING" && dir.value === "bidirectional" ? 2 : 1;
    const hs = typeof h === "number" ? h : null;
    const elem = R.elemOf(c, 0);
    if (!x || x.length !== 3) return R.out(c, 0, elem);
    R.out(c, 0, elem, [x[0]!, dirs, x[1]!, hs]);
    R.out(c, 1, elem, [dirs, x[1]!, hs]);
    R.out(c, 2, elem, [dirs, x[1]!, hs]);
  },
};

/** com.microsoft op type → its rule. */
export const contribRules: Readonly<Record<string, R.Rule>> = Object.freeze(rules);

/** SimplifiedLayerNormalization (onnxruntime's, in the ONNX domain): Y like X in scale's type. */
export const simplifiedLayerNorm: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  R.out(c, 0, R.elemOf(c, 1) || R.elemOf(c, 0), s);
  const axis = R.intAttr(c, "axis", -1);
  if (!s || axis === null) return;
  const a = R.normAxis(c, axis, s.length);
  if (a === undefined) return;
  R.out(
    c,
    1,
    0,
    s.map((d, i) => (i < a ? d : 1)),
  );
};
