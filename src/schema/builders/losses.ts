// Bodies of NegativeLogLikelihoodLoss (12, 13, 22) and SoftmaxCrossEntropyLoss (12, 13).
//
// NLL: loss[n, d...] = -input[n, target[n, d...], d...] * weight[target] (weight 1 when absent),
// 0 where target == ignore_index; reduction none / sum / mean, where mean divides by the sum of
// the weights that apply. SoftmaxCrossEntropyLoss is NLL of LogSoftmax over axis 1 (the body
// calls both ops, which are functions themselves and expand in turn).

import { OnnxError } from "../../errors.js";
import { DataType } from "../../ir/types.js";
import { TextWriter } from "./writer.js";
import { Compute } from "./compute.js";
import { finish } from "./activations.js";
import type { BodyBuilder, BuildArgs } from "./context.js";

function reductionOf(args: BuildArgs): string {
  const r = args.stringValue("reduction") ?? "mean";
  if (r !== "none" && r !== "sum" && r !== "mean")
    throw new OnnxError(
      "E_MODEL",
      `${args.label}: reduction must be none, sum or mean, not '${r}'`,
    );
  return r;
}

const nll: BodyBuilder = (args) => {
  const w = new TextWriter("_nll_");
  const c = new Compute(w, args, "input");
  const x = c.in("input");
  const reduction = reductionOf(args);
  const hasWeight = args.hasInput(2);
  const ignoring = args.attribute("ignore_index") !== undefined;
  const axis1 = w.ints([1], "axis1");
  let target = w.op("Unsqueeze", ["target", axis1]); // [N, 1, d...]
  let mask: string | undefined;
  if (ignoring) {
    const ignore = w.op("Constant", [], "value_int: int = @ignore_index", w.fresh("ignore_index"));
    mask = w.op("Equal", [w.cast(target, DataType.INT64), ignore]);
    // An ignored target may be out of range: gather class 0 there instead, then zero it.
    target = w.op("Where", [mask, w.op("Sub", [target, target]), target]);
  }
  let loss = w.op("Squeeze", [
    w.op("Neg", [w.op("GatherElements", [x, target], "axis: int = 1")]),
    axis1,
  ]);
  let weight: string | undefined;
  const zero = () => c.k(0, "zero");
  if (hasWeight) weight = w.op("Gather", [c.in("weight"), w.op("Squeeze", [target, axis1])]);
  if (mask) {
    const keep = w.op("Squeeze", [mask, axis1]);
    weight = w.op("Where", [keep, zero(), weight ?? c.k(1, "one")]);
  }
  const y = c.target("loss");
  const sum = (v: string, out?: string) => w.op("ReduceSum", [v], "keepdims: int = 0", out);
  if (weight) loss = w.op("Mul", [loss, weight], "", reduction === "none" ? y : undefined);
  if (reduction === "none") {
    if (!weight) w.op("Identity", [loss], "", y);
  } else if (reduction === "sum") sum(loss, y);
  else if (weight) w.op("Div", [sum(loss), sum(weight)], "", y);
  else w.op("ReduceMean", [loss], "keepdims: int = 0", y);
  c.out(y, "loss");
  return finish(w, args, 18);
};

const sce: BodyBuilder = (args) => {
  const w = new TextWriter("_sce_");
  const c = new Compute(w, args, "scores");
  const logp = w.op("LogSoftmax", [c.in("scores")], "axis: int = 1");
  const inputs = [logp, "labels"];
  if (args.hasInput(2)) inputs.push(c.in("weights"));
  const y = c.target("output");
  w.op(
    "NegativeLogLikelihoodLoss",
    inputs,
    "reduction: string = @reduction, ignore_index: int = @ignore_index",
    y,
  );
  c.out(y, "output");
  if (args.hasOutput(1)) c.out(logp, "log_prob");
  return finish(w, args, 18);
};

export const lossBuilders: Record<string, BodyBuilder> = {
  negative_log_likelihood_loss: nll,
  softmax_cross_entropy_loss: sce,
};
