// Bodies of Range (11, 27), the window functions (HannWindow, HammingWindow, BlackmanWindow-17),
// CastLike (15-25) and Bernoulli (15, 22).

import { OnnxError, UnknownTypeError } from "../../errors.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { TextWriter } from "./writer.js";
import { FLOAT_TYPES, isHalf } from "./compute.js";
import { finish } from "./activations.js";
import type { BodyBuilder } from "./context.js";

/**
 * Range: n = max(ceil((limit - start) / delta), 0) elements, made by the Loop of the operator's
 * definition: each step emits the running value and adds delta (so float results are the
 * accumulated sums, as onnxruntime gives). The count is computed in double. Version 27 computes
 * float16/bfloat16 in stash_type (float or double) and casts back once.
 */
const range: BodyBuilder = (args) => {
  const w = new TextWriter("_range_");
  const elem = args.elemType(0);
  if (elem === undefined)
    throw new UnknownTypeError(`the body of ${args.label} needs the type of 'start'`);
  let t = elem;
  if (isHalf(elem)) {
    t = args.intValue("stash_type") ?? DataType.FLOAT;
    if (t !== DataType.FLOAT && t !== DataType.DOUBLE)
      throw new OnnxError(
        "E_MODEL",
        `${args.label}: stash_type must be 1 (float) or 11 (double), not ${t}`,
      );
  }
  const [start, limit, delta] = ["start", "limit", "delta"].map((f) =>
    t === elem ? f : w.cast(f, t),
  ) as [string, string, string];
  const integer = !FLOAT_TYPES.includes(elem);
  const span = integer
    ? w.cast(w.op("Sub", [limit, start]), DataType.DOUBLE)
    : w.op("Sub", [w.cast(limit, DataType.DOUBLE), w.cast(start, DataType.DOUBLE)]);
  const steps = w.op("Ceil", [w.op("Div", [span, w.cast(delta, DataType.DOUBLE)])]);
  // delta = 0 gives an infinite or NaN count, which no Cast to int64 defines: no elements then
  // (the kernel reports an error, which a body cannot).
  const zero = w.scalar(DataType.DOUBLE, 0, "zero");
  const finite = w.op("Not", [w.op("Or", [w.op("IsInf", [steps]), w.op("IsNaN", [steps])])]);
  const count = w.op("Where", [finite, w.op("Max", [steps, zero]), zero]);
  const n = w.cast(count, DataType.INT64);
  const b = new TextWriter("_range_step_");
  b.op("Identity", ["_range_cond_in"], "", "_range_cond_out");
  b.op("Add", ["_range_prev", delta], "", "_range_next");
  b.op("Identity", ["_range_prev"], "", "_range_value");
  const tn = dtypeName(t);
  const body = b.graph(
    "range_step",
    ["int64 _range_i", "bool _range_cond_in", `${tn} _range_prev`],
    ["bool _range_cond_out", `${tn} _range_next`, `${tn} _range_value`],
  );
  const out = t === elem ? "output" : w.fresh("values");
  w.opN("Loop", [n, "", start], [w.fresh("last"), out], `body: graph = ${body}`);
  if (out !== "output") w.op("Cast", [out], `to: int = ${elem}`, "output");
  return finish(w, args, 14); // Add-14 and Sub-14 take int16
};

/**
 * Cosine-sum windows: w[k] = a0 - a1 cos(2 pi k / N) + a2 cos(4 pi k / N), k = 0 .. size-1,
 * N = size when periodic, size - 1 otherwise; computed in double and cast to output_datatype.
 */
function cosineWindow(a0: number, a1: number, a2: number): BodyBuilder {
  return (args) => {
    const w = new TextWriter("_window_");
    const D = DataType.DOUBLE;
    const one = w.scalar(D, 1, "one");
    const size = w.cast("size", D);
    const periodic = w.cast(
      w.cast(
        w.op("Constant", [], "value_int: int = @periodic", w.fresh("periodic")),
        DataType.BOOL,
      ),
      D,
    );
    // N = size - 1 + periodic
    const denom = w.op("Add", [w.op("Sub", [size, one]), periodic]);
    const count = w.op("Reshape", [w.cast("size", DataType.INT64), w.ints([1], "one_dim")]);
    const ones = w.op("ConstantOfShape", [count], "value = double[1] {1.0}");
    const k = w.op("CumSum", [ones, w.constant("int64 {0}", "axis")], "exclusive: int = 1");
    const angle = w.op("Mul", [k, w.op("Div", [w.scalar(D, 2 * Math.PI, "two_pi"), denom])]);
    let v = w.op("Sub", [
      w.scalar(D, a0, "a0"),
      w.op("Mul", [w.scalar(D, a1, "a1"), w.op("Cos", [angle])]),
    ]);
    if (a2 !== 0) {
      const cos2 = w.op("Cos", [w.op("Mul", [angle, w.scalar(D, 2, "two")])]);
      v = w.op("Add", [v, w.op("Mul", [w.scalar(D, a2, "a2"), cos2])]);
    }
    w.op("Cast", [v], "to: int = @output_datatype", "output");
    return finish(w, args, 18);
  };
}

/** CastLike: Cast to the element type of target_type (which must be known), forwarding saturate and round_mode. */
const castLike: BodyBuilder = (args) => {
  const w = new TextWriter("_castlike_");
  const to = args.elemType(1);
  if (to === undefined)
    throw new UnknownTypeError(`the body of ${args.label} needs the element type of 'target_type'`);
  const attrs = [`to: int = ${to}`];
  if (args.op.attributes.some((a) => a.name === "saturate"))
    attrs.push("saturate: int = @saturate");
  if (args.op.attributes.some((a) => a.name === "round_mode"))
    attrs.push("round_mode: string = @round_mode");
  w.op("Cast", ["input"], attrs.join(", "), "output");
  return finish(w, args, args.op.since);
};

/**
 * Bernoulli: 1 where a uniform sample in [0, 1) is below the input probability, else 0, as
 * dtype (default: the input's type). (ONNX's own body compares the other way round, which gives
 * 1 with probability 1 - p.) Half inputs draw the sample in float.
 */
const bernoulli: BodyBuilder = (args) => {
  const w = new TextWriter("_bernoulli_");
  const elem = args.elemType(0);
  if (elem === undefined)
    throw new UnknownTypeError(`the body of ${args.label} needs the type of 'input'`);
  const t = isHalf(elem) ? DataType.FLOAT : elem;
  const p = t === elem ? "input" : w.cast("input", t);
  const sample = w.op(
    "RandomUniformLike",
    [p],
    `dtype: int = ${t}, high: float = 1.0, low: float = 0.0, seed: float = @seed`,
  );
  const dtype = args.intValue("dtype") ?? elem;
  w.op("Cast", [w.op("Less", [sample, p])], `to: int = ${dtype}`, "output");
  return finish(w, args, 15);
};

export const generatorBuilders: Record<string, BodyBuilder> = {
  range,
  hann_window: cosineWindow(0.5, 0.5, 0),
  hamming_window: cosineWindow(25 / 46, 21 / 46, 0),
  blackman_window: cosineWindow(0.42, 0.5, 0.08),
  cast_like: castLike,
  bernoulli,
};
