// A random valid-model generator for differential testing: well-typed graphs of ops the
// interpreter has, built step by step from a pool of values with known element type and static
// shape, with attributes within their rules, at a random opset (7-29), sometimes with an If, a
// Loop or a model-local function. Model (seed, n) is the first n steps of model (seed, N), so a
// failing model shrinks to the smallest prefix that still fails (see shrink()).

import { attr, graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Function, type Graph, type Model, type Node } from "../../src/ir/types.js";
import { deriveSeed, randomTensor, seededRandom, type Random } from "../../src/interp/random.js";
import type { RTensor } from "../../src/interp/types.js";
import { toIRTensor } from "../../src/interp/index.js";
import { minIrVersionForOpset } from "../../src/check/index.js";
import { kernelFor } from "../../src/interp/kernels/index.js";
import { REDUCE } from "../../src/check/rules/reduce.js";

export interface GenOptions {
  /** Steps (ops added); default 1-10 at random. */
  steps?: number;
  /** ai.onnx opset; default 7-26 at random (onnxruntime-node's range) unless maxOpset says more. */
  opset?: number;
  minOpset?: number;
  maxOpset?: number;
  /** Allow If / Loop / model-local functions (default true). */
  control?: boolean;
}

export interface Generated {
  seed: number;
  opset: number;
  model: Model;
  feeds: Record<string, RTensor>;
  /** What each step added, e.g. "ReduceSum(axes=[1], keepdims=0)". */
  steps: string[];
}

interface Val {
  name: string;
  dtype: number;
  shape: number[];
  /** May hold NaN or infinities (so ops that treat them specially are kept away from it). */
  special: boolean;
}

const FLOAT_TYPES = [DataType.FLOAT, DataType.FLOAT, DataType.FLOAT, DataType.DOUBLE];
const isFloat = (t: number) =>
  t === DataType.FLOAT || t === DataType.DOUBLE || t === DataType.FLOAT16;
const size = (s: number[]) => s.reduce((p, d) => p * d, 1);

class Builder {
  nodes: Node[] = [];
  inputs: Val[] = [];
  inits: Tensor[] = [];
  functions: Function[] = [];
  pool: Val[] = [];
  feeds: Record<string, RTensor> = {};
  steps: string[] = [];
  private counter = 0;
  constructor(
    readonly rng: Random,
    readonly opset: number,
  ) {}

  name(base: string): string {
    return `${base}${this.counter++}`;
  }
  /** A new graph input with random data. */
  input(dtype: number, shape: number[], lo = -3, hi = 3): Val {
    const t = randomTensor(dtype, shape, this.rng, lo, hi);
    // Now and then a float input holds special values (NaN, infinities, signed zeros).
    const special = isFloat(dtype) && size(shape) > 0 && this.rng.chance(0.1);
    if (special && (t.data instanceof Float32Array || t.data instanceof Float64Array))
      for (let k = 0; k < 1 + this.rng.int(3); k++)
        t.data[this.rng.int(t.data.length)] = this.rng.pick([NaN, Infinity, -Infinity, -0]);
    const v: Val = { name: this.name("in"), dtype, shape, special };
    this.feeds[v.name] = t;
    this.inputs.push(v);
    this.pool.push(v);
    return v;
  }
  /** An int64 initializer (axes, shapes, pads, ...). */
  ints(values: number[], shape = [values.length]): string {
    const name = this.name("c");
    this.inits.push(Tensor.from(DataType.INT64, shape, values.map(BigInt), name));
    return name;
  }
  floatInit(dtype: number, shape: number[], lo = -2, hi = 2): string {
    const name = this.name("w");
    const t = randomTensor(dtype, shape, this.rng, lo, hi);
    this.inits.push(toIRTensor(t, name));
    return name;
  }
  out(dtype: number, shape: number[], special: boolean): Val {
    const v: Val = { name: this.name("v"), dtype, shape, special };
    this.pool.push(v);
    return v;
  }
  add(n: Node, label: string): void {
    n.name = this.name(`n_${n.opType}_`);
    this.nodes.push(n);
    this.steps.push(label);
  }
  pickFloat(): Val {
    const floats = this.pool.filter((v) => isFloat(v.dtype) && size(v.shape) > 0);
    return floats.length
      ? this.rng.pick(floats.slice(-6))
      : this.input(this.rng.pick(FLOAT_TYPES), this.shape());
  }
  pickAny(pred: (v: Val) => boolean = () => true): Val | undefined {
    const c = this.pool.filter(pred);
    return c.length ? this.rng.pick(c.slice(-6)) : undefined;
  }
  shape(rank = this.rng.range(0, 4)): number[] {
    return Array.from({ length: rank }, () => this.rng.range(1, 5));
  }
}

type Step = (b: Builder) => boolean;

const UNARY: [string, number, boolean][] = [
  // op, since, may make NaN/inf from finite input
  ["Abs", 6, false],
  ["Neg", 6, false],
  ["Exp", 6, true],
  ["Log", 6, true],
  ["Sqrt", 6, true],
  ["Relu", 6, false],
  ["Sigmoid", 6, false],
  ["Tanh", 6, false],
  ["Floor", 6, false],
  ["Ceil", 6, false],
  ["Sin", 7, false],
  ["Cos", 7, false],
  ["Atan", 7, false],
  ["Erf", 9, false],
  ["Sign", 9, false],
  ["Softplus", 1, false],
  ["Softsign", 1, false],
  ["Elu", 6, false],
  ["LeakyRelu", 6, false],
  ["Selu", 6, false],
  ["HardSigmoid", 6, false],
  ["Reciprocal", 6, true],
  ["Round", 11, false],
  ["Celu", 12, false],
  ["HardSwish", 14, false],
  ["Mish", 18, false],
  ["Gelu", 20, false],
];

const unary: Step = (b) => {
  const ops = UNARY.filter(([op, since]) => since <= b.opset && kernelFor(op));
  const [op, , makesSpecial] = b.rng.pick(ops);
  const x = b.pickFloat();
  if (op === "Celu" && x.dtype !== DataType.FLOAT) return false;
  if (op === "Gelu" || op === "Mish") if (x.dtype === DataType.DOUBLE && b.opset < 20) return false;
  const y = b.out(x.dtype, x.shape, x.special || makesSpecial);
  const attrs: Record<string, number> = {};
  if (op === "Elu" || op === "Celu") attrs.alpha = b.rng.pick([0.5, 1, 2]);
  if (op === "LeakyRelu") attrs.alpha = b.rng.pick([0.01, 0.1, 0.5]);
  if (op === "Gelu" && b.rng.chance(0.5)) {
    const n = node(op, [x.name], [y.name], {});
    n.attributes.push(attr("approximate", "tanh"));
    b.add(n, `${op}(approximate=tanh)`);
    return true;
  }
  const attributes = Object.entries(attrs).map(([k, v]) => attr(k, v, "FLOAT"));
  b.add({ ...node(op, [x.name], [y.name]), attributes }, `${op}${JSON.stringify(attrs)}`);
  return true;
};

/** A shape that broadcasts against `s` (a suffix of it, with some dims set to 1). */
function broadcastPartner(b: Builder, s: number[]): number[] {
  const keep = b.rng.range(0, s.length);
  return s.slice(s.length - keep).map((d) => (b.rng.chance(0.3) ? 1 : d));
}

const binary: Step = (b) => {
  const ops = ["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean"].filter(
    (op) => b.opset >= (["Max", "Min", "Sum", "Mean"].includes(op) ? 8 : 7),
  );
  const op = b.rng.pick(ops);
  const x = b.pickFloat();
  const partnerShape = broadcastPartner(b, x.shape);
  const other = b.pickAny(
    (v) =>
      v !== x && v.dtype === x.dtype && JSON.stringify(v.shape) === JSON.stringify(partnerShape),
  );
  const yName = other
    ? other.name
    : b.rng.chance(0.5)
      ? b.floatInit(x.dtype, partnerShape, op === "Pow" ? 0 : -2, 2)
      : b.input(x.dtype, partnerShape).name;
  const ins = b.rng.chance(0.5) ? [x.name, yName] : [yName, x.name];
  const special = ["Div", "Pow"].includes(op) || x.special || Boolean(other?.special);
  const y = b.out(x.dtype, x.shape, special);
  b.add(node(op, ins, [y.name]), `${op}(${JSON.stringify(partnerShape)})`);
  return true;
};

const reduce: Step = (b) => {
  const op = b.rng.pick(REDUCE);
  const x = b.pickFloat();
  if (op !== "ReduceSum" && x.special && (op === "ReduceMax" || op === "ReduceMin")) return false;
  const r = x.shape.length;
  const axesInput = b.opset >= (op === "ReduceSum" ? 13 : 18);
  const variant = b.rng.int(5); // 0 absent, 1 empty, 2 one, 3 several, 4 negative
  let axes: number[] | undefined;
  if (variant === 1) axes = [];
  else if (variant >= 2 && r > 0) {
    const all = Array.from({ length: r }, (_, i) => i).filter(() => b.rng.chance(0.5));
    axes = variant === 2 ? [b.rng.int(r)] : all.length ? all : [0];
    if (variant === 4) axes = axes.map((a) => a - r);
  }
  const keepdims = b.rng.int(2);
  const noop = axesInput && b.rng.chance(0.2) ? 1 : 0;
  if (axes && axes.length === 0 && !axesInput) axes = undefined;
  const norm = axes?.map((a) => (a < 0 ? a + r : a));
  const set = new Set(
    noop && (!axes || axes.length === 0)
      ? []
      : norm && norm.length
        ? norm
        : x.shape.map((_, i) => i),
  );
  const outShape = x.shape.flatMap((d, i) =>
    set.has(i) ? (noop && set.size === 0 ? [d] : keepdims ? [1] : []) : [d],
  );
  const ins = [x.name];
  const attrs: Record<string, number | number[]> = { keepdims };
  if (axes !== undefined) {
    if (axesInput) ins.push(b.ints(axes));
    else attrs.axes = axes;
  }
  if (noop) attrs.noop_with_empty_axes = 1;
  const special = x.special || ["ReduceLogSum", "ReduceLogSumExp", "ReduceProd"].includes(op);
  const y = b.out(x.dtype, outShape, special);
  b.add(
    node(op, ins, [y.name], attrs),
    `${op}(axes=${JSON.stringify(axes)}, ${JSON.stringify(attrs)})`,
  );
  return true;
};

const softmax: Step = (b) => {
  const op = b.rng.pick(["Softmax", "LogSoftmax", "Hardmax"]);
  const x = b.pickFloat();
  const r = x.shape.length;
  if (r === 0 || (op === "Hardmax" && x.special)) return false;
  // Before opset 13 the default axis is 1, which needs rank 2.
  const axis = b.rng.chance(0.3) && (b.opset >= 13 || r >= 2) ? undefined : b.rng.range(-r, r - 1);
  const attrs = axis === undefined ? {} : { axis };
  const y = b.out(x.dtype, x.shape, x.special || op === "LogSoftmax");
  b.add(node(op, [x.name], [y.name], attrs), `${op}(${JSON.stringify(attrs)})`);
  return true;
};

const transpose: Step = (b) => {
  const x = b.pickAny((v) => v.shape.length >= 2);
  if (!x) return false;
  const perm = x.shape.map((_, i) => i);
  for (let i = perm.length - 1; i > 0; i--) {
    const j = b.rng.int(i + 1);
    [perm[i], perm[j]] = [perm[j]!, perm[i]!];
  }
  const useDefault = b.rng.chance(0.2);
  const outShape = useDefault ? [...x.shape].reverse() : perm.map((p) => x.shape[p]!);
  const y = b.out(x.dtype, outShape, x.special);
  b.add(node("Transpose", [x.name], [y.name], useDefault ? {} : { perm }), `Transpose(${perm})`);
  return true;
};

const reshape: Step = (b) => {
  const x = b.pickAny((v) => v.shape.length >= 1);
  if (!x) return false;
  const n = size(x.shape);
  // Regroup the elements: a random factorisation of n, sometimes with -1 or 0.
  const target: number[] = [];
  let rest = n;
  while (rest > 1 && target.length < 3) {
    const divisors = Array.from({ length: rest }, (_, i) => i + 1).filter((d) => rest % d === 0);
    const d = b.rng.pick(divisors);
    target.push(d);
    rest /= d;
  }
  if (rest > 1 || target.length === 0) target.push(rest);
  const spec = [...target];
  if (b.rng.chance(0.3)) spec[b.rng.int(spec.length)] = -1;
  const y = b.out(x.dtype, target, x.special);
  b.add(node("Reshape", [x.name, b.ints(spec)], [y.name]), `Reshape(${spec})`);
  return true;
};

const unsqueezeSqueeze: Step = (b) => {
  const x = b.pickAny();
  if (!x) return false;
  const r = x.shape.length;
  const axesInput = b.opset >= 13;
  if (b.rng.chance(0.5) || !x.shape.includes(1)) {
    if (r >= 5) return false;
    const axis = b.rng.range(-(r + 1), r);
    const pos = axis < 0 ? axis + r + 1 : axis;
    const out = [...x.shape.slice(0, pos), 1, ...x.shape.slice(pos)];
    const y = b.out(x.dtype, out, x.special);
    const n = axesInput
      ? node("Unsqueeze", [x.name, b.ints([axis])], [y.name])
      : node("Unsqueeze", [x.name], [y.name], { axes: [b.opset >= 11 ? axis : pos] });
    b.add(n, `Unsqueeze(${axis})`);
  } else {
    const pos = x.shape.indexOf(1);
    const out = x.shape.filter((_, i) => i !== pos);
    const y = b.out(x.dtype, out, x.special);
    const n = axesInput
      ? node("Squeeze", [x.name, b.ints([pos])], [y.name])
      : node("Squeeze", [x.name], [y.name], { axes: [pos] });
    b.add(n, `Squeeze(${pos})`);
  }
  return true;
};

const concat: Step = (b) => {
  const x = b.pickAny((v) => v.shape.length >= 1);
  if (!x) return false;
  const axis = b.rng.int(x.shape.length);
  const other = [...x.shape];
  other[axis] = b.rng.range(1, 4);
  const o = b.rng.chance(0.5)
    ? b.input(x.dtype, other).name
    : isFloat(x.dtype)
      ? b.floatInit(x.dtype, other)
      : b.input(x.dtype, other).name;
  const out = [...x.shape];
  out[axis] = x.shape[axis]! + other[axis]!;
  const y = b.out(x.dtype, out, x.special);
  const signed = b.opset >= 11 && b.rng.chance(0.5) ? axis - x.shape.length : axis;
  b.add(node("Concat", [x.name, o], [y.name], { axis: signed }), `Concat(axis=${signed})`);
  return true;
};

const slice: Step = (b) => {
  const x = b.pickAny((v) => v.shape.some((d) => d >= 2));
  if (!x) return false;
  const axis = x.shape.findIndex((d) => d >= 2);
  const d = x.shape[axis]!;
  const start = b.rng.int(d - 1);
  const end = b.rng.range(start + 1, d);
  const out = [...x.shape];
  out[axis] = end - start;
  const y = b.out(x.dtype, out, x.special);
  const n =
    b.opset >= 10
      ? node("Slice", [x.name, b.ints([start]), b.ints([end]), b.ints([axis])], [y.name])
      : node("Slice", [x.name], [y.name], { starts: [start], ends: [end], axes: [axis] });
  b.add(n, `Slice(${axis}: ${start}..${end})`);
  return true;
};

const gather: Step = (b) => {
  const x = b.pickAny((v) => v.shape.length >= 1);
  if (!x) return false;
  const axis = b.rng.int(x.shape.length);
  const count = b.rng.range(1, 3);
  const idx = Array.from({ length: count }, () => b.rng.int(x.shape[axis]!));
  const out = [...x.shape.slice(0, axis), count, ...x.shape.slice(axis + 1)];
  const y = b.out(x.dtype, out, x.special);
  b.add(node("Gather", [x.name, b.ints(idx)], [y.name], { axis }), `Gather(${axis}, ${idx})`);
  return true;
};

const clip: Step = (b) => {
  const x = b.pickFloat();
  const lo = b.rng.pick([-1, -0.5, 0]);
  const hi = lo + b.rng.pick([0.5, 1, 2]);
  const y = b.out(x.dtype, x.shape, x.special);
  if (b.opset >= 11) {
    const mk = (v: number) => {
      const name = b.name("c");
      b.inits.push(toIRTensor(randomTensorOf(x.dtype, v), name));
      return name;
    };
    b.add(node("Clip", [x.name, mk(lo), mk(hi)], [y.name]), `Clip(${lo}, ${hi})`);
  } else {
    const n = node("Clip", [x.name], [y.name]);
    n.attributes.push(attr("min", lo, "FLOAT"), attr("max", hi, "FLOAT"));
    b.add(n, `Clip(${lo}, ${hi})`);
  }
  return true;
};

function randomTensorOf(dtype: number, v: number): RTensor {
  const r = randomTensor(dtype, [], seededRandom(0));
  if (r.data instanceof Float32Array || r.data instanceof Float64Array) r.data[0] = v;
  return r;
}

const matmul: Step = (b) => {
  const x = b.pickAny((v) => isFloat(v.dtype) && v.shape.length >= 1 && v.shape.length <= 3);
  if (!x || x.dtype === DataType.FLOAT16) return false;
  const k = x.shape[x.shape.length - 1]!;
  const n = b.rng.range(1, 4);
  const w = b.floatInit(x.dtype, [k, n]);
  const out = [...x.shape.slice(0, -1), n];
  const y = b.out(x.dtype, out, x.special);
  b.add(node("MatMul", [x.name, w], [y.name]), `MatMul([${k},${n}])`);
  return true;
};

const cumsum: Step = (b) => {
  if (b.opset < 11) return false;
  const x = b.pickAny((v) => isFloat(v.dtype) && v.shape.length >= 1);
  if (!x) return false;
  const axis = b.rng.range(-x.shape.length, x.shape.length - 1);
  const attrs = { exclusive: b.rng.int(2), reverse: b.rng.int(2) };
  const y = b.out(x.dtype, x.shape, x.special);
  const a = b.name("c");
  b.inits.push(Tensor.from(DataType.INT64, [], [BigInt(axis)], a));
  b.add(node("CumSum", [x.name, a], [y.name], attrs), `CumSum(${axis}, ${JSON.stringify(attrs)})`);
  return true;
};

const logcumsumexp: Step = (b) => {
  if (b.opset < 29) return false;
  const x = b.pickAny((v) => isFloat(v.dtype) && v.shape.length >= 1);
  if (!x) return false;
  const axis = b.rng.range(-x.shape.length, x.shape.length - 1);
  const y = b.out(x.dtype, x.shape, true);
  b.add(node("LogCumSumExp", [x.name], [y.name], { axis }), `LogCumSumExp(${axis})`);
  return true;
};

const compareWhere: Step = (b) => {
  if (b.opset < 9) return false;
  const x = b.pickFloat();
  if (x.special) return false;
  const op = b.rng.pick(["Greater", "Less"]);
  const z = b.floatInit(x.dtype, x.shape);
  const c = b.out(DataType.BOOL, x.shape, false);
  b.add(node(op, [x.name, z], [c.name]), `${op}`);
  b.pool.pop();
  const y = b.out(x.dtype, x.shape, false);
  b.add(node("Where", [c.name, x.name, z], [y.name]), `Where`);
  return true;
};

const argmax: Step = (b) => {
  const x = b.pickAny((v) => isFloat(v.dtype) && !v.special && v.shape.length >= 1);
  if (!x) return false;
  const op = b.rng.pick(["ArgMax", "ArgMin"]);
  const axis = b.rng.int(x.shape.length);
  const keepdims = b.rng.int(2);
  const out = keepdims
    ? x.shape.map((d, i) => (i === axis ? 1 : d))
    : x.shape.filter((_, i) => i !== axis);
  const y = b.out(DataType.INT64, out, false);
  b.add(node(op, [x.name], [y.name], { axis, keepdims }), `${op}(${axis}, ${keepdims})`);
  b.pool.pop(); // int64 indices feed nothing else here
  const f = b.out(x.dtype, out, false);
  b.add(node("Cast", [y.name], [f.name], { to: x.dtype }), `Cast(to=${x.dtype})`);
  return true;
};

const layerNorm: Step = (b) => {
  if (b.opset < 17) return false;
  const x = b.pickAny(
    (v) => isFloat(v.dtype) && v.shape.length >= 1 && v.dtype !== DataType.FLOAT16,
  );
  if (!x) return false;
  const axis = b.rng.range(-x.shape.length, x.shape.length - 1);
  const norm = x.shape.slice(axis < 0 ? axis + x.shape.length : axis);
  const scale = b.floatInit(x.dtype, norm);
  const bias = b.floatInit(x.dtype, norm);
  const y = b.out(x.dtype, x.shape, x.special);
  b.add(
    node("LayerNormalization", [x.name, scale, bias], [y.name], { axis }),
    `LayerNormalization(${axis})`,
  );
  return true;
};

/** An If on a constant condition whose branches read an outer value. */
const ifStep: Step = (b) => {
  const x = b.pickFloat();
  const cond = b.name("cond");
  b.inits.push(Tensor.from(DataType.BOOL, [], [b.rng.int(2)], cond));
  const branch = (op: string): Graph => {
    const o = b.name("br");
    return graph({
      name: b.name("g"),
      nodes: [node(op, [x.name], [o])],
      inputs: [],
      outputs: [valueInfo(o, x.dtype, x.shape)],
    });
  };
  const y = b.out(x.dtype, x.shape, x.special);
  b.add(
    node("If", [cond], [y.name], { then_branch: branch("Relu"), else_branch: branch("Neg") }),
    "If(Relu | Neg)",
  );
  return true;
};

/** A Loop with a small trip count that adds an outer value to a carried one. */
const loopStep: Step = (b) => {
  const x = b.pickFloat();
  const trips = b.rng.range(0, 3);
  const m = b.name("trips");
  b.inits.push(Tensor.from(DataType.INT64, [], [BigInt(trips)], m));
  const [i, c, acc, accOut, cOut] = ["i", "cin", "acc", "acc_out", "cout"].map((s) => b.name(s));
  const body = graph({
    name: b.name("body"),
    nodes: [node("Add", [acc!, x.name], [accOut!]), node("Identity", [c!], [cOut!])],
    inputs: [
      valueInfo(i!, DataType.INT64, []),
      valueInfo(c!, DataType.BOOL, []),
      valueInfo(acc!, x.dtype, x.shape),
    ],
    outputs: [valueInfo(cOut!, DataType.BOOL, []), valueInfo(accOut!, x.dtype, x.shape)],
  });
  const y = b.out(x.dtype, x.shape, x.special);
  b.add(node("Loop", [m, "", x.name], [y.name], { body }), `Loop(${trips})`);
  return true;
};

/** A call of a model-local function (Mul then Add with an attribute-free body). */
const functionStep: Step = (b) => {
  if (b.opset < 13) return false; // local functions need IR 8
  const x = b.pickFloat();
  const fname = b.functions.length ? b.functions[0]!.name : "MulAdd";
  if (!b.functions.length)
    b.functions.push({
      name: fname,
      domain: "local.gen",
      inputs: ["a", "b"],
      outputs: ["y"],
      attributes: [],
      attributeProtos: [],
      nodes: [node("Mul", ["a", "b"], ["t"]), node("Add", ["t", "a"], ["y"])],
      opsetImports: [{ domain: "", version: b.opset }],
      valueInfo: [],
    });
  const w = b.floatInit(x.dtype, x.shape);
  const y = b.out(x.dtype, x.shape, x.special);
  b.add(node(fname, [x.name, w], [y.name], {}, { domain: "local.gen" }), "local MulAdd");
  return true;
};

const STEPS: [Step, number][] = [
  [unary, 6],
  [binary, 6],
  [reduce, 6],
  [softmax, 2],
  [transpose, 2],
  [reshape, 2],
  [unsqueezeSqueeze, 2],
  [concat, 2],
  [slice, 2],
  [gather, 1],
  [clip, 1],
  [matmul, 2],
  [cumsum, 1],
  [logcumsumexp, 2],
  [compareWhere, 1],
  [argmax, 1],
  [layerNorm, 1],
];
const CONTROL: [Step, number][] = [
  [ifStep, 1],
  [loopStep, 1],
  [functionStep, 1],
];

/** Model `seed` cut after `steps` steps (model(seed, n) is a prefix of model(seed, n + 1)). */
export function generateModel(seed: number, opts: GenOptions = {}): Generated {
  const rng = seededRandom(seed);
  const lo = opts.minOpset ?? 7;
  const hi = opts.maxOpset ?? 26;
  const opset = opts.opset ?? rng.range(lo, hi);
  const total = rng.range(1, 10);
  const steps = opts.steps ?? total;
  const b = new Builder(rng, opset);
  const table = opts.control === false ? STEPS : [...STEPS, ...CONTROL];
  const weights = table.reduce((s, [, w]) => s + w, 0);
  b.input(rng.pick(FLOAT_TYPES), b.shape(rng.range(1, 3)));
  let added = 0;
  for (let attempt = 0; added < steps && attempt < steps * 20; attempt++) {
    // Each attempt draws from its own stream, so a failed attempt does not shift later steps.
    const stepRng = seededRandom(deriveSeed(seed, attempt));
    let w = stepRng.int(weights);
    const [step] = table.find(([, wt]) => (w -= wt) < 0)!;
    const saved = { counter: b.nodes.length, pool: b.pool.length };
    (b as { rng: Random }).rng = stepRng;
    if (step(b)) added++;
    else if (b.nodes.length !== saved.counter) throw new Error("a refused step added nodes");
  }
  const last = b.pool[b.pool.length - 1]!;
  const outputs = [last];
  const extra = b.pool.filter((v) => v !== last && !b.inputs.includes(v));
  if (extra.length && rng.chance(0.3)) outputs.push(rng.pick(extra));
  const needsIr8 = b.functions.length > 0;
  const opsets = [{ domain: "", version: opset }];
  if (needsIr8) opsets.push({ domain: "local.gen", version: 1 });
  const ir = Math.max(minIrVersionForOpset(opset), needsIr8 ? 8 : 3);
  // IR 3 requires every initializer to be a graph input too.
  const initInputs = ir < 4 ? b.inits.map((t) => valueInfo(t.name, t.dataType, [...t.dims])) : [];
  const m = model(
    graph({
      name: `generated_${seed}`,
      nodes: b.nodes,
      inputs: [...b.inputs.map((v) => valueInfo(v.name, v.dtype, v.shape)), ...initInputs],
      outputs: outputs.map((v) => valueInfo(v.name, v.dtype, v.shape)),
      initializers: b.inits,
    }),
    opsets,
    ir,
  );
  m.functions = b.functions;
  return { seed, opset, model: m, feeds: b.feeds, steps: b.steps };
}

/** The smallest number of steps for which `fails` still holds (or `steps` if none smaller). */
export async function shrink(
  seed: number,
  opts: GenOptions,
  steps: number,
  fails: (g: Generated) => Promise<boolean>,
): Promise<Generated> {
  for (let n = 1; n < steps; n++) {
    const g = generateModel(seed, { ...opts, steps: n });
    if (await fails(g)) return g;
  }
  return generateModel(seed, { ...opts, steps });
}
