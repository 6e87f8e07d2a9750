// Bodies of the elementwise function ops: activations (Elu, Celu, Selu, HardSigmoid, HardSwish,
// LeakyRelu, PRelu, Relu, ThresholdedRelu, Shrink, Softplus, Softsign, Mish, Swish, SwiGLU,
// Gelu) and Clip. Each follows the formula of the operator's page, computed as compute.ts says.
// Where ONNX's own body loses accuracy the formula does not (Softplus as log(exp(x) + 1)
// overflows to inf for x > 88 in float), the body computes the same formula stably.

import { DataType } from "../../ir/types.js";
import { OnnxError } from "../../errors.js";
import { TextWriter } from "./writer.js";
import { bodyOpset, Compute, FLOAT_TYPES, softplus } from "./compute.js";
import type { BodyBuilder, BuildArgs, FunctionBody } from "./context.js";

type Emit = (c: Compute, x: string, y: string) => void;

/**
 * A body over one input of type T (formal `input`) and one output (formal `output`); `emit`
 * writes the computation from x (in the compute type) into y.
 */
function elementwise(input: string, output: string, emit: Emit, base = 13): BodyBuilder {
  return (args) => {
    const w = new TextWriter(`_${args.op.name.toLowerCase()}_`);
    const c = new Compute(w, args, input);
    const y = c.target(output);
    emit(c, c.in(input), y);
    c.out(y, output);
    return finish(w, args, bodyOpset(c, base));
  };
}

export function finish(w: TextWriter, args: BuildArgs, opset: number): FunctionBody {
  return { nodes: w.nodes(`${args.label} body`), opsetImports: [{ domain: "", version: opset }] };
}

const elu: Emit = (c, x, y) => {
  const w = c.w;
  const neg = w.op("Mul", [c.attr("alpha"), w.op("Sub", [w.op("Exp", [x]), c.k(1, "one")])]);
  w.op("Where", [w.op("Less", [x, c.k(0, "zero")]), neg, x], "", y);
};

const celu: Emit = (c, x, y) => {
  // alpha * Elu<alpha = 1>(x / alpha) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
  const w = c.w;
  const alpha = c.attr("alpha");
  const inner = w.op("Elu", [w.op("Div", [x, alpha])], "alpha: float = 1.0");
  w.op("Mul", [alpha, inner], "", y);
};

const selu: Emit = (c, x, y) => {
  const w = c.w;
  const alpha = c.attr("alpha");
  const gamma = c.attr("gamma");
  const neg = w.op("Mul", [gamma, w.op("Sub", [w.op("Mul", [alpha, w.op("Exp", [x])]), alpha])]);
  const pos = w.op("Mul", [gamma, x]);
  w.op("Where", [w.op("Greater", [x, c.k(0, "zero")]), pos, neg], "", y);
};

function hardSigmoid(c: Compute, x: string, alpha: string, beta: string, y?: string): string {
  const w = c.w;
  const lin = w.op("Add", [w.op("Mul", [x, alpha]), beta]);
  return w.op("Max", [w.op("Min", [lin, c.k(1, "one")]), c.k(0, "zero")], "", y);
}

const thresholdedRelu: Emit = (c, x, y) => {
  c.w.op("Where", [c.w.op("Less", [c.attr("alpha"), x]), x, c.k(0, "zero")], "", y);
};

const leakyRelu: Emit = (c, x, y) => {
  const w = c.w;
  w.op("Where", [w.op("Less", [x, c.k(0, "zero")]), w.op("Mul", [c.attr("alpha"), x]), x], "", y);
};

const softsign: Emit = (c, x, y) => {
  const w = c.w;
  w.op("Div", [x, w.op("Add", [c.k(1, "one"), w.op("Abs", [x])])], "", y);
};

const mish: Emit = (c, x, y) => {
  c.w.op("Mul", [x, c.w.op("Tanh", [softplus(c, x)])], "", y);
};

const swish: Emit = (c, x, y) => {
  const w = c.w;
  w.op("Mul", [x, w.op("Sigmoid", [w.op("Mul", [c.attr("alpha"), x])])], "", y);
};

const gelu: BodyBuilder = (args) =>
  elementwise("X", "Y", (c, x, y) => {
    const w = c.w;
    const approximate = args.stringValue("approximate") ?? "none";
    let phi: string; // 2 * Phi(x), the doubled normal CDF or its tanh approximation
    if (approximate === "tanh") {
      const cube = w.op("Mul", [w.op("Mul", [x, x]), x]);
      const inner = w.op("Add", [x, w.op("Mul", [c.k(0.044715, "c0"), cube])]);
      const t = w.op("Tanh", [w.op("Mul", [c.k(Math.sqrt(2 / Math.PI), "sqrt_2_pi"), inner])]);
      phi = w.op("Add", [c.k(1, "one"), t]);
    } else if (approximate === "none") {
      const erf = w.op("Erf", [w.op("Mul", [x, c.k(Math.SQRT1_2, "sqrt_half")])]);
      phi = w.op("Add", [c.k(1, "one"), erf]);
    } else
      throw new OnnxError(
        "E_MODEL",
        `${args.label}: approximate must be 'none' or 'tanh', not '${approximate}'`,
      );
    w.op("Mul", [w.op("Mul", [c.k(0.5, "half"), x]), phi], "", y);
  })(args);

/** PRelu: Where(X < 0, slope * X, X); slope broadcasts to X. Integer types stay integers. */
const prelu: BodyBuilder = (args) => {
  const w = new TextWriter("_prelu_");
  const c = new Compute(w, args, "X");
  const x = c.in("X");
  const y = c.target("Y");
  const neg = w.op("Mul", [c.in("slope"), x]);
  w.op("Where", [w.op("Less", [x, c.k(0, "zero")]), neg, x], "", y);
  c.out(y, "Y");
  return finish(w, args, bodyOpset(c, 13));
};

/**
 * Shrink: x + bias below -lambd, x - bias above lambd, else 0. The attributes are floats; integer
 * inputs are compared and shifted in double and the result truncated back toward zero.
 */
const shrink: BodyBuilder = (args) => {
  const w = new TextWriter("_shrink_");
  const elem = args.elemType(0);
  const integer = elem !== undefined && !FLOAT_TYPES.includes(elem);
  const c = new Compute(w, args, "input", 0, DataType.FLOAT);
  let x = c.in("input");
  let k = (name: string) => c.attr(name);
  let zero = () => c.k(0, "zero");
  if (integer) {
    x = w.cast("input", DataType.DOUBLE);
    k = (name) =>
      w.cast(w.op("Constant", [], `value_float: float = @${name}`, w.fresh(name)), DataType.DOUBLE);
    zero = () => w.scalar(DataType.DOUBLE, 0, "zero");
  }
  const lambd = k("lambd");
  const bias = k("bias");
  const above = w.op("Where", [w.op("Less", [lambd, x]), w.op("Sub", [x, bias]), zero()]);
  const below = w.op("Less", [x, w.op("Neg", [lambd])]);
  if (integer) {
    const r = w.op("Where", [below, w.op("Add", [x, bias]), above]);
    w.op("Cast", [r], `to: int = ${elem}`, "output");
  } else {
    const y = c.target("output");
    w.op("Where", [below, w.op("Add", [x, bias]), above], "", y);
    c.out(y, "output");
  }
  return finish(w, args, bodyOpset(c, 13));
};

/** SwiGLU: Swish_alpha(A) * B = A * Sigmoid(alpha * A) * B. */
const swiglu: BodyBuilder = (args) => {
  const w = new TextWriter("_swiglu_");
  const c = new Compute(w, args, "A");
  const a = c.in("A");
  const y = c.target("Y");
  const gate = w.op("Mul", [a, w.op("Sigmoid", [w.op("Mul", [c.attr("alpha"), a])])]);
  w.op("Mul", [gate, c.in("B")], "", y);
  c.out(y, "Y");
  return finish(w, args, bodyOpset(c, 13));
};

/**
 * Clip-13: the omitted bounds do nothing; min applies before max (so min > max gives max, as
 * the operator says). Comparisons are exact in every type: no casts.
 */
const clip: BodyBuilder = (args) => {
  const w = new TextWriter("_clip_");
  let v = "input";
  const hasMin = args.hasInput(1);
  const hasMax = args.hasInput(2);
  if (!hasMin && !hasMax) w.op("Identity", [v], "", "output");
  if (hasMin)
    v = w.op("Where", [w.op("Less", [v, "min"]), "min", v], "", hasMax ? undefined : "output");
  if (hasMax) w.op("Where", [w.op("Less", ["max", v]), "max", v], "", "output");
  return finish(w, args, 16); // Where-16 takes bfloat16
};

export const activationBuilders: Record<string, BodyBuilder> = {
  elu: elementwise("X", "Y", elu),
  celu: elementwise("X", "Y", celu),
  selu: elementwise("X", "Y", selu),
  hard_sigmoid: elementwise("X", "Y", (c, x, y) =>
    hardSigmoid(c, x, c.attr("alpha"), c.attr("beta"), y),
  ),
  hard_swish: elementwise("X", "Y", (c, x, y) =>
    c.w.op("Mul", [x, hardSigmoid(c, x, c.k(1 / 6, "sixth"), c.k(0.5, "half"))], "", y),
  ),
  thresholded_relu: elementwise("X", "Y", thresholdedRelu),
  leaky_relu: elementwise("X", "Y", leakyRelu),
  softplus: elementwise("X", "Y", (c, x, y) => softplus(c, x, y)),
  softsign: elementwise("input", "output", softsign),
  mish: elementwise("X", "Y", mish),
  swish: elementwise("X", "Y", swish),
  gelu,
  prelu,
  shrink,
  // Relu: Max(X, 0), in X's own type (integers included).
  relu: elementwise("X", "Y", (c, x, y) => c.w.op("Max", [x, c.k(0, "zero")], "", y)),
  swiglu,
  clip,
};
