// Bodies of AffineGrid-20, CenterCropPad-18, RotaryEmbedding-23 and CausalConvWithState-27.

import { OnnxError, UnknownTypeError } from "../../errors.js";
import { DataType } from "../../ir/types.js";
import { TextWriter } from "./writer.js";
import { Compute } from "./compute.js";
import { finish } from "./activations.js";
import type { BodyBuilder } from "./context.js";

/**
 * AffineGrid: the grid of normalised positions of `size` ([N, C, H, W] or [N, C, D, H, W]),
 * each as (x, y[, z], 1), times theta transposed. Position i of a dimension of length n is
 * -1 + (2i + 1) / n with align_corners = 0 and -1 + 2i / (n - 1) with align_corners = 1 (-1 when
 * n = 1; ONNX's own body divides by zero there for H and W). Needs the length of `size` (4 or 5).
 */
const affineGrid: BodyBuilder = (args) => {
  const w = new TextWriter("_affinegrid_");
  const sizeShape = args.shape(1);
  const len = sizeShape?.length === 1 ? sizeShape[0] : undefined;
  if (len !== 4 && len !== 5)
    throw new OnnxError(
      "E_UNSUPPORTED",
      `the body of ${args.label} needs the length of 'size' (4 or 5), which is not known statically`,
    );
  const c = new Compute(w, args, "theta");
  if (c.type === undefined)
    throw new UnknownTypeError(`the body of ${args.label} needs the type of 'theta'`);
  const t = c.type;
  const align = (args.intValue("align_corners") ?? 0) !== 0;
  const k = len - 2; // spatial rank
  // Spatial dims in the order D?, H, W; coordinates are listed as x (W), y (H), z (D).
  const dims = Array.from({ length: k }, (_, j) =>
    w.op("Slice", ["size", w.ints([2 + j], "start"), w.ints([3 + j], "end")]),
  );
  const one = c.k(1, "one");
  const coords = dims.map((n) => {
    const nf = w.cast(n, t);
    const idx = w.op(
      "CumSum",
      [
        w.op("ConstantOfShape", [n], `value = ${tensorLiteral(t, 1)}`),
        w.constant("int64 {0}", "axis"),
      ],
      "exclusive: int = 1",
    );
    let step: string;
    let start: string;
    if (align) {
      const isOne = w.op("Equal", [nf, one]);
      step = w.op("Where", [
        isOne,
        c.k(0, "zero"),
        w.op("Div", [c.k(2, "two"), w.op("Sub", [nf, one])]),
      ]);
      start = c.k(-1, "minus_one");
    } else {
      step = w.op("Div", [c.k(2, "two"), nf]);
      start = w.op("Add", [c.k(-1, "minus_one"), w.op("Div", [one, nf])]);
    }
    return w.op("Add", [start, w.op("Mul", [idx, step])]); // [n]
  });
  // Broadcast each coordinate over the spatial grid, as [..., 1] columns: x varies along the last
  // spatial axis, y along the one before, z along the first.
  const gridShape = w.op("Concat", dims, "axis: int = 0");
  const zeros = w.op("ConstantOfShape", [gridShape], `value = ${tensorLiteral(t, 0)}`);
  const columns: string[] = [];
  for (let j = k - 1; j >= 0; j--) {
    const shape = Array.from({ length: k }, (_, a) => (a === j ? -1 : 1));
    const b = w.op("Add", [zeros, w.op("Reshape", [coords[j]!, w.ints(shape, "coord_shape")])]);
    columns.push(w.op("Unsqueeze", [b, w.ints([-1], "last")]));
  }
  columns.push(w.op("Unsqueeze", [w.op("Add", [zeros, one]), w.ints([-1], "last")]));
  const base = w.op("Reshape", [
    w.op("Concat", columns, "axis: int = -1"),
    w.ints([-1, k + 1], "rows"),
  ]);
  const thetaT = w.op("Transpose", [c.in("theta")], "perm: ints = [0, 2, 1]"); // [N, k+1, k]
  const flat = w.op("MatMul", [base, thetaT]); // [N, prod(spatial), k]
  const n = w.op("Slice", ["size", w.ints([0], "start"), w.ints([1], "end")]);
  const outShape = w.op("Concat", [n, gridShape, w.ints([k], "k")], "axis: int = 0");
  const y = c.target("grid");
  w.op("Reshape", [flat, outShape], "", y);
  c.out(y, "grid");
  return finish(w, args, 18);
};

function tensorLiteral(t: number, v: number): string {
  const names: Record<number, string> = {
    [DataType.FLOAT]: "float",
    [DataType.DOUBLE]: "double",
    [DataType.FLOAT16]: "float16",
    [DataType.BFLOAT16]: "bfloat16",
  };
  return `${names[t]}[1] {${v.toFixed(1)}}`;
}

/**
 * CenterCropPad: along each axis (all, or `axes`), pad with zeros to at least the target length,
 * floor(diff / 2) before and the rest after, then slice a window of the target length starting
 * at floor(excess / 2). No arithmetic on the data: valid for every type.
 */
const centerCropPad: BodyBuilder = (args) => {
  const w = new TextWriter("_centercroppad_");
  const hasAxes = args.attribute("axes") !== undefined;
  const axes = hasAxes
    ? w.op("Constant", [], "value_ints: ints = @axes", w.fresh("axes"))
    : undefined;
  const dimsOf = (x: string) => {
    const s = w.op("Shape", [x]);
    return axes ? w.op("Gather", [s, axes]) : s;
  };
  const target = args.elemType(1) === DataType.INT64 ? "shape" : w.cast("shape", DataType.INT64);
  const two = w.ints([2], "two");
  const have = dimsOf("input_data");
  const amount = w.op("Sub", [w.op("Max", [have, target]), have]);
  const before = w.op("Div", [amount, two]);
  const pads = w.op("Concat", [before, w.op("Sub", [amount, before])], "axis: int = 0");
  const padded = w.op("Pad", axes ? ["input_data", pads, "", axes] : ["input_data", pads]);
  const start = w.op("Div", [w.op("Sub", [dimsOf(padded), target]), two]);
  const end = w.op("Add", [start, target]);
  w.op("Slice", axes ? [padded, start, end, axes] : [padded, start, end], "", "output_data");
  return finish(w, args, 18);
};

/**
 * RotaryEmbedding: X as [batch, seq, heads, head_size] (a 4-D X is [batch, heads, seq, head_size],
 * a 3-D one is split into num_heads); the first rotary_embedding_dim (default: all) of each head
 * rotated by the cos/sin caches (gathered at position_ids when given): halves (x1, x2) or, with
 * interleaved = 1, even and odd elements, become (cos x1 - sin x2, sin x1 + cos x2). Needs X's rank.
 */
const rotaryEmbedding: BodyBuilder = (args) => {
  const w = new TextWriter("_rope_");
  const rank = args.shape(0)?.length;
  if (rank !== 3 && rank !== 4)
    throw new OnnxError("E_UNSUPPORTED", `the body of ${args.label} needs X of known rank 3 or 4`);
  const c = new Compute(w, args, "X");
  const interleaved = (args.intValue("interleaved") ?? 0) !== 0;
  const rotaryDim = args.intValue("rotary_embedding_dim") ?? 0;
  const x = c.in("X");
  let xin: string;
  if (rank === 4) xin = w.op("Transpose", [x], "perm: ints = [0, 2, 1, 3]");
  else {
    const heads = args.intValue("num_heads") ?? 0;
    if (heads <= 0) throw new OnnxError("E_MODEL", `${args.label}: a 3-D X needs num_heads > 0`);
    xin = w.op("Reshape", [x, w.ints([0, 0, heads, -1], "heads_shape")]);
  }
  const headSize = w.op("Shape", [xin], "start: int = 3, end: int = 4");
  const dim = rotaryDim > 0 ? w.ints([rotaryDim], "rotary_dim") : headSize;
  const [rot, rest] = w.opN(
    "Split",
    [xin, w.op("Concat", [dim, w.op("Sub", [headSize, dim])], "axis: int = 0")],
    [w.fresh("rotate"), w.fresh("keep")],
    "axis: int = -1",
  ) as [string, string];
  const two = w.ints([2], "two");
  const half = w.op("Div", [dim, two]);
  const zero = w.ints([0], "zero");
  const cache = (name: string) => {
    const g = args.hasInput(3) ? w.op("Gather", [c.in(name), "position_ids"]) : c.in(name);
    return w.op("Unsqueeze", [w.op("Slice", [g, zero, half, two]), two]); // [batch, seq, 1, dim/2]
  };
  const cos = cache("cos_cache");
  const sin = cache("sin_cache");
  let x1: string;
  let x2: string;
  if (interleaved) {
    const one = w.ints([1], "one");
    const last = w.ints([3], "axis3");
    x1 = w.op("Slice", [rot, zero, dim, last, two]);
    x2 = w.op("Slice", [rot, one, w.op("Add", [dim, one]), last, two]);
  } else {
    [x1, x2] = w.opN(
      "Split",
      [rot, w.op("Concat", [half, half], "axis: int = 0")],
      [w.fresh("x1"), w.fresh("x2")],
      "axis: int = -1",
    ) as [string, string];
  }
  const real = w.op("Sub", [w.op("Mul", [cos, x1]), w.op("Mul", [sin, x2])]);
  const imag = w.op("Add", [w.op("Mul", [sin, x1]), w.op("Mul", [cos, x2])]);
  let rotated: string;
  if (interleaved) {
    const last = w.ints([-1], "last");
    const pairs = w.op(
      "Concat",
      [w.op("Unsqueeze", [real, last]), w.op("Unsqueeze", [imag, last])],
      "axis: int = -1",
    );
    rotated = w.op("Reshape", [pairs, w.op("Shape", [rot])]);
  } else rotated = w.op("Concat", [real, imag], "axis: int = -1");
  let joined = w.op("Concat", [rotated, rest], "axis: int = -1");
  if (rank === 4) joined = w.op("Transpose", [joined], "perm: ints = [0, 2, 1, 3]");
  const y = c.target("Y");
  w.op("Reshape", [joined, w.op("Shape", ["X"])], "", y);
  c.out(y, "Y");
  return finish(w, args, 18);
};

/**
 * CausalConvWithState: input (B, C, L) prefixed along the length with past_state (or k - 1
 * zeros), convolved per channel with weight (C, 1, k) (Conv with group = C, no padding) plus
 * bias; activation silu/swish multiplies by the sigmoid. present_state is the last k - 1
 * positions of the prefixed input. Needs the channel count statically (input's or weight's).
 */
const causalConvWithState: BodyBuilder = (args) => {
  const w = new TextWriter("_causalconv_");
  const channels = [args.shape(0)?.[1], args.shape(1)?.[0]].find(
    (d): d is number => typeof d === "number",
  );
  if (channels === undefined)
    throw new OnnxError(
      "E_UNSUPPORTED",
      `the body of ${args.label} needs the channel count (input's dimension 1 or weight's dimension 0)`,
    );
  const activation = args.stringValue("activation") ?? "none";
  if (activation !== "none" && activation !== "silu" && activation !== "swish")
    throw new OnnxError(
      "E_MODEL",
      `${args.label}: activation must be none, silu or swish, not '${activation}'`,
    );
  const c = new Compute(w, args, "input");
  const km1 = w.op("Sub", [
    w.op("Shape", ["weight"], "start: int = 2, end: int = 3"),
    w.ints([1], "one"),
  ]);
  let padded: string;
  if (args.hasInput(3)) padded = w.op("Concat", ["past_state", "input"], "axis: int = 2");
  else {
    const shape = w.op(
      "Concat",
      [w.op("Shape", ["input"], "start: int = 0, end: int = 2"), km1],
      "axis: int = 0",
    );
    const zeros = w.op("CastLike", [w.op("ConstantOfShape", [shape]), "input"]);
    padded = w.op("Concat", [zeros, "input"], "axis: int = 2");
  }
  const inputs = [c.in(padded), c.in("weight")];
  if (args.hasInput(2)) inputs.push(c.in("bias"));
  let y = w.op("Conv", inputs, `group: int = ${channels}`);
  if (activation !== "none") y = w.op("Mul", [y, w.op("Sigmoid", [y])]);
  const out = c.target("output");
  w.op("Identity", [y], "", out);
  c.out(out, "output");
  const length = w.op("Shape", [padded], "start: int = 2, end: int = 3");
  w.op(
    "Slice",
    [padded, w.op("Sub", [length, km1]), length, w.ints([2], "axis2")],
    "",
    "present_state",
  );
  return finish(w, args, 18);
};

export const spatialBuilders: Record<string, BodyBuilder> = {
  affine_grid: affineGrid,
  center_crop_pad: centerCropPad,
  rotary_embedding: rotaryEmbedding,
  causal_conv_with_state: causalConvWithState,
};
