// The body of Attention-23/24/25: softmax(Q·Kᵀ·scale [softcapped] + bias)·V per (batch, head).
//
// Q, K, V are 4-D [batch, heads, seq, head_size] or 3-D [batch, seq, heads·head_size] (split
// with q_num_heads / kv_num_heads). past_key/past_value are prepended along the sequence axis
// (and are the present_* outputs); grouped KV heads serve hq / hkv consecutive query heads each.
// The additive bias is the attention mask (boolean: 0 or -inf; numeric: its value; positions past
// the mask's last dimension: -inf), the causal frontier j <= i + offset (offset: the past length,
// or nonpad_kv_seqlen[b] - q_len with an external cache), the windows of version 25 and the
// padding of nonpad_kv_seqlen (version 24 on). A row that is -inf everywhere gives zeros (ONNX's
// own body gives NaN there). qk_matmul_output is the scaled Q·Kᵀ (mode 0), after softcap (1),
// with the bias (2) or the probabilities (3). Computed in float for float16/bfloat16 (V cast to
// Q's compute type), and cast back once. Needs Q's rank and attn_mask's element type.

import { OnnxError, UnknownTypeError } from "../../errors.js";
import { DataType } from "../../ir/types.js";
import { hasAttribute, hasInput } from "../facts.js";
import { TextWriter } from "./writer.js";
import { Compute } from "./compute.js";
import { finish } from "./activations.js";
import type { BodyBuilder } from "./context.js";

const I64 = DataType.INT64;

export const attentionBuilder: BodyBuilder = (args) => {
  const w = new TextWriter("_attention_");
  const rank = args.shape(0)?.length;
  if (rank !== 3 && rank !== 4)
    throw new OnnxError("E_UNSUPPORTED", `the body of ${args.label} needs Q of known rank 3 or 4`);
  const c = new Compute(w, args, "Q");
  if (c.type === undefined)
    throw new UnknownTypeError(`the body of ${args.label} needs the type of Q`);
  const t = c.type;
  const hasMask = args.hasInput(3);
  const hasPast = args.hasInput(4) && args.hasInput(5);
  const nonpad =
    hasInput(args.op, "nonpad_kv_seqlen") && args.hasInput(6) ? "nonpad_kv_seqlen" : undefined;
  const maskType = hasMask ? args.elemType(3) : undefined;
  if (hasMask && maskType === undefined)
    throw new UnknownTypeError(`the body of ${args.label} needs the type of attn_mask`);

  const slice = (shape: string, from: number, to: number) =>
    w.op("Slice", [shape, w.ints([from], "from"), w.ints([to], "to")]);
  const iota = (n: string) => {
    const ones = w.op("ConstantOfShape", [n], "value = int64[1] {1}");
    return w.op("CumSum", [ones, w.constant("int64 {0}", "axis")], "exclusive: int = 1");
  };

  // [batch, heads, seq, head_size], in the inputs' own types.
  const heads = (x: string, attr: string) => {
    if (rank === 4) return x;
    const n = args.intValue(attr);
    if (n === undefined || n <= 0)
      throw new OnnxError("E_MODEL", `${args.label}: 3-D inputs need ${attr} > 0`);
    const split = w.op("Reshape", [x, w.ints([0, 0, n, -1], "split_heads")]);
    return w.op("Transpose", [split], "perm: ints = [0, 2, 1, 3]");
  };
  const q = heads("Q", "q_num_heads");
  let k = heads("K", "kv_num_heads");
  let v = heads("V", "kv_num_heads");
  if (hasPast) {
    k = w.op("Concat", ["past_key", k], "axis: int = 2");
    v = w.op("Concat", ["past_value", v], "axis: int = 2");
  }
  if (args.hasOutput(1)) w.op("Identity", [k], "", "present_key");
  if (args.hasOutput(2)) w.op("Identity", [v], "", "present_value");

  const toT = (x: string, index: number) => {
    const e = args.elemType(index);
    return e === t ? x : w.cast(x, t);
  };
  const qc = toT(q, 0);
  // Grouped KV heads: repeat each KV head for hq / hkv query heads (once when they are equal).
  const repeat = (x: string) => {
    const s = w.op("Shape", [x]);
    const group = w.op("Div", [slice(w.op("Shape", [q]), 1, 2), slice(s, 1, 2)]);
    const wide = w.op("Concat", [slice(s, 0, 2), group, slice(s, 2, 4)], "axis: int = 0");
    const expanded = w.op("Expand", [w.op("Unsqueeze", [x, w.ints([2], "axis2")]), wide]);
    const back = w.op(
      "Concat",
      [slice(s, 0, 1), w.ints([-1], "all"), slice(s, 2, 4)],
      "axis: int = 0",
    );
    return w.op("Reshape", [expanded, back]);
  };
  const kc = repeat(toT(k, 1));
  const vc = repeat(toT(v, 2));

  let scale: string;
  if (args.attribute("scale") !== undefined) scale = c.attr("scale");
  else {
    const d = w.cast(slice(w.op("Shape", [q]), 3, 4), t);
    scale = w.op("Reciprocal", [w.op("Sqrt", [d])]);
  }
  let s = w.op("Mul", [
    w.op("MatMul", [qc, w.op("Transpose", [kc], "perm: ints = [0, 1, 3, 2]")]),
    scale,
  ]);
  const mode = args.intValue("qk_matmul_output_mode") ?? 0;
  if (mode < 0 || mode > 3)
    throw new OnnxError(
      "E_MODEL",
      `${args.label}: qk_matmul_output_mode must be 0 to 3, not ${mode}`,
    );
  const qkOut: string[] = [s];
  const softcap = args.floatValue("softcap") ?? 0;
  if (softcap !== 0) {
    const cap = c.attr("softcap");
    s = w.op("Mul", [cap, w.op("Tanh", [w.op("Div", [s, cap])])]);
  }
  qkOut.push(s);

  // The additive bias.
  const negInf = w.scalar(t, -Infinity, "neg_inf");
  const zero = w.scalar(t, 0, "zero");
  const once = (make: () => string) => {
    let v: string | undefined;
    return () => (v ??= make());
  };
  const sq = once(() => slice(w.op("Shape", [q]), 2, 3));
  const total = once(() => slice(w.op("Shape", [k]), 2, 3));
  const biases: string[] = [];
  if (hasMask) {
    const m =
      maskType === DataType.BOOL ? w.op("Where", ["attn_mask", zero, negInf]) : toT("attn_mask", 3);
    // A mask shorter than the total sequence length masks out the keys it does not reach.
    const short = w.op("Sub", [total(), slice(w.op("Shape", ["attn_mask"]), -1, 2 ** 62)]);
    const pads = w.op("Concat", [w.ints([0], "none"), short], "axis: int = 0");
    biases.push(w.op("Pad", [m, pads, negInf, w.ints([-1], "last")]));
  }
  const causal = (args.intValue("is_causal") ?? 0) !== 0;
  const windows = hasAttribute(args.op, "left_window_size");
  const left = windows ? (args.intValue("left_window_size") ?? -1) : -1;
  const right = windows ? (args.intValue("right_window_size") ?? -1) : -1;
  const allowed: string[] = [];
  const cols = once(() => w.op("Unsqueeze", [iota(total()), w.ints([0], "axis0")])); // [1, total]
  if (causal || left >= 0 || right >= 0) {
    let pos = w.op("Unsqueeze", [iota(sq()), w.ints([1], "axis1")]); // [sq, 1]
    if (hasPast) pos = w.op("Add", [pos, slice(w.op("Shape", ["past_key"]), 2, 3)]);
    else if (nonpad) {
      const offset = w.op("Sub", [nonpad, sq()]);
      pos = w.op("Add", [pos, w.op("Reshape", [offset, w.ints([-1, 1, 1, 1], "per_batch")])]);
    }
    const beyond = (a: string, b: string, limit: number) =>
      w.op("Not", [
        w.op("Greater", [w.op("Sub", [a, b]), w.constant(`int64 {${limit}}`, "limit")]),
      ]);
    if (causal) allowed.push(w.op("Not", [w.op("Greater", [cols(), pos])]));
    if (left >= 0) allowed.push(beyond(pos, cols(), left));
    if (right >= 0) allowed.push(beyond(cols(), pos, right));
  }
  if (nonpad)
    allowed.push(
      w.op("Less", [cols(), w.op("Reshape", [nonpad, w.ints([-1, 1, 1, 1], "per_batch")])]),
    );
  if (allowed.length) {
    const all = allowed.reduce((a, b) => w.op("And", [a, b]));
    biases.push(w.op("Where", [all, zero, negInf]));
  }
  if (biases.length) s = w.op("Add", [s, biases.reduce((a, b) => w.op("Add", [a, b]))]);
  qkOut.push(s);

  // Softmax over the keys; a row that is -inf everywhere gives zeros.
  const last = w.ints([-1], "keys");
  const m = w.op("ReduceMax", [s, last], "keepdims: int = 1");
  const shift = w.op("Where", [w.op("Equal", [m, negInf]), zero, m]);
  const e = w.op("Exp", [w.op("Sub", [s, shift])]);
  const sum = w.op("ReduceSum", [e, last], "keepdims: int = 1");
  const p = w.op("Div", [
    e,
    w.op("Where", [w.op("Equal", [sum, zero]), w.scalar(t, 1, "one"), sum]),
  ]);
  qkOut.push(p);

  let y = w.op("MatMul", [p, vc]); // [batch, hq, sq, dv]
  if (rank === 3)
    y = w.op("Reshape", [
      w.op("Transpose", [y], "perm: ints = [0, 2, 1, 3]"),
      w.ints([0, 0, -1], "merge_heads"),
    ]);
  const q1 = args.elemType(0)!;
  const out = (x: string, formal: string) =>
    q1 === t ? w.op("Identity", [x], "", formal) : w.op("Cast", [x], `to: int = ${q1}`, formal);
  out(y, "Y");
  if (args.hasOutput(3)) out(qkOut[mode]!, "qk_matmul_output");
  return finish(w, args, 18);
};
