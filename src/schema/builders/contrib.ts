// Bodies of onnxruntime's operators in standard ai.onnx ops: the com.microsoft ops its tools write
// and its own registrations in the ONNX domain. docs/semantics.md ("onnxruntime's operators")
// lists each as exact, approximate or refused, with the reason.
//
// Where an ai.onnx function op computes the same function (Gelu-20, LayerNormalization-17,
// RMSNormalization-23, RotaryEmbedding-23), its body is embedded (built by its own builder for
// the call's types and renamed into this body), so the result holds only primitives at the opset
// those bodies are written for. Quantized ops are written as ONNX defines them: DequantizeLinear,
// the float op, QuantizeLinear, or, where the op is an integer product (MatMulIntegerToFloat,
// DynamicQuantizeMatMul), as MatMulInteger and its float32 rescale, which is what onnxruntime
// computes.

import { OnnxError } from "../../errors.js";
import { dtypeName, quantizedRange } from "../../ir/dtype.js";
import { attr } from "../../ir/builder.js";
import { DataType, type Attribute, type Type } from "../../ir/types.js";
import { renameNodes } from "../../ir/visit.js";
import { printNode } from "../../text/print.js";
import { functionBody } from "../body.js";
import { SchemaRegistry } from "../registry.js";
import { finish } from "./activations.js";
import { Compute } from "./compute.js";
import { dynamicQuantizeLstm } from "./contrib-lstm.js";
import type { BodyBuilder, BuildArgs, FunctionBody } from "./context.js";
import { floatLiteral, positiveIndicator, TextWriter } from "./writer.js";

const F = DataType.FLOAT;
const I64 = DataType.INT64;

function unsupported(args: BuildArgs, why: string): never {
  throw new OnnxError("E_UNSUPPORTED", `${args.label} has no body here: ${why}`);
}

/** A tensor type of the element type (shape unknown), for the types of embedded calls. */
const typeOf = (elem: number | undefined): Type | undefined =>
  elem === undefined ? undefined : { kind: "tensor", elemType: elem, shape: undefined };

/** A body being written: a TextWriter, and the opset its parts need. */
export class Body {
  readonly w: TextWriter;
  opset: number;
  private embeds = 0;
  constructor(
    readonly args: BuildArgs,
    prefix: string,
    opset = 13,
  ) {
    this.w = new TextWriter(prefix);
    this.opset = opset;
  }

  /**
   * The body of ai.onnx's `op`-`since` for a call with `inputs` ("" omits one) and `outputs`
   * ("" not wanted), written into this body: formal names renamed to the call's values, its own
   * values given fresh names.
   */
  embed(
    op: string,
    since: number,
    inputs: string[],
    types: (Type | undefined)[],
    outputs: string[],
    attributes: Attribute[],
  ): void {
    const v = SchemaRegistry.default()
      .versions("", op)
      .find((x) => x.since === since);
    if (!v) throw new OnnxError("E_SCHEMA", `${op}-${since} is not in the registry`);
    const body = functionBody(v, {
      inputTypes: types,
      attributes,
      inputPresent: inputs.map((x) => x !== ""),
      outputPresent: outputs.map((x) => x !== ""),
    });
    const tag = `${this.w.fresh("e")}_`;
    this.embeds++;
    const names = new Map<string, string>();
    v.inputs.forEach((f, i) => names.set(f.name, inputs[i] ?? ""));
    v.outputs.forEach((f, i) => names.set(f.name, outputs[i] || `${tag}unused_${f.name}`));
    const rename = (n: string) => (n === "" ? "" : (names.get(n) ?? `${tag}${n}`));
    const renamed = renameNodes(body.nodes, {
      value: rename,
      local: (n) => `${tag}${n}`,
      node: () => "",
    });
    for (const n of renamed) this.w.raw(printNode(n));
    for (const o of body.opsetImports)
      if (o.domain === "") this.opset = Math.max(this.opset, o.version);
  }

  finish(): FunctionBody {
    return finish(this.w, this.args, this.opset);
  }
}

/** A scalar constant of input i's element type (which must be known: bodies stay below opset 15). */
function scalarOf(w: TextWriter, args: BuildArgs, i: number, v: number): string {
  const t = args.elemType(i);
  if (t === undefined) unsupported(args, "the input's element type is unknown");
  return w.scalar(t, v, "k");
}

// ---- activations ------------------------------------------------------------------------------

const geluOf =
  (approximate: "none" | "tanh", biased: boolean): BodyBuilder =>
  (args) => {
    const b = new Body(args, "_ms_gelu_");
    const [x, bias, out] = args.op.name === "BiasGelu" ? ["A", "B", "C"] : ["X", "bias", "Y"];
    let v = x;
    if (biased && args.hasInput(1)) v = b.w.op("Add", [x, bias]);
    b.embed(
      "Gelu",
      20,
      [v],
      [args.ctx.inputTypes[0]],
      [out],
      [attr("approximate", approximate, "STRING")],
    );
    return b.finish();
  };

/** QuickGelu: x · Sigmoid(alpha · x). */
const quickGelu: BodyBuilder = (args) => {
  const w = new TextWriter("_ms_quickgelu_");
  const c = new Compute(w, args, "X");
  const x = c.in("X");
  const y = c.target("Y");
  w.op("Mul", [x, w.op("Sigmoid", [w.op("Mul", [x, c.attr("alpha")])])], "", y);
  c.out(y, "Y");
  return finish(w, args, 13);
};

const biasAdd: BodyBuilder = (args) => {
  const w = new TextWriter("_ms_biasadd_");
  w.op("Add", [w.op("Add", ["X", "bias"]), "skip"], "", "Y");
  return finish(w, args, 13);
};

// ---- matrix products --------------------------------------------------------------------------

/** FusedMatMul: alpha · MatMul(A', B'), the transposes as Transpose nodes (ranks must be known;
 * transBatchA/B are refused). */
const fusedMatMul: BodyBuilder = (args) => {
  const w = new TextWriter("_ms_fusedmatmul_");
  if (args.intValue("transBatchA") === 1 || args.intValue("transBatchB") === 1)
    unsupported(args, "transBatchA / transBatchB");
  const side = (i: number, formal: string, trans: string) => {
    if (args.intValue(trans) !== 1) return formal;
    const r = args.shape(i)?.length;
    if (r === undefined || r < 2) unsupported(args, `a transpose needs the rank of ${formal}`);
    const perm = [...Array.from({ length: r - 2 }, (_, k) => k), r - 1, r - 2];
    return w.op("Transpose", [formal], `perm: ints = [${perm.join(", ")}]`);
  };
  const a = side(0, "A", "transA");
  const b = side(1, "B", "transB");
  const alpha = args.floatValue("alpha") ?? 1;
  if (alpha === 1) w.op("MatMul", [a, b], "", "Y");
  else w.op("Mul", [w.op("MatMul", [a, b]), scalarOf(w, args, 0, alpha)], "", "Y");
  return finish(w, args, 13);
};

/** FusedConv: Conv with its attributes, Z added, then the named activation. */
const fusedConv: BodyBuilder = (args) => {
  const w = new TextWriter("_ms_fusedconv_");
  const refs = [
    "auto_pad: string = @auto_pad",
    "dilations: ints = @dilations",
    "group: int = @group",
  ];
  refs.push("kernel_shape: ints = @kernel_shape", "pads: ints = @pads", "strides: ints = @strides");
  const act = args.stringValue("activation");
  const paramsA = args.attribute("activation_params");
  const params = paramsA && paramsA.type === "FLOATS" ? (paramsA.value ?? []) : [];
  let y = w.op("Conv", args.hasInput(2) ? ["X", "W", "B"] : ["X", "W"], refs.join(", "));
  if (args.hasInput(3)) y = w.op("Add", [y, "Z"]);
  const k = (v: number) => scalarOf(w, args, 0, v);
  switch (act ?? "") {
    case "":
      w.op("Identity", [y], "", "Y");
      break;
    case "Relu":
    case "Tanh":
    case "Sigmoid":
      w.op(act!, [y], "", "Y");
      break;
    case "LeakyRelu":
      w.op("LeakyRelu", [y], `alpha: float = ${floatLiteral(params[0] ?? 0.01)}`, "Y");
      break;
    case "HardSigmoid":
      w.op(
        "HardSigmoid",
        [y],
        `alpha: float = ${floatLiteral(params[0] ?? 0.2)}, beta: float = ${floatLiteral(params[1] ?? 0.5)}`,
        "Y",
      );
      break;
    case "Clip":
      w.op("Clip", [y, k(params[0] ?? -Infinity), k(params[1] ?? Infinity)], "", "Y");
      break;
    default:
      unsupported(args, `activation '${act}' is not one FusedConv applies`);
  }
  return finish(w, args, 13);
};

// ---- normalisations ---------------------------------------------------------------------------

/** (input + skip (+ bias)) normalised over the last axis: LayerNormalization-17 or RMSNormalization-23. */
const skipNorm =
  (rms: boolean): BodyBuilder =>
  (args) => {
    const b = new Body(args, rms ? "_ms_skiprms_" : "_ms_skipln_");
    const w = b.w;
    const biasAt = rms ? 3 : 4;
    let sum = w.op("Add", ["input", "skip"]);
    if (args.hasInput(biasAt)) sum = w.op("Add", [sum, "bias"]);
    if (args.hasOutput(3)) w.op("Identity", [sum], "", "input_skip_bias_sum");
    const t = args.ctx.inputTypes[0];
    const eps = args.attribute("epsilon")!;
    const normAttrs = [attr("axis", -1, "INT"), eps];
    if (rms) {
      b.embed(
        "RMSNormalization",
        23,
        [sum, "gamma"],
        [t, args.ctx.inputTypes[2]],
        ["output"],
        normAttrs,
      );
      if (args.hasOutput(1))
        unsupported(args, "SkipSimplifiedLayerNormalization's mean output is not defined");
      if (args.hasOutput(2)) invStdDev(b, args, sum, "inv_std_var", -1);
    } else {
      const outs = [
        "output",
        args.hasOutput(1) ? "mean" : "",
        args.hasOutput(2) ? "inv_std_var" : "",
      ];
      const ins = [sum, "gamma", args.hasInput(3) ? "beta" : ""];
      b.embed(
        "LayerNormalization",
        17,
        ins,
        [t, args.ctx.inputTypes[2], args.ctx.inputTypes[3]],
        outs,
        normAttrs,
      );
    }
    return b.finish();
  };

/** 1 / sqrt(mean(x²) + epsilon) over the axes from `axis` on (keepdims), in float (opset 18). */
function invStdDev(b: Body, args: BuildArgs, x: string, out: string, axis: number): void {
  const w = b.w;
  b.opset = Math.max(b.opset, 18);
  const xf = w.cast(x, F);
  const flat = w.op("Flatten", [xf], `axis: int = ${axis}`);
  const ms = w.op(
    "ReduceMean",
    [w.op("Mul", [flat, flat]), w.ints([1], "axis1")],
    "keepdims: int = 1",
  );
  const eps = w.op("Constant", [], "value_float: float = @epsilon");
  const inv = w.op("Reciprocal", [w.op("Sqrt", [w.op("Add", [ms, eps])])]);
  // back to X's leading dimensions with 1 for the normalised ones
  const shape = w.op("Shape", [x]);
  const lead = w.op("Slice", [shape, w.ints([0], "zero"), w.ints([axis], "axis")]);
  const count =
    axis >= 0
      ? w.op("Sub", [w.op("Size", [shape]), w.ints([axis], "axisn")])
      : w.ints([-axis], "count");
  const ones = w.op(
    "ConstantOfShape",
    [w.op("Reshape", [count, w.ints([1], "one")])],
    "value = int64[1] {1}",
  );
  const statShape = w.op("Concat", [lead, ones], "axis: int = 0");
  const stash = args.intValue("stash_type") ?? F;
  const r = w.op("Reshape", [inv, statShape]);
  w.op("Cast", [r], `to: int = ${stash === DataType.DOUBLE ? DataType.DOUBLE : F}`, out);
}

/** onnxruntime's LayerNormalization-1 (ONNX domain): ai.onnx LayerNormalization-17. */
const ortLayerNorm: BodyBuilder = (args) => {
  const b = new Body(args, "_ort_ln_");
  const attrs = ["axis", "epsilon", "stash_type"]
    .map((n) => args.attribute(n))
    .filter((a): a is Attribute => !!a);
  const outs = ["Y", args.hasOutput(1) ? "Mean" : "", args.hasOutput(2) ? "InvStdDev" : ""];
  b.embed(
    "LayerNormalization",
    17,
    ["X", "Scale", args.hasInput(2) ? "B" : ""],
    args.ctx.inputTypes,
    outs,
    attrs,
  );
  return b.finish();
};

/** onnxruntime's SimplifiedLayerNormalization-1 (ONNX domain): ai.onnx RMSNormalization-23. */
const ortSimplifiedLayerNorm: BodyBuilder = (args) => {
  const b = new Body(args, "_ort_sln_");
  const attrs = ["axis", "epsilon", "stash_type"]
    .map((n) => args.attribute(n))
    .filter((a): a is Attribute => !!a);
  b.embed("RMSNormalization", 23, ["X", "scale"], args.ctx.inputTypes, ["Y"], attrs);
  if (args.hasOutput(1)) invStdDev(b, args, "X", "inv_std_var", args.intValue("axis") ?? -1);
  return b.finish();
};

/** EmbedLayerNormalization: embeddings gathered and summed, LayerNormalization-17, mask counts. */
const embedLayerNorm: BodyBuilder = (args) => {
  const b = new Body(args, "_ms_embedln_");
  const w = b.w;
  let sum = w.op("Gather", ["word_embedding", "input_ids"], "axis: int = 0");
  let pos: string;
  if (args.hasInput(8))
    pos = w.op("Gather", ["position_embedding", "position_ids"], "axis: int = 0");
  else {
    const len = w.op(
      "Gather",
      [w.op("Shape", ["input_ids"]), w.constant("int64 {1}", "one")],
      "axis: int = 0",
    );
    const ids = w.op("Range", [
      w.constant("int64 {0}", "zero"),
      len,
      w.constant("int64 {1}", "step"),
    ]);
    pos = w.op("Gather", ["position_embedding", ids], "axis: int = 0");
  }
  sum = w.op("Add", [sum, pos]);
  if (args.hasInput(1) && args.hasInput(4))
    sum = w.op("Add", [sum, w.op("Gather", ["segment_embedding", "segment_ids"], "axis: int = 0")]);
  if (args.hasOutput(2)) w.op("Identity", [sum], "", "embedding_sum");
  const eps = args.attribute("epsilon")!;
  const t = typeOf(args.elemType(2));
  b.embed(
    "LayerNormalization",
    17,
    [sum, "gamma", "beta"],
    [t, t, t],
    ["output"],
    [attr("axis", -1, "INT"), eps],
  );
  if (args.hasOutput(1)) {
    if (args.hasInput(7)) {
      // The entries equal to 1, as onnxruntime counts them (not every non-zero one).
      const one = w.constant("int64 {1}", "one");
      const ones = w.op("Equal", [w.cast("mask", I64), one]);
      const kept = w.op("Cast", [ones], `to: int = ${DataType.INT32}`);
      w.op("ReduceSum", [kept, w.ints([1], "axis1")], "keepdims: int = 0", "mask_index");
    } else {
      const batch = w.op("Slice", [
        w.op("Shape", ["input_ids"]),
        w.ints([0], "s0"),
        w.ints([1], "s1"),
      ]);
      w.op("ConstantOfShape", [batch], "value = int32[1] {0}", "mask_index");
    }
  }
  return b.finish();
};

// ---- quantized ops ------------------------------------------------------------------------------

/**
 * A per-axis parameter (1-D, along `axis` of a tensor of rank `rank`) reshaped to broadcast, or the
 * parameter itself when it is a scalar or the axis is the last one.
 */
function alongAxis(
  w: TextWriter,
  p: string,
  rank: number | undefined,
  axis: number,
  perAxis: boolean,
): string {
  if (!perAxis) return p;
  if (rank === undefined)
    throw new OnnxError("E_UNSUPPORTED", "a per-axis parameter needs the input's rank");
  const a = axis < 0 ? axis + rank : axis;
  if (a === rank - 1) return p;
  return w.op("Reshape", [p, w.ints([-1, ...new Array(rank - 1 - a).fill(1)], "axis_shape")]);
}

/**
 * saturate(round(x / scale) + zero point) as `to`, in float32 (round half to even), per tensor or
 * per axis: what QuantizeLinear and onnxruntime's kernels compute, for any integer type.
 */
function quantizeText(
  w: TextWriter,
  x: string,
  scale: string,
  zp: string | undefined,
  to: number,
  perAxis: { rank?: number; axis: number } | undefined,
): string {
  const r = quantizedRange(to);
  if (!r) throw new OnnxError("E_UNSUPPORTED", `quantizing to ${dtypeName(to)} has no body here`);
  const s = perAxis ? alongAxis(w, scale, perAxis.rank, perAxis.axis, true) : scale;
  let q = w.op("Round", [w.op("Div", [w.cast(x, F), s])]);
  if (zp)
    q = w.op("Add", [
      q,
      w.cast(perAxis ? alongAxis(w, zp, perAxis.rank, perAxis.axis, true) : zp, F),
    ]);
  const clipped = w.op("Clip", [q, w.scalar(F, r[0], "lo"), w.scalar(F, r[1], "hi")]);
  return w.cast(clipped, to);
}

/** (x - zero point) * scale, in float32, as `out`'s type `to` (default float). */
function dequantizeText(
  w: TextWriter,
  x: string,
  scale: string,
  zp: string | undefined,
  perAxis: { rank?: number; axis: number } | undefined,
): string {
  let v = w.cast(x, F);
  if (zp)
    v = w.op("Sub", [
      v,
      w.cast(perAxis ? alongAxis(w, zp, perAxis.rank, perAxis.axis, true) : zp, F),
    ]);
  const s = perAxis ? alongAxis(w, scale, perAxis.rank, perAxis.axis, true) : scale;
  return w.op("Mul", [v, s]);
}

/**
 * Whether onnxruntime's Quantize/DequantizeLinear call can be ai.onnx's at opset 13, computing the
 * same: an 8-bit quantized type, float32 scale (and values), the scale a scalar (per tensor) or
 * per axis (1-D of more than one; ai.onnx would read a 1-D scale of one as per axis), the zero
 * point of the scale's shape; and the caller allows it (BodyContext.standardQuantOps).
 */
function standardQuant(args: BuildArgs, quantized: number | undefined, float: number | undefined) {
  if (args.ctx.standardQuantOps === false) return false;
  if (quantized !== DataType.INT8 && quantized !== DataType.UINT8) return false;
  if (float !== F || args.elemType(1) !== F) return false;
  const s = args.shape(1);
  if (!s || !(s.length === 0 || perAxisOf(args, 1))) return false;
  if (!args.hasInput(2)) return true;
  const z = args.shape(2);
  return !!z && z.length === s.length && z.every((d, i) => d === s[i]);
}

/** com.microsoft QuantizeLinear: per tensor, or per axis when the scale is 1-D of more than one. */
const msQuantize: BodyBuilder = (args) => {
  const w = new TextWriter("_ms_q_");
  const to = args.hasInput(2) ? args.elemType(2) : DataType.UINT8;
  if (to === undefined) unsupported(args, "the zero point's type is unknown");
  const axis = args.intValue("axis") ?? 1;
  if (standardQuant(args, to, args.elemType(0))) {
    const ins = args.hasInput(2) ? ["x", "y_scale", "y_zero_point"] : ["x", "y_scale"];
    w.op("QuantizeLinear", ins, `axis: int = ${axis}`, "y");
    return finish(w, args, 13);
  }
  const per = perAxisOf(args, 1) ? { rank: args.shape(0)?.length, axis } : undefined;
  w.op(
    "Identity",
    [quantizeText(w, "x", "y_scale", args.hasInput(2) ? "y_zero_point" : undefined, to, per)],
    "",
    "y",
  );
  return finish(w, args, 13);
};

const msDequantize: BodyBuilder = (args) => {
  const w = new TextWriter("_ms_dq_");
  const axis = args.intValue("axis") ?? 1;
  if (standardQuant(args, args.elemType(0), args.elemType(1) ?? F)) {
    const ins = args.hasInput(2) ? ["x", "x_scale", "x_zero_point"] : ["x", "x_scale"];
    w.op("DequantizeLinear", ins, `axis: int = ${axis}`, "y");
    return finish(w, args, 13);
  }
  const per = perAxisOf(args, 1) ? { rank: args.shape(0)?.length, axis } : undefined;
  const v = dequantizeText(w, "x", "x_scale", args.hasInput(2) ? "x_zero_point" : undefined, per);
  const out = args.elemType(1) ?? F;
  if (out === F) w.op("Identity", [v], "", "y");
  else w.op("Cast", [v], `to: int = ${out}`, "y");
  return finish(w, args, 13);
};

/** Whether input i (a scale) is per axis: 1-D with more than one element (shape known). */
function perAxisOf(args: BuildArgs, i: number): boolean {
  const s = args.shape(i);
  if (s === undefined) unsupported(args, "the scale's shape is unknown");
  return s.length === 1 && s[0] !== 1;
}

/** A QLinear op as DequantizeLinear → op → QuantizeLinear (8-bit, per tensor). */
function qlinear(
  inputs: [x: string, scale: string, zp: string][],
  out: [y: string, scale: string, zp: string],
  emit: (w: TextWriter, xs: string[], args: BuildArgs) => string,
): BodyBuilder {
  return (args) => {
    const w = new TextWriter(`_${args.op.name.toLowerCase()}_`);
    const formals = args.op.inputs.map((f) => f.name);
    const has = (name: string) => args.hasInput(formals.indexOf(name));
    const xs = inputs.map(([x, s, z]) => w.op("DequantizeLinear", has(z) ? [x, s, z] : [x, s]));
    const y = emit(w, xs, args);
    const zpIndex = formals.indexOf(out[2]);
    w.op("QuantizeLinear", args.hasInput(zpIndex) ? [y, out[1], out[2]] : [y, out[1]], "", out[0]);
    return finish(w, args, 13);
  };
}

const qlinearBinary = (op: string) =>
  qlinear(
    [
      ["A", "A_scale", "A_zero_point"],
      ["B", "B_scale", "B_zero_point"],
    ],
    ["C", "C_scale", "C_zero_point"],
    (w, [a, b]) => w.op(op, [a!, b!]),
  );

const qlinearUnary = (emit: (w: TextWriter, x: string, args: BuildArgs) => string) =>
  qlinear([["X", "X_scale", "X_zero_point"]], ["Y", "Y_scale", "Y_zero_point"], (w, [x], args) =>
    emit(w, x!, args),
  );

/** QLinearSoftmax: Softmax along `axis` (opset attribute < 13: over the flattened trailing axes). */
const qlinearSoftmax = qlinear(
  [["X", "X_scale", "x_zero_point"]],
  ["Y", "y_scale", "y_zero_point"],
  (w, [x], args) => {
    const axis = args.intValue("axis") ?? -1;
    if ((args.intValue("opset") ?? 13) >= 13) return w.op("Softmax", [x!], `axis: int = ${axis}`);
    const flat = w.op("Flatten", [x!], `axis: int = ${axis}`);
    return w.op("Reshape", [w.op("Softmax", [flat], "axis: int = 1"), w.op("Shape", [x!])]);
  },
);

const qlinearGap = qlinear(
  [["X", "x_scale", "x_zero_point"]],
  ["Y", "y_scale", "y_zero_point"],
  (w, [x], args) => {
    if (args.intValue("channels_last") !== 1) return w.op("GlobalAveragePool", [x!]);
    const r = args.shape(0)?.length;
    if (r === undefined) unsupported(args, "channels_last needs X's rank");
    const toFirst = [0, r - 1, ...Array.from({ length: r - 2 }, (_, i) => i + 1)];
    const toLast = [0, ...Array.from({ length: r - 2 }, (_, i) => i + 2), 1];
    const p = w.op("GlobalAveragePool", [
      w.op("Transpose", [x!], `perm: ints = [${toFirst.join(", ")}]`),
    ]);
    return w.op("Transpose", [p], `perm: ints = [${toLast.join(", ")}]`);
  },
);

const qlinearAvgPool = qlinear(
  [["X", "x_scale", "x_zero_point"]],
  ["Y", "y_scale", "y_zero_point"],
  (w, [x], args) => {
    if (args.intValue("channels_last") === 1) unsupported(args, "channels_last = 1");
    const refs = [
      "auto_pad: string = @auto_pad",
      "ceil_mode: int = @ceil_mode",
      "count_include_pad: int = @count_include_pad",
    ];
    refs.push(
      "kernel_shape: ints = @kernel_shape",
      "pads: ints = @pads",
      "strides: ints = @strides",
    );
    return w.op("AveragePool", [x!], refs.join(", "));
  },
);

/** QLinearConcat: Y_scale, Y_zero_point, then (X, scale, zero point) triples; variadic formals. */
const qlinearConcat: BodyBuilder = (args) => {
  const w = new TextWriter("_ms_qconcat_");
  const n = args.ctx.inputTypes.length;
  if (n < 5 || (n - 2) % 3 !== 0)
    unsupported(args, "inputs must be Y_scale, Y_zero_point and (X, scale, zero point) triples");
  const names = [
    "Y_scale",
    "Y_zero_point",
    ...Array.from({ length: n - 2 }, (_, i) => (i === 0 ? "inputs" : `inputs__${i}`)),
  ];
  const parts: string[] = [];
  for (let i = 2; i < n; i += 3) {
    const [x, s, z] = [names[i]!, names[i + 1]!, names[i + 2]!];
    parts.push(w.op("DequantizeLinear", args.hasInput(i + 2) ? [x, s, z] : [x, s]));
  }
  const cat = w.op("Concat", parts, "axis: int = @axis");
  w.op("QuantizeLinear", [cat, "Y_scale", "Y_zero_point"], "", "Y");
  const body = finish(w, args, 13);
  return { ...body, inputs: names, outputs: ["Y"] };
};

/**
 * QGemm: Gemm of the dequantized A and B (B per column: axis 1, or 0 when transposed), C (int32
 * at scale a_scale · b_scale) dequantized; alpha applies to the product and C (as onnxruntime's
 * kernel scales the accumulator); quantized with y_scale / y_zero_point when given.
 */
const qgemm: BodyBuilder = (args) => {
  const w = new TextWriter("_ms_qgemm_");
  const a = w.op("DequantizeLinear", ["A", "a_scale", "a_zero_point"]);
  const perCol = perAxisOf(args, 4);
  const transB = args.intValue("transB") === 1;
  const b = w.op(
    "DequantizeLinear",
    ["B", "b_scale", "b_zero_point"],
    perCol ? `axis: int = ${transB ? 0 : 1}` : "",
  );
  const ins = [a, b];
  if (args.hasInput(6)) {
    const cScale = w.op("Mul", ["a_scale", "b_scale"]);
    const cRank = args.shape(6)?.length;
    if (perCol && cRank === undefined) unsupported(args, "a per-column C needs C's rank");
    ins.push(
      dequantizeText(w, "C", cScale, undefined, perCol ? { rank: cRank, axis: -1 } : undefined),
    );
  }
  const attrs =
    "alpha: float = @alpha, beta: float = @alpha, transA: int = @transA, transB: int = @transB";
  const y = w.op("Gemm", ins, attrs);
  if (args.hasInput(7))
    w.op(
      "QuantizeLinear",
      args.hasInput(8) ? [y, "y_scale", "y_zero_point"] : [y, "y_scale"],
      "",
      "Y",
    );
  else w.op("Identity", [y], "", "Y");
  return finish(w, args, 13);
};

/** (A - a_zp)(B - b_zp) as integers (MatMulInteger), times `scale`, plus the bias, as `out`. */
function integerMatMul(
  w: TextWriter,
  args: BuildArgs,
  a: string,
  azp: string,
  scale: string,
  biasAt: number,
  out: string,
  bzpAt: number,
): void {
  const acc = w.op("MatMulInteger", [a, "B", azp, args.hasInput(bzpAt) ? "b_zero_point" : ""]);
  let y = w.op("Mul", [w.cast(acc, F), scale]);
  if (args.hasInput(biasAt)) y = w.op("Add", [y, "bias"]);
  w.op("Identity", [y], "", out);
}

const matMulIntegerToFloat: BodyBuilder = (args) => {
  const w = new TextWriter("_ms_mmitf_");
  if (args.elemType(2) !== undefined && args.elemType(2) !== F)
    unsupported(args, "only float scales");
  const azp = args.hasInput(4) ? "a_zero_point" : "";
  integerMatMul(w, args, "A", azp, w.op("Mul", ["a_scale", "b_scale"]), 6, "Y", 5);
  return finish(w, args, 10);
};

/** DynamicQuantizeMatMul: DynamicQuantizeLinear(A), then as MatMulIntegerToFloat. */
const dynamicQuantizeMatMul: BodyBuilder = (args) => {
  const w = new TextWriter("_ms_dqmm_");
  const [q, s, z] = w.opN(
    "DynamicQuantizeLinear",
    ["A"],
    [w.fresh("q"), w.fresh("s"), w.fresh("z")],
  );
  integerMatMul(w, args, q!, z!, w.op("Mul", [s!, "b_scale"]), 4, "Y", 3);
  return finish(w, args, 11);
};

/**
 * MatMulNBits (4 or 8 bits): the codes unpacked from B's bytes (Mod / Div by 16 in int32, low
 * nibble first), (q - zero point) · scale per block in float32, W [N, K], Y = A · Wᵀ (+ bias).
 * accuracy_level 4: A first quantized to int8 per block as onnxruntime does (max |a| / 127,
 * round half to even).
 */
const matMulNBits: BodyBuilder = (args) => {
  const w = new TextWriter("_ms_mnb_");
  const [K, N, bits, block] = ["K", "N", "bits", "block_size"].map((n) => args.intValue(n));
  if (K === undefined || N === undefined || bits === undefined || block === undefined)
    unsupported(args, "K, N, bits and block_size are required");
  if (bits !== 4 && bits !== 8) unsupported(args, `${bits}-bit weights`);
  if (args.hasInput(4)) unsupported(args, "g_idx");
  const t = args.elemType(0);
  if (t === undefined) unsupported(args, "A's type is unknown");
  const blocks = Math.ceil(K / block);
  const I32 = DataType.INT32;
  const unpack = (bytes: string, perRow: number) => {
    // [rows, perRow bytes] uint8 -> [rows, perRow * 8 / bits] codes, as float
    const b32 = w.cast(bytes, I32);
    if (bits === 8) return w.cast(b32, F);
    const sixteen = w.constant("int32 {16}", "sixteen");
    const lo = w.op("Unsqueeze", [w.op("Mod", [b32, sixteen]), w.ints([-1], "last")]);
    const hi = w.op("Unsqueeze", [w.op("Div", [b32, sixteen]), w.ints([-1], "last")]);
    const pairs = w.op("Concat", [lo, hi], "axis: int = -1");
    return w.cast(w.op("Reshape", [pairs, w.ints([0, perRow * 2], "pairs")]), F);
  };
  const blob = (block * bits) / 8;
  const codes = unpack(w.op("Reshape", ["B", w.ints([N * blocks, blob], "rows")]), blob); // [N*blocks, block]
  const scales = w.cast(w.op("Reshape", ["scales", w.ints([N * blocks, 1], "srows")]), F);
  let zero: string;
  if (!args.hasInput(3)) zero = w.scalar(F, 2 ** (bits - 1), "zp");
  else if (args.elemType(3) === DataType.UINT8) {
    const zRow = Math.ceil((blocks * bits) / 8);
    const z = unpack(w.op("Reshape", ["zero_points", w.ints([N, zRow], "zrows")]), zRow); // [N, zRow*8/bits]
    const cut = w.op("Slice", [z, w.ints([0], "z0"), w.ints([blocks], "zb"), w.ints([1], "z1")]);
    zero = w.op("Reshape", [cut, w.ints([N * blocks, 1], "zr")]);
  } else zero = w.cast(w.op("Reshape", ["zero_points", w.ints([N * blocks, 1], "zr2")]), F);
  const dq = w.op("Mul", [w.op("Sub", [codes, zero]), scales]); // [N*blocks, block]
  const wFull = w.op("Reshape", [dq, w.ints([N, blocks * block], "wfull")]);
  const wNK =
    blocks * block === K
      ? wFull
      : w.op("Slice", [wFull, w.ints([0], "k0"), w.ints([K], "kk"), w.ints([1], "k1")]);
  const wT = w.op("Transpose", [wNK], "perm: ints = [1, 0]");
  let a = t === F ? "A" : w.cast("A", F);
  if (args.intValue("accuracy_level") === 4) {
    if (K % block !== 0) unsupported(args, "accuracy_level 4 with K not a multiple of block_size");
    const aShape = w.op("Shape", [a]);
    const ab = w.op("Reshape", [a, w.ints([-1, blocks, block], "ablocks")]);
    const amax = w.op("ReduceMax", [w.op("Abs", [ab]), w.ints([2], "axis2")], "keepdims: int = 1");
    const scale = w.op("Div", [amax, w.scalar(F, 127, "q127")]);
    // The reciprocal is positive / (scale + (1 - positive)): 1 / scale, or 0 where scale is 0.
    const [zeroF, one] = [w.scalar(F, 0, "zf"), w.scalar(F, 1, "one")];
    const positive = positiveIndicator(w, scale, zeroF, one);
    const inv = w.op("Div", [positive, w.op("Add", [scale, w.op("Sub", [one, positive])])]);
    // Rounded half to even, saturated to int8 (onnxruntime's kernel narrows without saturating,
    // reached only where the scale is subnormal: a block whose max |a| is below 127 · 2^-126);
    // + 0 makes Round's -0 the integer's 0.
    const lo = w.scalar(F, -128, "q_lo");
    const hi = w.scalar(F, 127, "q_hi");
    const q = w.op("Add", [w.op("Round", [w.op("Clip", [w.op("Mul", [ab, inv]), lo, hi])]), zeroF]);
    a = w.op("Reshape", [w.op("Mul", [q, scale]), aShape]);
  }
  let y = w.op("MatMul", [a, wT]);
  if (args.hasInput(5)) y = w.op("Add", [y, t === F ? "bias" : w.cast("bias", F)]);
  if (t === F) w.op("Identity", [y], "", "Y");
  else w.op("Cast", [y], `to: int = ${t}`, "Y");
  // ReduceMax with an axes input: opset 18
  return finish(w, args, args.intValue("accuracy_level") === 4 ? 18 : 13);
};

export const contribBuilders: Record<string, BodyBuilder> = {
  ms_gelu: geluOf("none", false),
  ms_bias_gelu: geluOf("none", true),
  ms_fast_gelu: geluOf("tanh", true),
  ms_quick_gelu: quickGelu,
  ms_bias_add: biasAdd,
  ms_fused_matmul: fusedMatMul,
  ms_fused_conv: fusedConv,
  ms_skip_layer_norm: skipNorm(false),
  ms_skip_simplified_layer_norm: skipNorm(true),
  ms_embed_layer_norm: embedLayerNorm,
  ort_layer_norm: ortLayerNorm,
  ort_simplified_layer_norm: ortSimplifiedLayerNorm,
  ms_quantize_linear: msQuantize,
  ms_dequantize_linear: msDequantize,
  ms_qlinear_add: qlinearBinary("Add"),
  ms_qlinear_mul: qlinearBinary("Mul"),
  ms_qlinear_sigmoid: qlinearUnary((w, x) => w.op("Sigmoid", [x])),
  ms_qlinear_leaky_relu: qlinearUnary((w, x) => w.op("LeakyRelu", [x], "alpha: float = @alpha")),
  ms_qlinear_softmax: qlinearSoftmax,
  ms_qlinear_global_average_pool: qlinearGap,
  ms_qlinear_average_pool: qlinearAvgPool,
  ms_qlinear_concat: qlinearConcat,
  ms_qgemm: qgemm,
  ms_matmul_integer_to_float: matMulIntegerToFloat,
  ms_dynamic_quantize_matmul: dynamicQuantizeMatMul,
  ms_matmul_nbits: matMulNBits,
  ms_dynamic_quantize_lstm: dynamicQuantizeLstm,
};
