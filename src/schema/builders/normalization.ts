// Bodies of the normalisations and the softmax family: Softmax-13, LogSoftmax-13,
// LayerNormalization-17, GroupNormalization-18/21, RMSNormalization-23,
// MeanVarianceNormalization-9/13.
//
// Statistics are computed in the wider of the input's compute type (float for float16/bfloat16)
// and stash_type where the op has one, so a double input keeps double precision (the kernels
// compute in double); the variance is the mean of squared deviations (two passes), which cannot
// come out negative as E[x^2] - E[x]^2 can. The rank may be unknown: axes counted from `axis`
// are handled by flattening to 2-D, as ONNX's own bodies do.

import { OnnxError } from "../../errors.js";
import { DataType } from "../../ir/types.js";
import { scaleIsPerChannel } from "../facts.js";
import { TextWriter } from "./writer.js";
import { Compute, isHalf } from "./compute.js";
import { finish } from "./activations.js";
import type { BodyBuilder, BuildArgs } from "./context.js";

const RANK: Record<number, number> = {
  [DataType.DOUBLE]: 3,
  [DataType.FLOAT]: 2,
  [DataType.FLOAT16]: 1,
  [DataType.BFLOAT16]: 1,
};

/** The type to compute in: the wider of T's compute type and the stash type (a tie: stash). */
function statType(elem: number | undefined, stash: number): number {
  if (elem === undefined) return stash;
  const t = isHalf(elem) ? DataType.FLOAT : elem;
  return (RANK[t] ?? 0) > (RANK[stash] ?? 0) ? t : stash;
}

function stashOf(args: BuildArgs): number {
  const s = args.intValue("stash_type") ?? DataType.FLOAT;
  if (RANK[s] === undefined)
    throw new OnnxError("E_MODEL", `${args.label}: stash_type ${s} is not a float type`);
  return s;
}

/** Casts `value` (of type `from`) back to the type of formal `like` (known: `elem`). */
function castBack(
  w: TextWriter,
  value: string,
  from: number,
  elem: number | undefined,
  like: string,
  out: string,
): void {
  if (elem === from) w.op("Identity", [value], "", out);
  else if (elem === undefined) w.op("CastLike", [value, like], "", out);
  else w.op("Cast", [value], `to: int = ${elem}`, out);
}

function toType(w: TextWriter, value: string, elem: number | undefined, to: number): string {
  return elem === to ? value : w.cast(value, to);
}

function softmaxFamily(log: boolean): BodyBuilder {
  return (args) => {
    const w = new TextWriter(log ? "_logsoftmax_" : "_softmax_");
    const c = new Compute(w, args, "input");
    const x = c.in("input");
    const axes = w.ints([args.intValue("axis") ?? -1], "axes");
    const m = w.op("ReduceMax", [x, axes], "keepdims: int = 1");
    const shifted = w.op("Sub", [x, m]);
    const e = w.op("Exp", [shifted]);
    const sum = w.op("ReduceSum", [e, axes], "keepdims: int = 1");
    const y = c.target("output");
    if (log) w.op("Sub", [shifted, w.op("Log", [sum])], "", y);
    else w.op("Div", [e, sum], "", y);
    c.out(y, "output");
    return finish(w, args, 18);
  };
}

/**
 * x flattened to [outer, inner] at `axis`, in type `t`; mean and the centred values d over the
 * inner axis (keepdims), the variance as the mean of d^2.
 */
function moments(w: TextWriter, x2d: string, rms: boolean) {
  const one = w.ints([1], "axis1");
  if (rms) {
    const ms = w.op("ReduceMean", [w.op("Mul", [x2d, x2d]), one], "keepdims: int = 1");
    return { mean: undefined, d: x2d, variance: ms };
  }
  const mean = w.op("ReduceMean", [x2d, one], "keepdims: int = 1");
  const d = w.op("Sub", [x2d, mean]);
  const variance = w.op("ReduceMean", [w.op("Mul", [d, d]), one], "keepdims: int = 1");
  return { mean, d, variance };
}

function epsilonIn(w: TextWriter, t: number): string {
  const e = w.op("Constant", [], "value_float: float = @epsilon", w.fresh("epsilon"));
  return t === DataType.FLOAT ? e : w.cast(e, t);
}

/**
 * LayerNormalization-17 and RMSNormalization-23: normalise over the axes from `axis` on, then
 * scale (and bias) with numpy broadcasting against X.
 */
function axisNorm(rms: boolean): BodyBuilder {
  return (args) => {
    const w = new TextWriter(rms ? "_rmsnorm_" : "_layernorm_");
    const elem = args.elemType(0);
    const stash = stashOf(args);
    const t = statType(elem, stash);
    const axis = args.intValue("axis") ?? -1;
    const xShape = w.op("Shape", ["X"]);
    const x2d = toType(w, w.op("Flatten", ["X"], `axis: int = ${axis}`), elem, t);
    const { mean, d, variance } = moments(w, x2d, rms);
    const inv = w.op("Reciprocal", [w.op("Sqrt", [w.op("Add", [variance, epsilonIn(w, t)])])]);
    const normalized = w.op("Reshape", [w.op("Mul", [d, inv]), xShape]);
    if (rms) {
      // Y and scale have type V, which may differ from T.
      const v = args.elemType(1);
      const scale =
        v === undefined ? w.op("CastLike", ["scale", normalized]) : toType(w, "scale", v, t);
      castBack(w, w.op("Mul", [normalized, scale]), t, v, "scale", "Y");
      return finish(w, args, 18);
    }
    let y = w.op("Mul", [
      normalized,
      elem === undefined ? w.op("CastLike", ["Scale", normalized]) : toType(w, "Scale", elem, t),
    ]);
    if (args.hasInput(2))
      y = w.op("Add", [
        y,
        elem === undefined ? w.op("CastLike", ["B", normalized]) : toType(w, "B", elem, t),
      ]);
    castBack(w, y, t, elem, "X", "Y");
    if (args.hasOutput(1) || args.hasOutput(2)) {
      // Mean and InvStdDev: [d0, ..., d(axis-1), 1, ..., 1], in stash_type.
      const prefix = w.op("Slice", [xShape, w.ints([0], "zero"), w.ints([axis], "axis")]);
      const count =
        axis >= 0
          ? w.op("Sub", [w.op("Size", [xShape], "", undefined), w.ints([axis], "axis")])
          : w.ints([-axis], "count");
      const ones = w.op(
        "ConstantOfShape",
        [w.op("Reshape", [count, w.ints([1], "one")])],
        "value = int64[1] {1}",
      );
      const statShape = w.op("Concat", [prefix, ones], "axis: int = 0");
      if (args.hasOutput(1)) castBack(w, w.op("Reshape", [mean!, statShape]), t, stash, "", "Mean");
      if (args.hasOutput(2))
        castBack(w, w.op("Reshape", [inv, statShape]), t, stash, "", "InvStdDev");
    }
    return finish(w, args, 18);
  };
}

/**
 * GroupNormalization: X [N, C, ...] normalised over each group of C / num_groups channels
 * (with all spatial positions). Version 18 scales per group (scale, bias of shape [num_groups]),
 * version 21 per channel ([C]) and has stash_type.
 */
const groupNorm: BodyBuilder = (args) => {
  const w = new TextWriter("_groupnorm_");
  const elem = args.elemType(0);
  const perChannel = scaleIsPerChannel(args.op);
  const t = statType(
    elem,
    perChannel ? stashOf(args) : isHalf(elem) ? DataType.FLOAT : (elem ?? DataType.FLOAT),
  );
  const groups = args.intValue("num_groups");
  if (groups === undefined) throw new OnnxError("E_MODEL", `${args.label}: num_groups is required`);
  const xShape = w.op("Shape", ["X"]);
  const x = toType(w, "X", elem, t);
  const grouped = w.op("Reshape", [x, w.ints([0, groups, -1], "group_shape")]);
  const two = w.ints([2], "axis2");
  const mean = w.op("ReduceMean", [grouped, two], "keepdims: int = 1");
  const d = w.op("Sub", [grouped, mean]);
  const variance = w.op("ReduceMean", [w.op("Mul", [d, d]), two], "keepdims: int = 1");
  const inv = w.op("Reciprocal", [w.op("Sqrt", [w.op("Add", [variance, epsilonIn(w, t)])])]);
  let normalized = w.op("Mul", [d, inv]); // [N, G, C/G * spatial]
  const param = (name: string) => {
    const p = elem === undefined ? w.op("CastLike", [name, normalized]) : toType(w, name, elem, t);
    return w.op("Reshape", [p, w.ints([1, -1, 1], "param_shape")]);
  };
  // Per channel: back to X's shape, then [N, C, spatial] so that [1, C, 1] broadcasts.
  if (perChannel)
    normalized = w.op("Reshape", [
      w.op("Reshape", [normalized, xShape]),
      w.ints([0, 0, -1], "nc_shape"),
    ]);
  const y = w.op("Add", [w.op("Mul", [normalized, param("scale")]), param("bias")]);
  castBack(w, w.op("Reshape", [y, xShape]), t, elem, "X", "Y");
  return finish(w, args, 18);
};

/**
 * MeanVarianceNormalization: (X - mean) / (sqrt(var) + 1e-9) over `axes` (default [0, 2, 3]),
 * var = E[X^2] - E[X]^2 as the operator defines it, clamped at 0 against rounding.
 */
const mvn: BodyBuilder = (args) => {
  const w = new TextWriter("_mvn_");
  const c = new Compute(w, args, "X");
  const x = c.in("X");
  const axes = w.op("Constant", [], "value_ints: ints = @axes", w.fresh("axes"));
  const mean = w.op("ReduceMean", [x, axes], "keepdims: int = 1");
  const meanSq = w.op("ReduceMean", [w.op("Mul", [x, x]), axes], "keepdims: int = 1");
  const variance = w.op("Max", [w.op("Sub", [meanSq, w.op("Mul", [mean, mean])]), c.k(0, "zero")]);
  const std = w.op("Add", [w.op("Sqrt", [variance]), c.k(1e-9, "epsilon")]);
  const y = c.target("Y");
  w.op("Div", [w.op("Sub", [x, mean]), std], "", y);
  c.out(y, "Y");
  return finish(w, args, 18);
};

export const normalizationBuilders: Record<string, BodyBuilder> = {
  softmax: softmaxFamily(false),
  log_softmax: softmaxFamily(true),
  layer_normalization: axisNorm(false),
  rms_normalization: axisNorm(true),
  group_normalization: groupNorm,
  mean_variance_normalization: mvn,
};
