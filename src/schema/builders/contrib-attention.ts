// Bodies of onnxruntime's attention operators (com.microsoft Attention, MultiHeadAttention,
// GroupQueryAttention, RotaryEmbedding) in ai.onnx primitives: heads split with Reshape and
// Transpose, scores Q·Kᵀ·scale plus masks, Softmax, ·V. Masks as onnxruntime applies them: a raw
// key mask (0 = masked) or key lengths add mask_filter_value (-10000) to masked scores; causal
// frontiers, local windows and keys past a row's length are -inf. Computed in float for
// float16/bfloat16 (cast back once). GroupQueryAttention's past cache, written at each row's
// run-time position, is one Gather of rows whose indices fold but for those positions. The forms
// refused are named in the error (and in docs/semantics.md): 4-D [B, 1, M, M] and [3B+2] masks,
// buffer sharing, rotary inside Attention, GroupQueryAttention's smooth_softmax and quantized caches.

import { GQA_UNSUPPORTED_INPUTS } from "../limits.js";
import { OnnxError } from "../../errors.js";
import { attr } from "../../ir/builder.js";
import { DataType, type Type } from "../../ir/types.js";
import { isHalf } from "./compute.js";
import type { BodyBuilder, BuildArgs } from "./context.js";
import { Body } from "./contrib.js";
import { TextWriter } from "./writer.js";

const F = DataType.FLOAT;
const I64 = DataType.INT64;

function refuse(args: BuildArgs, why: string): never {
  throw new OnnxError("E_UNSUPPORTED", `${args.label} has no body here: ${why}`);
}

/** What the attention core needs: the writer, the compute type and helpers. */
class Core {
  readonly w: TextWriter;
  constructor(
    readonly b: Body,
    readonly args: BuildArgs,
    /** The element type of the inputs (T). */
    readonly elem: number,
  ) {
    this.w = b.w;
  }
  /** The type computed in: float for half types. */
  get t(): number {
    return isHalf(this.elem) ? F : this.elem;
  }
  /** A compute-type value rounded to T (as a kernel writing T holds it), in the compute type. */
  rounded(x: string): string {
    return isHalf(this.elem) ? this.w.cast(this.w.cast(x, this.elem), F) : x;
  }
  /** A value of type T in the compute type. */
  wide(x: string): string {
    return isHalf(this.elem) ? this.w.cast(x, F) : x;
  }
  k(v: number, hint = "k"): string {
    return this.w.scalar(this.t, v, hint);
  }
  /** [B, L, N·H] → [B, N, L, H]. */
  heads(x: string, n: number): string {
    const r = this.w.op("Reshape", [x, this.w.ints([0, 0, n, -1], "split_heads")]);
    return this.w.op("Transpose", [r], "perm: ints = [0, 2, 1, 3]");
  }
  /** [B, N, L, H] → [B, L, N·H]. */
  merge(x: string, out: string): void {
    const t = this.w.op("Transpose", [x], "perm: ints = [0, 2, 1, 3]");
    const r = this.w.op("Reshape", [t, this.w.ints([0, 0, -1], "merge_heads")]);
    if (isHalf(this.elem)) this.w.op("Cast", [r], `to: int = ${this.elem}`, out);
    else this.w.op("Identity", [r], "", out);
  }
  /** A dimension of a value as a 1-D int64 tensor. */
  dim(x: string, i: number): string {
    const w = this.w;
    return w.op("Slice", [w.op("Shape", [x]), w.ints([i], "d0"), w.ints([i + 1], "d1")]);
  }
  /** 0, 1, ..., n - 1 (n a 1-D int64 of one element) as a 1-D int64. */
  iota(n: string, start?: string): string {
    const w = this.w;
    const s = start ?? w.constant("int64 {0}", "zero");
    const sq = (x: string) => w.op("Squeeze", [x, w.ints([0], "ax0")]);
    const end = start ? w.op("Add", [sq(n), s]) : sq(n);
    return w.op("Range", [s, end, w.constant("int64 {1}", "one")]);
  }
  /** A [rows, cols] boolean as an additive mask: 0 where kept, `masked` (a compute-type scalar) else. */
  additive(keep: string, masked: string): string {
    return this.w.op("Where", [keep, this.k(0, "zero"), masked]);
  }
  /**
   * softmax(q kᵀ · scale (softcapped) + masks) v over [B, N, S, H] heads (k, v: [B, N, T, H]);
   * `masks` broadcast to [B, N, S, T]. Returns [B, N, S, Hv] and the probabilities.
   */
  attend(
    q: string,
    k: string,
    v: string,
    scale: number,
    masks: string[],
    softcap = 0,
  ): [string, string] {
    const w = this.w;
    const kt = w.op("Transpose", [k], "perm: ints = [0, 1, 3, 2]");
    let s = w.op("Mul", [w.op("MatMul", [q, kt]), this.k(scale, "scale")]);
    if (softcap > 0)
      s = w.op("Mul", [
        w.op("Tanh", [w.op("Div", [s, this.k(softcap, "cap")])]),
        this.k(softcap, "cap"),
      ]);
    for (const m of masks) s = w.op("Add", [s, m]);
    const p = w.op("Softmax", [s], "axis: int = -1");
    return [w.op("MatMul", [p, v]), p];
  }
}

/** The scale attribute, or 1/sqrt(head size) (the head size must be known). */
function scaleOf(args: BuildArgs, head: number | undefined): number {
  const s = args.floatValue("scale");
  if (s !== undefined && s !== 0) return s;
  if (head === undefined) refuse(args, "the default scale needs the head size");
  return 1 / Math.sqrt(head);
}

/**
 * A key mask of onnxruntime's forms as an additive [B, 1, S or 1, T] mask: [B] key lengths, [2B]
 * end and start positions, raw [B, T] or [B, S, T] (0 = masked); masked keys get `filter`.
 */
function keyMask(
  c: Core,
  mask: string,
  shape: (number | string | null)[] | undefined,
  T: string,
  filter: number,
): string {
  const w = c.w;
  const args = c.args;
  if (!shape) refuse(args, "the mask's shape is unknown");
  const masked = c.k(filter, "filter");
  const t = w.op("Unsqueeze", [c.iota(T), w.ints([0], "ax0")]); // [1, T]
  const col = (x: string) => w.op("Unsqueeze", [x, w.ints([1], "ax1")]); // [B] -> [B, 1]
  let keep: string;
  if (shape.length === 1) {
    const m = w.cast(mask, I64);
    const B = shape[0];
    // [B] lengths, or [2B] ends then starts; tell them apart by the batch size when static
    const b2 =
      typeof B === "number" &&
      args.shape(0)?.[0] !== undefined &&
      B === 2 * Number(args.shape(0)![0]);
    if (!b2) keep = w.op("Less", [t, col(m)]);
    else {
      const [end, start] = w.opN("Split", [m], [w.fresh("end"), w.fresh("start")], "axis: int = 0");
      keep = w.op("And", [
        w.op("Less", [t, col(end!)]),
        w.op("Not", [w.op("Less", [t, col(start!)])]),
      ]);
    }
    return w.op("Unsqueeze", [c.additive(keep, masked), w.ints([1, 2], "ax12")]);
  }
  const nonzero = w.op("Not", [w.op("Equal", [w.cast(mask, I64), w.constant("int64 {0}", "z")])]);
  if (shape.length === 2)
    return w.op("Unsqueeze", [c.additive(nonzero, masked), w.ints([1, 2], "ax12")]);
  if (shape.length === 3)
    return w.op("Unsqueeze", [c.additive(nonzero, masked), w.ints([1], "ax1")]);
  refuse(args, `a mask of rank ${shape.length} (onnxruntime's [batch, 1, max, max] form)`);
}

/** Causal: query s (absolute position offset + s) sees keys t <= offset + s: [S, T], -inf else. */
function causalMask(c: Core, S: string, T: string, offset: string): string {
  const w = c.w;
  const s = w.op("Add", [w.op("Unsqueeze", [c.iota(S), w.ints([1], "ax1")]), offset]);
  const t = w.op("Unsqueeze", [c.iota(T), w.ints([0], "ax0")]);
  return c.additive(w.op("Not", [w.op("Greater", [t, s])]), c.k(-Infinity, "ninf"));
}

/** Attention (com.microsoft): projections from one input, heads, past, masks, unidirectional. */
const attention: BodyBuilder = (args) => {
  if (args.hasInput(6) || args.intValue("past_present_share_buffer") === 1)
    refuse(args, "past_present_share_buffer");
  if (args.intValue("do_rotary") === 1) refuse(args, "do_rotary = 1");
  const elem = args.elemType(0);
  const wShape = args.shape(1);
  if (elem === undefined || !wShape || typeof wShape[1] !== "number")
    refuse(args, "the input's type and the weights' shape must be known");
  const b = new Body(args, "_ms_attention_");
  const c = new Core(b, args, elem);
  const w = b.w;
  const N = args.intValue("num_heads")!;
  const total = wShape[1];
  const sizes = args.intsValue("qkv_hidden_sizes") ?? [total / 3, total / 3, total / 3];
  const [Dq, Dk, Dv] = sizes as [number, number, number];
  let proj = w.op("MatMul", ["input", "weights"]);
  if (args.hasInput(2)) proj = w.op("Add", [proj, "bias"]);
  proj = c.wide(proj);
  const [qx, kx, vx] = w.opN(
    "Split",
    [proj, w.ints([Dq, Dk, Dv], "sizes")],
    [w.fresh("q"), w.fresh("k"), w.fresh("v")],
    "axis: int = 2",
  );
  const q = c.heads(qx!, N);
  let k = c.heads(kx!, N);
  let v = c.heads(vx!, N);
  const zero64 = w.ints([0], "zero");
  let offset = zero64;
  if (args.hasInput(4)) {
    const past = c.wide("past");
    const [pk, pv] = w.opN("Split", [past], [w.fresh("pk"), w.fresh("pv")], "axis: int = 0");
    const sq = (x: string) => w.op("Squeeze", [x, w.ints([0], "ax0")]);
    offset = c.dim(pk!, 3);
    k = w.op("Concat", [sq(pk!), k], "axis: int = 2");
    v = w.op("Concat", [sq(pv!), v], "axis: int = 2");
  }
  if (args.hasOutput(1)) {
    const u = (x: string) => w.op("Unsqueeze", [x, w.ints([0], "ax0")]);
    const present = w.op("Concat", [u(k), u(v)], "axis: int = 0");
    if (isHalf(elem)) w.op("Cast", [present], `to: int = ${elem}`, "present");
    else w.op("Identity", [present], "", "present");
  }
  const S = c.dim(q, 2);
  const T = c.dim(k, 2);
  const masks: string[] = [];
  if (args.hasInput(3))
    masks.push(
      keyMask(c, "mask_index", args.shape(3), T, args.floatValue("mask_filter_value") ?? -10000),
    );
  if (args.hasInput(5)) masks.push(c.wide("attention_bias"));
  if (args.intValue("unidirectional") === 1) masks.push(causalMask(c, S, T, offset));
  const [o] = c.attend(q, k, v, scaleOf(args, Dq / N), masks);
  c.merge(o, "output");
  return b.finish();
};

/** [B, L, N, j-of-m, H] packed input: part j as heads [B, N, L, H] (plus its bias part). */
function packedPart(
  c: Core,
  x: string,
  j: number,
  m: number,
  bias: string | undefined,
  N: number,
  H: number,
): string {
  const w = c.w;
  const part = w.op("Squeeze", [
    w.op("Slice", [x, w.ints([j], "pj"), w.ints([j + 1], "pj1"), w.ints([3], "ax3")]),
    w.ints([3], "ax3"),
  ]);
  let p = c.wide(part); // [B, L, N, H]
  if (bias) {
    const bp = w.op("Slice", [
      bias,
      w.ints([j * N * H], "b0"),
      w.ints([(j + 1) * N * H], "b1"),
      w.ints([0], "bax"),
    ]);
    p = w.op("Add", [p, w.op("Reshape", [c.wide(bp), w.ints([N, H], "bh")])]);
  }
  void m;
  return w.op("Transpose", [p], "perm: ints = [0, 2, 1, 3]");
}

/** MultiHeadAttention: separate 3-D, packed QKV/KV, or 4-D key/value; bias, past, masks. */
const multiHeadAttention: BodyBuilder = (args) => {
  if (args.hasInput(8) || args.hasInput(9))
    refuse(args, "past_sequence_length and cache_indirection");
  const elem = args.elemType(0);
  const qShape = args.shape(0);
  if (elem === undefined || !qShape) refuse(args, "the query's type and rank must be known");
  const b = new Body(args, "_ms_mha_");
  const c = new Core(b, args, elem);
  const w = b.w;
  const N = args.intValue("num_heads")!;
  const bias = args.hasInput(3) ? "bias" : undefined;
  let q: string;
  let k: string;
  let v: string;
  let head: number | undefined;
  if (qShape.length === 5) {
    const H = qShape[4];
    if (typeof H !== "number") refuse(args, "packed QKV needs a static head size");
    head = H;
    q = packedPart(c, "query", 0, 3, bias, N, H);
    k = packedPart(c, "query", 1, 3, bias, N, H);
    v = packedPart(c, "query", 2, 3, bias, N, H);
  } else {
    if (qShape.length !== 3) refuse(args, "the query must be 3-D or packed 5-D");
    const D = qShape[2];
    head = typeof D === "number" ? D / N : undefined;
    let qx = c.wide("query");
    const biasPart = (j: number, width: string | number) => {
      if (typeof width !== "number") refuse(args, "a bias needs static hidden sizes");
      const s = j === 0 ? 0 : j === 1 ? (D as number) : 2 * (D as number);
      return c.wide(
        w.op("Slice", ["bias", w.ints([s], "b0"), w.ints([s + width], "b1"), w.ints([0], "bax")]),
      );
    };
    if (bias) qx = w.op("Add", [qx, biasPart(0, D!)]);
    q = c.heads(qx, N);
    const kShape = args.shape(1);
    if (!args.hasInput(1) || !kShape) refuse(args, "key must be given, of known rank");
    if (kShape.length === 5) {
      const H = kShape[4];
      if (typeof H !== "number" || typeof D !== "number")
        refuse(args, "packed KV needs static sizes");
      const kvBias = bias
        ? w.op("Slice", [bias, w.ints([D], "kv0"), w.ints([3 * D], "kv1"), w.ints([0], "bax")])
        : undefined;
      k = packedPart(c, "key", 0, 2, kvBias, N, H);
      v = packedPart(c, "key", 1, 2, kvBias, N, H);
    } else if (kShape.length === 4) {
      k = c.wide("key");
      v = c.wide("value");
    } else {
      let kx = c.wide("key");
      let vx = c.wide("value");
      const vShape = args.shape(2);
      if (bias) {
        kx = w.op("Add", [kx, biasPart(1, D!)]);
        vx = w.op("Add", [vx, biasPart(2, vShape?.[2] ?? null!)]);
      }
      k = c.heads(kx, N);
      v = c.heads(vx, N);
    }
  }
  let offset = w.ints([0], "zero");
  if (args.hasInput(6) && args.hasInput(7)) {
    offset = c.dim("past_key", 2);
    k = w.op("Concat", [c.wide("past_key"), k], "axis: int = 2");
    v = w.op("Concat", [c.wide("past_value"), v], "axis: int = 2");
  }
  const back = (x: string, out: string) => {
    if (isHalf(elem)) w.op("Cast", [x], `to: int = ${elem}`, out);
    else w.op("Identity", [x], "", out);
  };
  if (args.hasOutput(1)) back(k, "present_key");
  if (args.hasOutput(2)) back(v, "present_value");
  const S = c.dim(q, 2);
  const T = c.dim(k, 2);
  const masks: string[] = [];
  if (args.hasInput(4))
    masks.push(
      keyMask(
        c,
        "key_padding_mask",
        args.shape(4),
        T,
        args.floatValue("mask_filter_value") ?? -10000,
      ),
    );
  if (args.hasInput(5)) masks.push(c.wide("attention_bias"));
  if (args.intValue("unidirectional") === 1) masks.push(causalMask(c, S, T, offset));
  const [o, p] = c.attend(q, k, v, scaleOf(args, head), masks);
  c.merge(o, "output");
  if (args.hasOutput(3)) back(p, "qk");
  return b.finish();
};

/**
 * Rotation of heads [B, N, L, H] (of `type`, cos and sin widened to it) by ai.onnx
 * RotaryEmbedding-23's body, positions [B, L].
 */
function rotary(
  b: Body,
  x: string,
  type: Type,
  cos: string,
  sin: string,
  pos: string,
  interleaved: number,
  dim: number,
): string {
  const out = b.w.fresh("rotated");
  const cs = type.kind === "tensor" ? type.elemType : undefined;
  const t = (elem?: number): Type | undefined =>
    elem === undefined ? undefined : { kind: "tensor", elemType: elem, shape: undefined };
  b.embed(
    "RotaryEmbedding",
    23,
    [x, cos, sin, pos],
    [type, t(cs), t(cs), t(I64)],
    [out],
    [attr("interleaved", interleaved, "INT"), attr("rotary_embedding_dim", dim, "INT")],
  );
  return out;
}

/** RotaryEmbedding (com.microsoft): ai.onnx RotaryEmbedding-23, position_ids of [1] as an offset. */
const rotaryEmbedding: BodyBuilder = (args) => {
  if (args.intValue("is_packed_batching") === 1) refuse(args, "is_packed_batching = 1");
  if ((args.floatValue("scale") ?? 1) !== 1) refuse(args, "scale other than 1");
  const shape = args.shape(0);
  if (!shape) refuse(args, "the input's rank is unknown");
  const b = new Body(args, "_ms_rotary_");
  const w = b.w;
  let pos = "position_ids";
  const pShape = args.shape(1);
  if (!pShape) refuse(args, "position_ids' shape is unknown");
  const seqAxis = shape.length === 4 ? 2 : 1;
  if (pShape.length === 1) {
    // an offset: positions offset, offset + 1, ... for every batch row
    const shapeOf = w.op("Shape", ["input"]);
    const S = w.op("Slice", [shapeOf, w.ints([seqAxis], "s0"), w.ints([seqAxis + 1], "s1")]);
    const start = w.op("Squeeze", [w.cast("position_ids", I64), w.ints([0], "ax0")]);
    const end = w.op("Add", [start, w.op("Squeeze", [S, w.ints([0], "ax0")])]);
    const r = w.op("Unsqueeze", [
      w.op("Range", [start, end, w.constant("int64 {1}", "one")]),
      w.ints([0], "ax0"),
    ]);
    const B = w.op("Slice", [shapeOf, w.ints([0], "b0"), w.ints([1], "b1")]);
    pos = w.op("Expand", [r, w.op("Concat", [B, S], "axis: int = 0")]);
  }
  const heads = args.intValue("num_heads") ?? 0;
  const rot = args.intValue("rotary_embedding_dim") ?? 0;
  const attrs = [
    attr("interleaved", args.intValue("interleaved") ?? 0, "INT"),
    attr("rotary_embedding_dim", rot, "INT"),
  ];
  if (shape.length === 3) {
    let n = heads;
    if (n <= 0) {
      const cosShape = args.shape(2);
      if (typeof shape[2] !== "number" || typeof cosShape?.[1] !== "number")
        refuse(args, "a 3-D input without num_heads needs static sizes");
      n = shape[2] / (2 * cosShape[1]);
    }
    attrs.push(attr("num_heads", n, "INT"));
  }
  b.embed(
    "RotaryEmbedding",
    23,
    ["input", "cos_cache", "sin_cache", pos],
    [
      args.ctx.inputTypes[0],
      args.ctx.inputTypes[2],
      args.ctx.inputTypes[3],
      { kind: "tensor", elemType: I64, shape: undefined },
    ],
    ["output"],
    attrs,
  );
  return b.finish();
};

/**
 * GroupQueryAttention's cache write as onnxruntime's CPU kernel does it: present[b, :, t] is
 * past[b, :, t] for t < off[b], the new x[b, :, t - off[b]] for off[b] <= t < off[b] + S, and 0
 * beyond, over T rows. Written as one Gather of rows (exact for every value, inf and NaN
 * included, where a 0/1 select by arithmetic would spread them): past and x stacked per batch row
 * (P + S rows each, then one zero row), the row picked by integer arithmetic on 0/1 masks of the
 * positions, which fold once the dims are fixed but for the per-row offsets.
 */
function writeCache(
  c: Core,
  past: string,
  x: string,
  off: string,
  S: string,
  T: string,
  heads: number,
  H: number,
): string {
  const w = c.w;
  const P = c.dim(past, 2);
  const L = w.op("Add", [P, S]);
  const width = heads * H;
  const stacked = w.op(
    "Transpose",
    [w.op("Concat", [past, x], "axis: int = 2")],
    "perm: ints = [0, 2, 1, 3]",
  );
  const zeroRow = w.op("Expand", [c.k(0, "zero"), w.ints([1, width], "row")]);
  const rows = w.op(
    "Concat",
    [w.op("Reshape", [stacked, w.ints([-1, width], "rows")]), zeroRow],
    "axis: int = 0",
  );
  const col = (v: string) => w.op("Unsqueeze", [v, w.ints([1], "ax1")]); // [n] -> [n, 1]
  const t = w.op("Unsqueeze", [c.iota(T), w.ints([0], "ax0")]); // [1, T]
  const o = col(off); // [B, 1]
  const mask = (keep: string) => w.cast(keep, I64);
  const inPast = mask(w.op("Less", [t, o]));
  const inNew = w.op("Sub", [mask(w.op("Less", [t, w.op("Add", [o, S])])), inPast]);
  const B = c.dim(x, 0);
  const base = w.op("Mul", [col(c.iota(B)), L]); // b (P + S): row b's first
  const none = w.op("Mul", [B, L]); // the zero row
  const fromPast = w.op("Sub", [w.op("Add", [base, t]), none]);
  const fromNew = w.op("Sub", [w.op("Add", [fromPast, P]), o]);
  const index = w.op("Add", [
    none,
    w.op("Add", [w.op("Mul", [inPast, fromPast]), w.op("Mul", [inNew, fromNew])]),
  ]); // [B, T]
  const picked = w.op("Gather", [rows, index], "axis: int = 0"); // [B, T, heads·H]
  const split = w.op("Reshape", [picked, w.ints([0, 0, heads, H], "kv_heads")]);
  return w.op("Transpose", [split], "perm: ints = [0, 2, 1, 3]");
}

/**
 * GroupQueryAttention: packed or separate Q, K, V; rotary at each row's positions (or
 * position_ids); K/V heads repeated for their groups; causal, keys past seqlens_k[b] left out,
 * local window, softcap. Without a past (a first prompt, total_sequence_length = S) present_key /
 * present_value are the rotated K and V. With one, as onnxruntime's kernel: a first prompt when S
 * equals total_sequence_length (the past unread), else row b's past length is seqlens_k[b] + 1 - S
 * and its new keys and values go there (writeCache), present over max(total_sequence_length,
 * past length) rows; query s of row b sees keys up to its past length + s.
 */
const groupQueryAttention: BodyBuilder = (args) => {
  const past = args.hasInput(3) && args.hasInput(4);
  if (args.hasInput(3) !== args.hasInput(4))
    refuse(args, "one of past_key / past_value without the other");
  for (const [i, what] of GQA_UNSUPPORTED_INPUTS) if (args.hasInput(i)) refuse(args, what);
  if (args.intValue("smooth_softmax") === 1) refuse(args, "smooth_softmax");
  if ((args.intValue("causal") ?? 1) !== 1) refuse(args, "causal = 0");
  if (args.hasOutput(3)) refuse(args, "output_qk");
  const elem = args.elemType(0);
  const qShape = args.shape(0);
  if (elem === undefined || !qShape || qShape.length !== 3)
    refuse(args, "the query must be 3-D of known type");
  const b = new Body(args, "_ms_gqa_");
  const c = new Core(b, args, elem);
  const w = b.w;
  const N = args.intValue("num_heads")!;
  const Nkv = args.intValue("kv_num_heads")!;
  const D = qShape[2];
  let qx: string;
  let kx: string;
  let vx: string;
  let H: number;
  if (!args.hasInput(1)) {
    if (typeof D !== "number") refuse(args, "packed QKV needs a static hidden size");
    H = D / (N + 2 * Nkv);
    [qx, kx, vx] = w.opN(
      "Split",
      ["query", w.ints([N * H, Nkv * H, Nkv * H], "sizes")],
      [w.fresh("q"), w.fresh("k"), w.fresh("v")],
      "axis: int = 2",
    ) as [string, string, string];
  } else {
    if (typeof D !== "number") refuse(args, "the head size needs a static hidden size");
    H = D / N;
    [qx, kx, vx] = ["query", "key", "value"];
  }
  let q = c.heads(c.wide(qx), N);
  let k = c.heads(c.wide(kx), Nkv);
  let v = c.heads(c.wide(vx), Nkv);
  const S = c.dim(q, 2);
  const lens = w.op("Reshape", [w.cast("seqlens_k", I64), w.ints([-1], "flat")]);
  const len = w.op("Add", [lens, w.constant("int64 {1}", "one")]);
  // row b's past length: 0 on a first prompt (S = total_sequence_length), else seqlens_k[b] + 1 - S
  let off: string | undefined;
  let total: string | undefined;
  if (past) {
    total = w.op("Reshape", [w.cast("total_sequence_length", I64), w.ints([1], "one_d")]);
    const later = w.cast(w.op("Not", [w.op("Equal", [S, total])]), I64);
    off = w.op("Mul", [w.op("Sub", [len, S]), later]);
  }
  const col = (x: string, axes: number[]) => w.op("Unsqueeze", [x, w.ints(axes, "axes")]);
  if (args.intValue("do_rotary") === 1) {
    if (!args.hasInput(7) || !args.hasInput(8))
      refuse(args, "do_rotary needs cos_cache and sin_cache");
    let pos: string;
    if (args.hasInput(9)) pos = "position_ids";
    else if (off) pos = w.op("Add", [col(off, [1]), col(c.iota(S), [0])]);
    else {
      const r = w.op("Unsqueeze", [c.iota(S), w.ints([0], "ax0")]);
      pos = w.op("Expand", [r, w.op("Concat", [c.dim("query", 0), S], "axis: int = 0")]);
    }
    const il = args.intValue("rotary_interleaved") ?? 0;
    const cosShape = args.shape(7);
    const dim = typeof cosShape?.[1] === "number" ? 2 * cosShape[1] : 0;
    const ft: Type = { kind: "tensor", elemType: c.t, shape: [null, null, null, H] };
    const cw = c.wide("cos_cache");
    const sw = c.wide("sin_cache");
    // onnxruntime writes the rotated Q and K in T
    q = c.rounded(rotary(b, q, ft, cw, sw, pos, il, dim));
    k = c.rounded(rotary(b, k, ft, cw, sw, pos, il, dim));
  }
  let T = S;
  if (off && total) {
    T = w.op("Max", [total, c.dim("past_key", 2)]);
    k = writeCache(c, c.wide("past_key"), k, off, S, T, Nkv, H);
    v = writeCache(c, c.wide("past_value"), v, off, S, T, Nkv, H);
  }
  const back = (x: string, out: string) => {
    if (isHalf(elem)) w.op("Cast", [x], `to: int = ${elem}`, out);
    else w.op("Identity", [x], "", out);
  };
  if (args.hasOutput(1)) back(k, "present_key");
  if (args.hasOutput(2)) back(v, "present_value");
  // K/V heads repeated for the N / Nkv query heads of each group
  const repeat = (x: string) => {
    if (N === Nkv) return x;
    const u = w.op("Unsqueeze", [x, w.ints([2], "ax2")]); // [B, Nkv, 1, T, H]
    const shape = w.op(
      "Concat",
      [c.dim(x, 0), w.ints([Nkv, N / Nkv], "groups"), c.dim(x, 2), c.dim(x, 3)],
      "axis: int = 0",
    );
    return w.op("Reshape", [w.op("Expand", [u, shape]), w.ints([0, N, -1, H], "merged")]);
  };
  const ninf = c.k(-Infinity, "ninf");
  const t = w.op("Unsqueeze", [c.iota(T), w.ints([0], "ax0")]); // [1, T]
  // query s of row b (at off[b] + s) sees keys t <= off[b] + s: [B or 1, S, 1]
  const at = off ? w.op("Add", [col(off, [1, 2]), col(c.iota(S), [0, 2])]) : col(c.iota(S), [1]);
  const masks = off
    ? [col(c.additive(w.op("Not", [w.op("Greater", [t, at])]), ninf), [1])]
    : [causalMask(c, S, T, w.ints([0], "zero"))];
  // keys at or past seqlens_k[b] + 1 are left out
  const inRow = w.op("Less", [t, w.op("Unsqueeze", [len, w.ints([1], "ax1")])]);
  masks.push(w.op("Unsqueeze", [c.additive(inRow, ninf), w.ints([1, 2], "ax12")]));
  const window = args.intValue("local_window_size") ?? -1;
  if (window >= 0) {
    const inWindow = w.op("Greater", [t, w.op("Sub", [at, w.ints([window], "win")])]);
    masks.push(off ? col(c.additive(inWindow, ninf), [1]) : c.additive(inWindow, ninf));
  }
  if (args.hasInput(10)) masks.push(c.wide("attention_bias"));
  const [o] = c.attend(
    q,
    repeat(k),
    repeat(v),
    scaleOf(args, H),
    masks,
    args.floatValue("softcap") ?? 0,
  );
  c.merge(o, "output");
  return b.finish();
};

export const contribAttentionBuilders: Record<string, BodyBuilder> = {
  ms_attention: attention,
  ms_multi_head_attention: multiHeadAttention,
  ms_group_query_attention: groupQueryAttention,
  ms_rotary_embedding: rotaryEmbedding,
};
