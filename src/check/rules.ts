// Per-operator type and shape rules (ai.onnx). Each rule reads the node's input types, known
// constant inputs and attributes, fills in output types (and constants, for the ops that
// compute shapes), and reports static impossibilities (axis out of range, shapes that cannot
// broadcast) as problems naming the reason.

import { dtypeInfo, dtypeName } from "../ir/dtype.js";
import type { Tensor } from "../ir/tensor.js";
import { DataType, type Attribute, type Dim, type Node, type Type } from "../ir/types.js";
import {
  binaryConst,
  castValues,
  constFromTensor,
  isIntegerType,
  MAX_CONST_ELEMENTS,
  type ConstVal,
} from "./consts.js";
import { einsumEquationError } from "./einsum.js";
import type { ProblemCode } from "./report.js";
import { broadcastShapes, formatShape, isTensor, tensorOf } from "./types.js";

export interface RuleCtx {
  node: Node;
  /** The resolved schema version (its `since`); 0 when not resolved. */
  version: number;
  inputs: (Type | undefined)[];
  consts: (ConstVal | undefined)[];
  /** Filled by the rule. */
  outputs: (Type | undefined)[];
  outConsts: (ConstVal | undefined)[];
  /** 1-D integer values known only in part (a shape with symbolic or unknown dimensions). */
  syms: (Dim[] | undefined)[];
  outSyms: (Dim[] | undefined)[];
  /** The attribute, with references resolved when the caller's values are known (value undefined: unknown). */
  attr(name: string): Attribute | undefined;
  error(code: ProblemCode, message: string): void;
  /** Checks one of the node's graph attributes with the given input types; returns its output types. */
  subgraph(
    attrName: string,
    inputTypes?: (Type | undefined)[],
    /** Shapes given are first-iteration shapes: a different declared shape is not an error. */
    loose?: boolean,
  ): (Type | undefined)[] | undefined;
}

export type Rule = (c: RuleCtx) => void;

// ---- attribute access: undefined = absent, null = present but unknown (a function reference) ----

function attrIntOf(c: RuleCtx, name: string): number | undefined | null {
  const a = c.attr(name);
  if (!a) return undefined;
  if (a.type !== "INT" || a.value === undefined) return null;
  return clampInt(a.value);
}
function intAttr(c: RuleCtx, name: string, dflt: number): number | null {
  const v = attrIntOf(c, name);
  return v === undefined ? dflt : v;
}
function intsAttr(c: RuleCtx, name: string): number[] | undefined | null {
  const a = c.attr(name);
  if (!a) return undefined;
  if (a.type !== "INTS" || a.value === undefined) return null;
  return a.value.map(clampInt);
}
function clampInt(v: bigint): number {
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return Number(v > max ? max : v < -max ? -max : v);
}

// ---- small helpers ----

const opName = (c: RuleCtx) => (c.version ? `${c.node.opType}-${c.version}` : c.node.opType);

function tin(c: RuleCtx, i: number) {
  const t = c.inputs[i];
  return isTensor(t) ? t : undefined;
}
function shapeOf(c: RuleCtx, i: number): Dim[] | undefined {
  return tin(c, i)?.shape;
}
function elemOf(c: RuleCtx, i: number): number {
  return tin(c, i)?.elemType ?? 0;
}
function present(c: RuleCtx, i: number): boolean {
  return (c.node.inputs[i] ?? "") !== "";
}
function out(c: RuleCtx, i: number, elemType: number, shape?: Dim[]): void {
  c.outputs[i] = tensorOf(elemType, shape);
}
function inName(c: RuleCtx, i: number): string {
  return c.node.inputs[i] ?? "";
}
/** Integer values of a constant input (1-D or scalar). */
function intsInput(c: RuleCtx, i: number): number[] | undefined {
  if (!present(c, i)) return undefined;
  const k = c.consts[i];
  return k && isIntegerType(k.elemType) ? k.values : undefined;
}

/** Normalises an axis against a rank; reports and returns undefined when out of range. */
function normAxis(c: RuleCtx, axis: number, rank: number, what = "axis"): number | undefined {
  if (axis < -rank || axis >= rank) {
    const range =
      rank === 0 ? "a rank-0 input has no axes" : `valid range is [${-rank}, ${rank - 1}]`;
    c.error(
      "axis-out-of-range",
      `${opName(c)}: ${what} ${axis} is out of range for input '${inName(c, 0)}' of rank ${rank} (${range})`,
    );
    return undefined;
  }
  return axis < 0 ? axis + rank : axis;
}

/** A 1-D integer input's values, each known, symbolic or unknown (null). */
function symInput(c: RuleCtx, i: number): Dim[] | undefined {
  if (!present(c, i)) return undefined;
  return intsInput(c, i) ?? c.syms[i];
}

function setConst(c: RuleCtx, i: number, v: ConstVal | undefined): void {
  if (v && v.values.length <= MAX_CONST_ELEMENTS) c.outConsts[i] = v;
}

function product(dims: Dim[]): number | undefined {
  let n = 1;
  for (const d of dims) {
    if (typeof d !== "number") return undefined;
    n *= d;
  }
  return n;
}

// ---- elementwise ----

const sameAsInput: Rule = (c) => {
  const t = tin(c, 0);
  if (t) c.outputs[0] = { ...t, kind: "tensor" };
};

const boolSameShape: Rule = (c) => {
  const t = tin(c, 0);
  out(c, 0, DataType.BOOL, t?.shape);
};

/** Broadcasts the given inputs' shapes; reports a clash. Undefined if some shape is unknown. */
function broadcastInputs(c: RuleCtx, idx: number[]): Dim[] | undefined {
  const shapes: Dim[][] = [];
  for (const i of idx) {
    if (!present(c, i)) continue;
    const s = shapeOf(c, i);
    if (!s) return undefined;
    shapes.push(s);
  }
  if (shapes.length === 0) return undefined;
  const r = broadcastShapes(shapes);
  if (typeof r === "string") {
    const names = idx.filter((i) => present(c, i)).map((i) => `'${inName(c, i)}'`);
    c.error(
      "shape-mismatch",
      `${opName(c)}: inputs ${names.join(", ")} have incompatible shapes: ${r}`,
    );
    return undefined;
  }
  return r;
}

function allInputs(c: RuleCtx): number[] {
  return c.node.inputs.map((_, i) => i);
}

/**
 * Before multidirectional broadcasting (opset 7; 8 for Max/Min/Sum/Mean), the second input was
 * broadcast to the first (with `broadcast`/`axis` attributes, or per channel for PRelu): the
 * result has the first input's shape.
 */
function legacyShape(c: RuleCtx, before: number): Dim[] | undefined | false {
  return c.version > 0 && c.version < before ? shapeOf(c, 0) : false;
}
function elementwiseShape(c: RuleCtx, before = 7): Dim[] | undefined {
  const legacy = legacyShape(c, before);
  return legacy === false ? broadcastInputs(c, allInputs(c)) : legacy;
}

const arith =
  (f?: (x: number, y: number, integer: boolean) => number): Rule =>
  (c) => {
    const shape = elementwiseShape(c);
    const elem = elemOf(c, 0) || elemOf(c, 1);
    out(c, 0, elem, shape);
    const a = c.consts[0];
    const b = c.consts[1];
    if (f && a && b && c.node.inputs.length === 2) {
      const integer = isIntegerType(a.elemType);
      setConst(
        c,
        0,
        binaryConst(a, b, (x, y) => f(x, y, integer)),
      );
    }
  };

const comparison: Rule = (c) => {
  out(c, 0, DataType.BOOL, elementwiseShape(c));
};

const variadicSame: Rule = (c) => {
  const elem = c.inputs.map((t) => (isTensor(t) ? t.elemType : 0)).find((e) => e) ?? 0;
  out(c, 0, elem, elementwiseShape(c, 8));
};

const where: Rule = (c) => {
  out(c, 0, elemOf(c, 1) || elemOf(c, 2), broadcastInputs(c, [0, 1, 2]));
};

// ---- casts and constants ----

const cast: Rule = (c) => {
  const to = attrIntOf(c, "to");
  const shape = shapeOf(c, 0);
  if (to === null || to === undefined) {
    out(c, 0, 0, shape);
    return;
  }
  if (!dtypeInfo(to)) {
    c.error(
      "bad-attribute-value",
      `${opName(c)}: attribute 'to' = ${to} is not a tensor element type`,
    );
    out(c, 0, 0, shape);
    return;
  }
  out(c, 0, to, shape);
  if (isIntegerType(to) && to !== DataType.BOOL) c.outSyms[0] = c.syms[0];
  const k = c.consts[0];
  if (k) {
    const v = castValues(k.values, to);
    if (v) setConst(c, 0, { elemType: to, dims: k.dims, values: v });
  }
};

const castLike: Rule = (c) => {
  out(c, 0, elemOf(c, 1), shapeOf(c, 0));
  const k = c.consts[0];
  const to = elemOf(c, 1);
  if (k && to) {
    const v = castValues(k.values, to);
    if (v) setConst(c, 0, { elemType: to, dims: k.dims, values: v });
  }
};

const VALUE_ATTRS = [
  "value",
  "sparse_value",
  "value_float",
  "value_floats",
  "value_int",
  "value_ints",
  "value_string",
  "value_strings",
];

const constant: Rule = (c) => {
  const given = VALUE_ATTRS.filter((n) => c.attr(n));
  if (given.length !== 1) {
    c.error(
      "bad-attribute-value",
      given.length === 0
        ? `${opName(c)} needs one value attribute (value, value_float, value_ints, ...), none is set`
        : `${opName(c)} needs exactly one value attribute, got ${given.join(", ")}`,
    );
    return;
  }
  const a = c.attr(given[0]!)!;
  if (a.value === undefined) {
    // A reference inside a function: the type follows from the attribute's kind where it can.
    if (a.type === "FLOAT") out(c, 0, DataType.FLOAT, []);
    else if (a.type === "INT") out(c, 0, DataType.INT64, []);
    else if (a.type === "FLOATS") out(c, 0, DataType.FLOAT, [null]);
    else if (a.type === "INTS") out(c, 0, DataType.INT64, [null]);
    else if (a.type === "STRING") out(c, 0, DataType.STRING, []);
    else if (a.type === "STRINGS") out(c, 0, DataType.STRING, [null]);
    return;
  }
  switch (a.type) {
    case "TENSOR": {
      const t = a.value as Tensor;
      out(c, 0, t.dataType, [...t.dims]);
      setConst(c, 0, constFromTensor(t));
      return;
    }
    case "SPARSE_TENSOR":
      c.outputs[0] = {
        kind: "tensor",
        elemType: a.value.values.dataType,
        shape: [...a.value.dims],
      };
      return;
    case "FLOAT":
      out(c, 0, DataType.FLOAT, []);
      setConst(c, 0, { elemType: DataType.FLOAT, dims: [], values: [a.value] });
      return;
    case "FLOATS":
      out(c, 0, DataType.FLOAT, [a.value.length]);
      setConst(c, 0, { elemType: DataType.FLOAT, dims: [a.value.length], values: [...a.value] });
      return;
    case "INT":
      out(c, 0, DataType.INT64, []);
      setConst(c, 0, { elemType: DataType.INT64, dims: [], values: [clampInt(a.value)] });
      return;
    case "INTS":
      out(c, 0, DataType.INT64, [a.value.length]);
      setConst(c, 0, {
        elemType: DataType.INT64,
        dims: [a.value.length],
        values: a.value.map(clampInt),
      });
      return;
    case "STRING":
      out(c, 0, DataType.STRING, []);
      return;
    case "STRINGS":
      out(c, 0, DataType.STRING, [a.value.length]);
      return;
    default:
  }
};

const identity: Rule = (c) => {
  sameAsInput(c);
  setConst(c, 0, c.consts[0]);
  c.outSyms[0] = c.syms[0];
};

// ---- shape ops ----

const shapeOp: Rule = (c) => {
  const s = shapeOf(c, 0);
  if (!s) {
    out(c, 0, DataType.INT64, [null]);
    return;
  }
  const r = s.length;
  const clamp = (v: number) => Math.min(r, Math.max(0, v < 0 ? v + r : v));
  const start = clamp(intAttr(c, "start", 0) ?? 0);
  const endAttr = intAttr(c, "end", r);
  if (endAttr === null) {
    out(c, 0, DataType.INT64, [null]);
    return;
  }
  const end = clamp(endAttr);
  const dims = s.slice(start, Math.max(start, end));
  out(c, 0, DataType.INT64, [dims.length]);
  if (dims.every((d) => typeof d === "number")) {
    setConst(c, 0, { elemType: DataType.INT64, dims: [dims.length], values: dims as number[] });
  } else c.outSyms[0] = dims;
};

const size: Rule = (c) => {
  out(c, 0, DataType.INT64, []);
  const s = shapeOf(c, 0);
  const n = s && product(s);
  if (n !== undefined) setConst(c, 0, { elemType: DataType.INT64, dims: [], values: [n] });
};

/** Length of a slice of a dimension, as Slice computes it. */
function sliceLength(d: number, start: number, end: number, step: number): number {
  if (start < 0) start += d;
  if (end < 0) end += d;
  if (step > 0) {
    start = Math.min(Math.max(start, 0), d);
    end = Math.min(Math.max(end, 0), d);
    return Math.max(0, Math.ceil((end - start) / step));
  }
  start = Math.min(Math.max(start, 0), d - 1);
  end = Math.min(Math.max(end, -1), d - 1);
  return Math.max(0, Math.ceil((start - end) / -step));
}

const slice: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  let starts: number[] | undefined | null;
  let ends: number[] | undefined | null;
  let axes: number[] | undefined | null;
  let steps: number[] | undefined | null;
  if (c.version > 0 && c.version < 10) {
    starts = intsAttr(c, "starts");
    ends = intsAttr(c, "ends");
    axes = intsAttr(c, "axes");
    steps = undefined;
  } else {
    starts = intsInput(c, 1) ?? null;
    ends = intsInput(c, 2) ?? null;
    axes = present(c, 3) ? (intsInput(c, 3) ?? null) : undefined;
    steps = present(c, 4) ? (intsInput(c, 4) ?? null) : undefined;
  }
  if (!s) {
    out(c, 0, elem);
    return;
  }
  const r = s.length;
  if (!starts || !ends || axes === null || steps === null) {
    // Bounds unknown: the rank stays, the sliced dimensions become unknown.
    const known = axes ?? undefined;
    const dims = s.map<Dim>((d, i) =>
      known && !known.some((a) => (a < 0 ? a + r : a) === i) ? d : null,
    );
    out(c, 0, elem, dims);
    return;
  }
  if (starts.length !== ends.length) {
    c.error(
      "shape-mismatch",
      `${opName(c)}: starts has ${starts.length} values but ends has ${ends.length}`,
    );
    out(
      c,
      0,
      elem,
      s.map(() => null),
    );
    return;
  }
  const ax = axes ?? starts.map((_, i) => i);
  const st = steps ?? starts.map(() => 1);
  if (ax.length !== starts.length || st.length !== starts.length) {
    c.error(
      "shape-mismatch",
      `${opName(c)}: starts, ends, axes and steps must have the same length`,
    );
    out(
      c,
      0,
      elem,
      s.map(() => null),
    );
    return;
  }
  const dims = [...s];
  for (let k = 0; k < ax.length; k++) {
    const a = normAxis(c, ax[k]!, r);
    if (a === undefined) {
      out(
        c,
        0,
        elem,
        s.map(() => null),
      );
      return;
    }
    if (st[k] === 0) {
      c.error("bad-attribute-value", `${opName(c)}: a slice step is 0`);
      return;
    }
    const d = s[a]!;
    if (typeof d === "number") dims[a] = sliceLength(d, starts[k]!, ends[k]!, st[k]!);
    else if (!(starts[k] === 0 && st[k] === 1 && ends[k]! >= Number.MAX_SAFE_INTEGER))
      dims[a] = null;
  }
  out(c, 0, elem, dims);
  const k0 = c.consts[0];
  if (k0 && r === 1 && typeof dims[0] === "number") {
    const n = k0.values.length;
    let b = starts[0]!;
    const step = st[0]!;
    if (b < 0) b += n;
    b = step > 0 ? Math.min(Math.max(b, 0), n) : Math.min(Math.max(b, 0), n - 1);
    const vals: number[] = [];
    for (let i = 0, p = b; i < dims[0]; i++, p += step) vals.push(k0.values[p]!);
    setConst(c, 0, { elemType: k0.elemType, dims: [vals.length], values: vals });
  }
  const sy = c.syms[0];
  if (!k0 && sy && r === 1 && typeof dims[0] === "number") {
    const n = sy.length;
    const step = st[0]!;
    let b = starts[0]!;
    if (b < 0) b += n;
    b = step > 0 ? Math.min(Math.max(b, 0), n) : Math.min(Math.max(b, 0), n - 1);
    const vals: Dim[] = [];
    for (let i = 0, p = b; i < dims[0]; i++, p += step) vals.push(sy[p] ?? null);
    c.outSyms[0] = vals;
  }
};

const pad: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  if (!s) {
    out(c, 0, elem);
    return;
  }
  const r = s.length;
  let pads: number[] | undefined | null;
  if (c.version > 0 && c.version < 11) pads = intsAttr(c, "pads") ?? intsAttr(c, "paddings");
  else pads = intsInput(c, 1) ?? null;
  const axes: number[] | undefined | null = present(c, 3) ? (intsInput(c, 3) ?? null) : undefined;
  if (!pads || axes === null) {
    out(
      c,
      0,
      elem,
      s.map(() => null),
    );
    return;
  }
  const ax: number[] = [];
  for (const a of axes ?? s.map((_, i) => i)) {
    const n = normAxis(c, a, r);
    if (n === undefined) return;
    ax.push(n);
  }
  if (pads.length !== 2 * ax.length) {
    c.error(
      "shape-mismatch",
      `${opName(c)}: pads has ${pads.length} values, expected ${2 * ax.length} (2 per padded axis)`,
    );
    return;
  }
  const dims = [...s];
  ax.forEach((a, k) => {
    const d = dims[a];
    dims[a] = typeof d === "number" ? d + pads![k]! + pads![k + ax.length]! : null;
  });
  out(c, 0, elem, dims);
};

const concat: Rule = (c) => {
  const elem = c.inputs.map((t) => (isTensor(t) ? t.elemType : 0)).find((e) => e) ?? 0;
  const axisAttr = attrIntOf(c, "axis");
  const shapes = c.inputs.map((t) => (isTensor(t) ? t.shape : undefined));
  if (shapes.length === 0) return;
  if (axisAttr === null || axisAttr === undefined || shapes.some((s) => !s)) {
    const known = shapes.find((s) => s);
    out(c, 0, elem, known && axisAttr !== null ? known.map(() => null) : undefined);
    return;
  }
  const r = shapes[0]!.length;
  for (let i = 1; i < shapes.length; i++) {
    if (shapes[i]!.length !== r) {
      c.error(
        "shape-mismatch",
        `${opName(c)}: inputs '${inName(c, 0)}' ${formatShape(shapes[0])} and '${inName(c, i)}' ${formatShape(shapes[i])} differ in rank`,
      );
      return;
    }
  }
  const axis = normAxis(c, axisAttr, r);
  if (axis === undefined) return;
  const dims: Dim[] = [];
  for (let k = 0; k < r; k++) {
    if (k === axis) {
      let sum: number | null = 0;
      for (const s of shapes) {
        const d = s![k]!;
        sum = typeof d === "number" && sum !== null ? sum + d : null;
      }
      dims.push(sum);
      continue;
    }
    let d: Dim = shapes[0]![k]!;
    for (let i = 1; i < shapes.length; i++) {
      const e = shapes[i]![k]!;
      if (typeof d === "number" && typeof e === "number" && d !== e) {
        c.error(
          "shape-mismatch",
          `${opName(c)}: inputs '${inName(c, 0)}' ${formatShape(shapes[0])} and '${inName(c, i)}' ${formatShape(shapes[i])} differ in dimension ${k}, which is not the concatenation axis`,
        );
        return;
      }
      if (typeof d !== "number") d = typeof e === "number" ? e : d === e ? d : null;
    }
    dims.push(d);
  }
  out(c, 0, elem, dims);
  const parts = c.inputs.map((_, i) => symInput(c, i));
  if (r === 1 && parts.every((p) => p) && !c.consts.every((k) => k)) {
    c.outSyms[0] = parts.flatMap((p) => p!);
  }
  if (r === 1 && c.consts.length === c.inputs.length && c.consts.every((k) => k)) {
    setConst(c, 0, {
      elemType: c.consts[0]!.elemType,
      dims: [c.consts.reduce((n, k) => n + k!.values.length, 0)],
      values: c.consts.flatMap((k) => k!.values),
    });
  }
};

const gather: Rule = (c) => {
  const s = shapeOf(c, 0);
  const is = shapeOf(c, 1);
  const elem = elemOf(c, 0);
  const axisAttr = intAttr(c, "axis", 0);
  if (!s || !is || axisAttr === null) {
    out(c, 0, elem);
    return;
  }
  const axis = normAxis(c, axisAttr, s.length);
  if (axis === undefined) return;
  out(c, 0, elem, [...s.slice(0, axis), ...is, ...s.slice(axis + 1)]);
  const data = c.consts[0];
  const idx = c.consts[1];
  if (data && idx && s.length === 1) {
    const n = data.values.length;
    const vals: number[] = [];
    for (const i of idx.values) {
      const j = i < 0 ? i + n : i;
      if (j < 0 || j >= n) {
        c.error(
          "axis-out-of-range",
          `${opName(c)}: index ${i} is out of range for a dimension of size ${n}`,
        );
        return;
      }
      vals.push(data.values[j]!);
    }
    setConst(c, 0, { elemType: data.elemType, dims: [...idx.dims], values: vals });
  }
  const sy = c.syms[0];
  if (!data && sy && idx && s.length === 1) {
    const vals = idx.values.map((i) => sy[i < 0 ? i + sy.length : i] ?? null);
    c.outSyms[0] = vals;
  }
};

function axesArg(c: RuleCtx, attrBefore: number): number[] | undefined | null {
  if (c.version > 0 && c.version < attrBefore) return intsAttr(c, "axes");
  if (!present(c, 1)) return undefined;
  return intsInput(c, 1) ?? null;
}

const unsqueeze: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  const axes = axesArg(c, 13);
  if (!s || !axes) {
    if (axes === undefined && !(c.version > 0 && c.version < 13) && !present(c, 1)) {
      c.error("missing-input", `${opName(c)} needs the axes input`);
    }
    const k = c.inputs[1];
    const n = isTensor(k) && k.shape?.length === 1 ? k.shape[0] : undefined;
    out(c, 0, elem, s && typeof n === "number" ? unknownDims(s.length + n) : undefined);
    return;
  }
  const r = s.length + axes.length;
  const norm: number[] = [];
  for (const a of axes) {
    if (a < -r || a >= r) {
      c.error(
        "axis-out-of-range",
        `${opName(c)}: axis ${a} is out of range for output rank ${r} (valid range is [${-r}, ${r - 1}])`,
      );
      return;
    }
    const n = a < 0 ? a + r : a;
    if (norm.includes(n)) {
      c.error("bad-attribute-value", `${opName(c)}: axis ${a} appears twice`);
      return;
    }
    norm.push(n);
  }
  const dims: Dim[] = [];
  let j = 0;
  for (let i = 0; i < r; i++) dims.push(norm.includes(i) ? 1 : s[j++]!);
  out(c, 0, elem, dims);
  const k = c.consts[0];
  if (k) setConst(c, 0, { ...k, dims: dims as number[] });
  if (dims.length <= 1) c.outSyms[0] = c.syms[0];
};

const squeeze: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  const axes = axesArg(c, 13);
  if (!s || axes === null) {
    out(c, 0, elem);
    return;
  }
  let drop: number[];
  if (axes === undefined) {
    if (s.some((d) => typeof d !== "number")) {
      out(c, 0, elem);
      return;
    }
    drop = s.flatMap((d, i) => (d === 1 ? [i] : []));
  } else {
    drop = [];
    for (const a of axes) {
      const n = normAxis(c, a, s.length);
      if (n === undefined) return;
      const d = s[n]!;
      if (typeof d === "number" && d !== 1) {
        c.error(
          "shape-mismatch",
          `${opName(c)}: cannot squeeze axis ${a} of size ${d} (input '${inName(c, 0)}' ${formatShape(s)})`,
        );
        return;
      }
      drop.push(n);
    }
  }
  const dims = s.filter((_, i) => !drop.includes(i));
  out(c, 0, elem, dims);
  const k = c.consts[0];
  if (k && dims.every((d) => typeof d === "number"))
    setConst(c, 0, { ...k, dims: dims as number[] });
  if (dims.length <= 1) c.outSyms[0] = c.syms[0];
};

/** `n` unknown dimensions; none when `n` is not a valid rank (a malformed shape tensor upstream). */
function unknownDims(n: number): Dim[] | undefined {
  return Number.isSafeInteger(n) && n >= 0 && n <= 1024 ? new Array<Dim>(n).fill(null) : undefined;
}

const reshape: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  const target: Dim[] | undefined | null =
    c.version > 0 && c.version < 5 ? intsAttr(c, "shape") : symInput(c, 1);
  if (!target) {
    const k = c.inputs[1];
    const n = isTensor(k) && k.shape?.length === 1 ? k.shape[0] : undefined;
    out(c, 0, elem, typeof n === "number" ? unknownDims(n) : undefined);
    return;
  }
  const allowzero = intAttr(c, "allowzero", 0);
  const dims: Dim[] = [];
  let inferAt = -1;
  for (let i = 0; i < target.length; i++) {
    const t = target[i]!;
    if (typeof t !== "number") dims.push(t);
    else if (t === -1) {
      if (inferAt >= 0) {
        c.error("bad-attribute-value", `${opName(c)}: the target shape has more than one -1`);
        return;
      }
      inferAt = i;
      dims.push(null);
    } else if (t === 0 && allowzero !== 1) {
      if (s && i >= s.length) {
        c.error(
          "shape-mismatch",
          `${opName(c)}: target dimension ${i} is 0 (copy) but the input has rank ${s.length}`,
        );
        return;
      }
      dims.push(s ? s[i]! : null);
    } else if (t < -1) {
      c.error("bad-attribute-value", `${opName(c)}: target dimension ${t} is invalid`);
      return;
    } else dims.push(t);
  }
  const total = s && product(s);
  if (total !== undefined) {
    const rest = product(dims.filter((_, i) => i !== inferAt));
    if (rest !== undefined) {
      if (inferAt >= 0) {
        if (rest === 0 || total % rest !== 0) {
          c.error(
            "shape-mismatch",
            `${opName(c)}: cannot reshape ${formatShape(s)} (${total} elements) to [${target.join(",")}]`,
          );
          return;
        }
        dims[inferAt] = total / rest;
      } else if (rest !== total) {
        c.error(
          "shape-mismatch",
          `${opName(c)}: cannot reshape ${formatShape(s)} (${total} elements) to ${formatShape(dims)} (${rest} elements)`,
        );
        return;
      }
    }
  }
  out(c, 0, elem, dims);
  const k = c.consts[0];
  if (k && dims.every((d) => typeof d === "number"))
    setConst(c, 0, { ...k, dims: dims as number[] });
};

const expand: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  let tdims: Dim[] | undefined = symInput(c, 1);
  if (tdims && tdims.some((d) => typeof d === "number" && d < 0)) {
    c.error(
      "shape-mismatch",
      `${opName(c)}: the shape [${tdims.join(",")}] has a negative dimension`,
    );
    return;
  }
  if (!tdims) {
    const k = c.inputs[1];
    const n = isTensor(k) && k.shape?.length === 1 ? k.shape[0] : undefined;
    if (typeof n === "number") tdims = unknownDims(n);
  }
  if (!s || !tdims) {
    out(c, 0, elem);
    return;
  }
  const r = broadcastShapes([s, tdims]);
  if (typeof r === "string") {
    c.error(
      "shape-mismatch",
      `${opName(c)}: input '${inName(c, 0)}' cannot expand to the target shape: ${r}`,
    );
    return;
  }
  out(c, 0, elem, r);
};

const constantOfShape: Rule = (c) => {
  const v = c.attr("value");
  const elem = v && v.type === "TENSOR" && v.value ? v.value.dataType : v ? 0 : DataType.FLOAT;
  const target = intsInput(c, 0);
  if (target && target.some((d) => d < 0)) {
    c.error(
      "shape-mismatch",
      `${opName(c)}: the shape [${target.join(",")}] has a negative dimension`,
    );
    return;
  }
  if (target) {
    out(c, 0, elem, target);
    const n = product(target);
    const k = v && v.type === "TENSOR" && v.value ? constFromTensor(v.value) : undefined;
    const fill = v ? k?.values[0] : 0;
    if (n !== undefined && n <= MAX_CONST_ELEMENTS && fill !== undefined && elem) {
      setConst(c, 0, { elemType: elem, dims: target, values: new Array<number>(n).fill(fill) });
    }
    return;
  }
  const sy = c.syms[0];
  if (sy) {
    out(c, 0, elem, sy);
    return;
  }
  const k = c.inputs[0];
  const n = isTensor(k) && k.shape?.length === 1 ? k.shape[0] : undefined;
  out(c, 0, elem, typeof n === "number" ? unknownDims(n) : undefined);
};

const range: Rule = (c) => {
  const elem = elemOf(c, 0) || elemOf(c, 1) || elemOf(c, 2);
  for (let i = 0; i < 3; i++) {
    const s = shapeOf(c, i);
    if (s && s.length !== 0 && !(s.length === 1 && s[0] === 1)) {
      c.error(
        "rank",
        `${opName(c)}: input '${inName(c, i)}' must be a scalar, got shape ${formatShape(s)}`,
      );
    }
  }
  const [a, b, d] = [c.consts[0], c.consts[1], c.consts[2]];
  if (a && b && d) {
    const start = a.values[0]!;
    const delta = d.values[0]!;
    if (delta === 0) {
      c.error("bad-attribute-value", `${opName(c)}: delta is 0`);
      return;
    }
    const n = Math.max(0, Math.ceil((b.values[0]! - start) / delta));
    out(c, 0, elem, [n]);
    if (n <= MAX_CONST_ELEMENTS) {
      setConst(c, 0, {
        elemType: elem,
        dims: [n],
        values: Array.from({ length: n }, (_, i) => start + i * delta),
      });
    }
    return;
  }
  out(c, 0, elem, [null]);
};

// ---- reductions and scans ----

/** All Reduce* versions: axes from the attribute (older versions) or the constant second input. */
const reduce =
  (outElem?: number): Rule =>
  (c) => {
    const s = shapeOf(c, 0);
    const elem = outElem ?? elemOf(c, 0);
    const keepdims = intAttr(c, "keepdims", 1);
    const noop = intAttr(c, "noop_with_empty_axes", 0);
    let axes: number[] | undefined | null;
    if (c.attr("axes")) axes = intsAttr(c, "axes");
    else if (present(c, 1)) axes = intsInput(c, 1) ?? null;
    else axes = undefined;
    if (!s) {
      out(c, 0, elem);
      return;
    }
    const r = s.length;
    if (keepdims === null || noop === null) {
      out(c, 0, elem, keepdims === 1 ? s.map((d) => (d === 1 ? 1 : null)) : undefined);
      return;
    }
    if (axes === null) {
      // Axes computed at run time: with keepdims the rank is known.
      out(c, 0, elem, keepdims ? s.map((d) => (d === 1 ? 1 : null)) : undefined);
      return;
    }
    let set: number[];
    if (!axes || axes.length === 0) {
      if (noop) {
        out(c, 0, elem, [...s]);
        return;
      }
      set = s.map((_, i) => i);
    } else {
      set = [];
      for (const a of axes) {
        const n = normAxis(c, a, r);
        if (n === undefined) return;
        if (!set.includes(n)) set.push(n);
      }
    }
    const dims: Dim[] = [];
    s.forEach((d, i) => {
      if (!set.includes(i)) dims.push(d);
      else if (keepdims) dims.push(1);
    });
    out(c, 0, elem, dims);
  };

const argReduce: Rule = (c) => {
  const s = shapeOf(c, 0);
  const keepdims = intAttr(c, "keepdims", 1);
  const axisAttr = intAttr(c, "axis", 0);
  if (!s || keepdims === null || axisAttr === null) {
    out(c, 0, DataType.INT64);
    return;
  }
  const axis = normAxis(c, axisAttr, s.length);
  if (axis === undefined) return;
  const dims = s.flatMap((d, i) => (i !== axis ? [d] : keepdims ? [1] : []));
  out(c, 0, DataType.INT64, dims);
};

const logCumSumExp: Rule = (c) => {
  const t = tin(c, 0);
  const s = t?.shape;
  if (s && s.length === 0) {
    c.error(
      "rank",
      `${opName(c)}: input '${inName(c, 0)}' has rank 0; LogCumSumExp needs an input of rank 1 or more`,
    );
    return;
  }
  const axis = intAttr(c, "axis", 0);
  if (s && axis !== null && normAxis(c, axis, s.length) === undefined) return;
  sameAsInput(c);
};

const cumSum: Rule = (c) => {
  const s = shapeOf(c, 0);
  const ax = c.consts[1];
  if (s && ax && ax.values.length === 1) {
    if (s.length === 0) {
      c.error(
        "rank",
        `${opName(c)}: input '${inName(c, 0)}' has rank 0; CumSum needs rank 1 or more`,
      );
      return;
    }
    if (normAxis(c, ax.values[0]!, s.length) === undefined) return;
  }
  sameAsInput(c);
};

// ---- a few common structural ops ----

const transpose: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  const perm = intsAttr(c, "perm");
  if (!s || perm === null) {
    out(c, 0, elem, s ? s.map(() => null) : undefined);
    return;
  }
  const p = perm ?? s.map((_, i) => s.length - 1 - i);
  const sorted = [...p].sort((x, y) => x - y);
  if (p.length !== s.length || sorted.some((v, i) => v !== i)) {
    c.error(
      "bad-attribute-value",
      `${opName(c)}: perm [${p.join(",")}] is not a permutation of the ${s.length} axes of '${inName(c, 0)}'`,
    );
    return;
  }
  out(
    c,
    0,
    elem,
    p.map((i) => s[i]!),
  );
};

const flatten: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  const axisAttr = intAttr(c, "axis", 1);
  if (!s || axisAttr === null) {
    out(c, 0, elem, [null, null]);
    return;
  }
  const r = s.length;
  if (axisAttr < -r || axisAttr > r) {
    c.error(
      "axis-out-of-range",
      `${opName(c)}: axis ${axisAttr} is out of range for rank ${r} (valid range is [${-r}, ${r}])`,
    );
    return;
  }
  const axis = axisAttr < 0 ? axisAttr + r : axisAttr;
  out(c, 0, elem, [product(s.slice(0, axis)) ?? null, product(s.slice(axis)) ?? null]);
};

const matmul: Rule = (c) => {
  const a = shapeOf(c, 0);
  const b = shapeOf(c, 1);
  const elem = elemOf(c, 0) || elemOf(c, 1);
  if (!a || !b) {
    out(c, 0, elem);
    return;
  }
  if (a.length === 0 || b.length === 0) {
    c.error("rank", `${opName(c)}: inputs must have rank 1 or more`);
    return;
  }
  const a2 = a.length === 1 ? [1, a[0]!] : a;
  const b2 = b.length === 1 ? [b[0]!, 1] : b;
  const k1 = a2[a2.length - 1]!;
  const k2 = b2[b2.length - 2]!;
  if (typeof k1 === "number" && typeof k2 === "number" && k1 !== k2) {
    c.error(
      "shape-mismatch",
      `${opName(c)}: inner dimensions differ: '${inName(c, 0)}' ${formatShape(a)} and '${inName(c, 1)}' ${formatShape(b)}`,
    );
    return;
  }
  const batch = broadcastShapes([a2.slice(0, -2), b2.slice(0, -2)]);
  if (typeof batch === "string") {
    c.error("shape-mismatch", `${opName(c)}: batch dimensions cannot be broadcast: ${batch}`);
    return;
  }
  const dims = [...batch];
  if (a.length > 1) dims.push(a2[a2.length - 2]!);
  if (b.length > 1) dims.push(b2[b2.length - 1]!);
  out(c, 0, elem, dims);
};

const dropout: Rule = (c) => {
  sameAsInput(c);
  if (c.node.outputs.length > 1) out(c, 1, DataType.BOOL, shapeOf(c, 0));
};

// ---- more shape-preserving and shape-computing ops ----

/** Output 0 has input 0's shape; its element type is the `dtype` attribute when given. */
const likeInput: Rule = (c) => {
  const t = tin(c, 0);
  const dtype = attrIntOf(c, "dtype");
  out(c, 0, typeof dtype === "number" ? dtype : (t?.elemType ?? 0), t?.shape);
};

const layerNorm: Rule = (c) => {
  sameAsInput(c);
  const s = shapeOf(c, 0);
  const axis = intAttr(c, "axis", -1);
  const stash = intAttr(c, "stash_type", DataType.FLOAT);
  if (!s || axis === null || stash === null) return;
  const a = normAxis(c, axis, s.length);
  if (a === undefined) return;
  // Mean and InvStdDev keep the leading dimensions and have 1 for each normalised one.
  const stats = s.map((d, i) => (i < a ? d : 1));
  for (const i of [1, 2]) if ((c.node.outputs[i] ?? "") !== "") out(c, i, stash, stats);
};

const gatherElements: Rule = (c) => {
  const axis = intAttr(c, "axis", 0);
  const s = shapeOf(c, 0);
  const is = shapeOf(c, 1);
  if (s && is && is.length !== s.length) {
    c.error("rank", `${opName(c)}: indices have rank ${is.length} but data has rank ${s.length}`);
    return;
  }
  if (s && axis !== null && normAxis(c, axis, s.length) === undefined) return;
  out(c, 0, elemOf(c, 0), is);
};

const tile: Rule = (c) => {
  const s = shapeOf(c, 0);
  const reps = intsInput(c, 1);
  if (!s) {
    out(c, 0, elemOf(c, 0));
    return;
  }
  if (reps && reps.length !== s.length) {
    c.error(
      "shape-mismatch",
      `${opName(c)}: repeats has ${reps.length} values for an input of rank ${s.length}`,
    );
    return;
  }
  out(
    c,
    0,
    elemOf(c, 0),
    s.map((d, i) => (reps && typeof d === "number" ? d * reps[i]! : reps?.[i] === 1 ? d : null)),
  );
};

const split: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  const n = c.node.outputs.length;
  const axisAttr = intAttr(c, "axis", 0);
  const unknown = () => {
    for (let i = 0; i < n; i++)
      out(c, i, elem, s ? s.map((d, k) => (k === axis ? null : d)) : undefined);
  };
  let axis = -1;
  if (!s || axisAttr === null) return unknown();
  const a = normAxis(c, axisAttr, s.length);
  if (a === undefined) return;
  axis = a;
  const sizes = c.version > 0 && c.version < 13 ? intsAttr(c, "split") : intsInput(c, 1);
  const d = s[axis]!;
  let parts: number[] | undefined;
  if (sizes) {
    if (sizes.length !== n) {
      c.error("shape-mismatch", `${opName(c)}: split has ${sizes.length} sizes for ${n} outputs`);
      return;
    }
    if (typeof d === "number" && sizes.reduce((x, y) => x + y, 0) !== d) {
      c.error(
        "shape-mismatch",
        `${opName(c)}: split sizes [${sizes.join(",")}] do not add up to dimension ${axis} of size ${d}`,
      );
      return;
    }
    parts = sizes;
  } else if (sizes === undefined && typeof d === "number" && !present(c, 1)) {
    // Equal parts; from version 18 the last may be smaller (num_outputs).
    const chunk = Math.ceil(d / n);
    parts = Array.from({ length: n }, (_, i) => Math.max(0, Math.min(chunk, d - i * chunk)));
    if (c.version < 18 && d % n !== 0) {
      c.error(
        "shape-mismatch",
        `${opName(c)}: dimension ${axis} of size ${d} does not split into ${n} equal parts`,
      );
      return;
    }
  }
  if (!parts) return unknown();
  for (let i = 0; i < n; i++)
    out(
      c,
      i,
      elem,
      s.map((x, k) => (k === axis ? parts![i]! : x)),
    );
};

const topK: Rule = (c) => {
  const s = shapeOf(c, 0);
  const axisAttr = intAttr(c, "axis", -1);
  const k = c.version > 0 && c.version < 10 ? attrIntOf(c, "k") : intsInput(c, 1)?.[0];
  let dims: Dim[] | undefined;
  if (s && axisAttr !== null) {
    const a = normAxis(c, axisAttr, s.length);
    if (a === undefined) return;
    dims = s.map((d, i) => (i === a ? (typeof k === "number" ? k : null) : d));
  }
  out(c, 0, elemOf(c, 0), dims);
  out(c, 1, DataType.INT64, dims);
};

const gemm: Rule = (c) => {
  const a = shapeOf(c, 0);
  const b = shapeOf(c, 1);
  const ta = intAttr(c, "transA", 0);
  const tb = intAttr(c, "transB", 0);
  const elem = elemOf(c, 0) || elemOf(c, 1);
  if (!a || !b || ta === null || tb === null || a.length !== 2 || b.length !== 2) {
    out(c, 0, elem, [null, null]);
    return;
  }
  const [m, ka] = ta ? [a[1]!, a[0]!] : [a[0]!, a[1]!];
  const [kb, n] = tb ? [b[1]!, b[0]!] : [b[0]!, b[1]!];
  if (typeof ka === "number" && typeof kb === "number" && ka !== kb) {
    c.error("shape-mismatch", `${opName(c)}: inner dimensions differ (${ka} and ${kb})`);
    return;
  }
  out(c, 0, elem, [m, n]);
};

const globalPool: Rule = (c) => {
  const s = shapeOf(c, 0);
  out(c, 0, elemOf(c, 0), s ? s.map((d, i) => (i < 2 ? d : 1)) : undefined);
};

const nonZero: Rule = (c) => {
  const s = shapeOf(c, 0);
  out(c, 0, DataType.INT64, [s ? s.length : null, null]);
};

const depthSpace =
  (toSpace: boolean): Rule =>
  (c) => {
    const s = shapeOf(c, 0);
    const bs = attrIntOf(c, "blocksize");
    if (!s || typeof bs !== "number" || s.length !== 4) {
      out(c, 0, elemOf(c, 0), s ? s.map(() => null) : undefined);
      return;
    }
    const [n, ch, h, w] = s as [Dim, Dim, Dim, Dim];
    const mul = (d: Dim, f: number) => (typeof d === "number" ? d * f : null);
    const div = (d: Dim, f: number) => (typeof d === "number" ? d / f : null);
    out(
      c,
      0,
      elemOf(c, 0),
      toSpace
        ? [n, div(ch, bs * bs), mul(h, bs), mul(w, bs)]
        : [n, mul(ch, bs * bs), div(h, bs), div(w, bs)],
    );
  };

// ---- control flow ----

/** The most specific type both branches agree on. */
function joinTypes(a: Type | undefined, b: Type | undefined): Type | undefined {
  if (!a || !b) return a ?? b;
  if (isTensor(a) && isTensor(b)) {
    const elemType = a.elemType === b.elemType ? a.elemType : 0;
    if (!a.shape || !b.shape || a.shape.length !== b.shape.length) return tensorOf(elemType);
    return tensorOf(
      elemType,
      a.shape.map((d, i) => (d === b.shape![i] ? d : null)),
    );
  }
  return a;
}

const ifRule: Rule = (c) => {
  const cond = shapeOf(c, 0);
  if (cond && product(cond) !== undefined && product(cond) !== 1) {
    c.error(
      "shape-mismatch",
      `${opName(c)}: the condition must hold one element, got shape ${formatShape(cond)}`,
    );
  }
  const th = c.subgraph("then_branch", []);
  const el = c.subgraph("else_branch", []);
  const n = c.node.outputs.length;
  for (const [name, outs] of [
    ["then_branch", th],
    ["else_branch", el],
  ] as const) {
    if (outs && outs.length !== n) {
      c.error(
        "bad-subgraph",
        `${opName(c)}: ${name} has ${outs.length} outputs but the node has ${n}`,
      );
    }
  }
  for (let i = 0; i < n; i++) {
    const a = th?.[i];
    const b = el?.[i];
    if (isTensor(a) && isTensor(b) && a.elemType && b.elemType && a.elemType !== b.elemType) {
      c.error(
        "type-mismatch",
        `${opName(c)}: output ${i} is ${dtypeName(a.elemType)} in then_branch but ${dtypeName(b.elemType)} in else_branch`,
      );
    }
    c.outputs[i] = joinTypes(a, b);
  }
};

const loop: Rule = (c) => {
  const carried = c.inputs.slice(2);
  // Iteration number and condition: scalars, though some exporters declare them as [1].
  const bodyIn: (Type | undefined)[] = [
    tensorOf(DataType.INT64),
    tensorOf(DataType.BOOL),
    ...carried,
  ];
  const outs = c.subgraph("body", bodyIn, true);
  if (!outs) return;
  const n = carried.length;
  if (outs.length < n + 1) {
    c.error(
      "bad-subgraph",
      `${opName(c)}: the body has ${outs.length} outputs; it needs the condition and ${n} loop-carried values`,
    );
    return;
  }
  for (let i = 0; i < c.node.outputs.length; i++) {
    const bt = outs[i + 1];
    if (i < n) {
      // The body's type wins where they are not both tensors (e.g. optional in, sequence out).
      c.outputs[i] = bt ? joinTypes(bt, carried[i]) : carried[i];
    } else if (isTensor(bt)) {
      c.outputs[i] = tensorOf(bt.elemType, bt.shape ? [null, ...bt.shape] : undefined);
    }
  }
  if (c.node.outputs.length !== outs.length - 1) {
    c.error(
      "bad-subgraph",
      `${opName(c)}: the node has ${c.node.outputs.length} outputs but the body produces ${outs.length - 1} (after the condition)`,
    );
  }
};

const scan: Rule = (c) => {
  if (c.version > 0 && c.version < 9) {
    c.subgraph("body");
    return;
  }
  const m = intAttr(c, "num_scan_inputs", 0);
  if (m === null || m < 1 || m > c.inputs.length) {
    if (m !== null) {
      c.error(
        "bad-attribute-value",
        `${opName(c)}: num_scan_inputs = ${m} does not fit ${c.inputs.length} inputs`,
      );
    }
    c.subgraph("body");
    return;
  }
  const n = c.inputs.length - m;
  const inAxes = intsAttr(c, "scan_input_axes") ?? [];
  const outAxes = intsAttr(c, "scan_output_axes") ?? [];
  const bodyIn: (Type | undefined)[] = c.inputs.slice(0, n);
  let seqLen: Dim | undefined;
  for (let j = 0; j < m; j++) {
    const t = tin(c, n + j);
    if (!t || !t.shape || !inAxes) {
      bodyIn.push(t ? tensorOf(t.elemType) : undefined);
      continue;
    }
    const ax = normAxis(c, inAxes[j] ?? 0, t.shape.length, "scan input axis");
    if (ax === undefined) return;
    if (seqLen === undefined) seqLen = t.shape[ax]!;
    bodyIn.push(
      tensorOf(
        t.elemType,
        t.shape.filter((_, i) => i !== ax),
      ),
    );
  }
  const outs = c.subgraph("body", bodyIn);
  if (!outs) return;
  for (let i = 0; i < c.node.outputs.length; i++) {
    const bt = outs[i];
    if (i < n) c.outputs[i] = joinTypes(c.inputs[i] ?? bt, bt ?? c.inputs[i]);
    else if (isTensor(bt)) {
      if (!bt.shape || !outAxes) {
        c.outputs[i] = tensorOf(bt.elemType);
        continue;
      }
      const r = bt.shape.length + 1;
      let ax = outAxes?.[i - n] ?? 0;
      if (ax < -r || ax >= r) {
        c.error(
          "axis-out-of-range",
          `${opName(c)}: scan output axis ${ax} is out of range for rank ${r}`,
        );
        continue;
      }
      if (ax < 0) ax += r;
      const dims = [...bt.shape];
      dims.splice(ax, 0, seqLen ?? null);
      c.outputs[i] = tensorOf(bt.elemType, dims);
    }
  }
  if (outs.length !== c.node.outputs.length) {
    c.error(
      "bad-subgraph",
      `${opName(c)}: the body has ${outs.length} outputs but the node has ${c.node.outputs.length}`,
    );
  }
};

// ---- the table ----

const UNARY = [
  "Abs",
  "Neg",
  "Exp",
  "Log",
  "Sqrt",
  "Reciprocal",
  "Floor",
  "Ceil",
  "Round",
  "Sign",
  "Sin",
  "Cos",
  "Tan",
  "Asin",
  "Acos",
  "Atan",
  "Sinh",
  "Cosh",
  "Asinh",
  "Acosh",
  "Atanh",
  "Sigmoid",
  "HardSigmoid",
  "Relu",
  "LeakyRelu",
  "Elu",
  "Selu",
  "Celu",
  "ThresholdedRelu",
  "Tanh",
  "Erf",
  "Softplus",
  "Softsign",
  "HardSwish",
  "Mish",
  "Gelu",
  "Softmax",
  "LogSoftmax",
  "Hardmax",
  "BitwiseNot",
  "Clip",
  "Shrink",
  "Trilu",
  "LpNormalization",
  "MeanVarianceNormalization",
];
const ARITH: Record<string, ((x: number, y: number, integer: boolean) => number) | undefined> = {
  Add: (x, y) => x + y,
  Sub: (x, y) => x - y,
  Mul: (x, y) => x * y,
  Div: (x, y, integer) => (integer ? Math.trunc(x / y) : x / y),
  Pow: undefined,
  Mod: undefined,
  BitShift: undefined,
  BitwiseAnd: undefined,
  BitwiseOr: undefined,
  BitwiseXor: undefined,
};
const COMPARE = ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"];
const REDUCE = [
  "ReduceSum",
  "ReduceMean",
  "ReduceMax",
  "ReduceMin",
  "ReduceProd",
  "ReduceL1",
  "ReduceL2",
  "ReduceLogSum",
  "ReduceLogSumExp",
  "ReduceSumSquare",
];

/** Einsum: the equation must fit the operands (the output type comes from the schema). */
function einsum(c: RuleCtx): void {
  const a = c.attr("equation");
  if (!a || a.type !== "STRING" || a.value === undefined) return;
  const why = einsumEquationError(
    a.value,
    c.inputs.length,
    c.inputs.map((_, i) => shapeOf(c, i)?.length),
  );
  if (why) c.error("bad-attribute-value", `${opName(c)}: ${why}`);
}

export const RULES = new Map<string, Rule>();
for (const op of UNARY) RULES.set(op, sameAsInput);
for (const [op, f] of Object.entries(ARITH)) RULES.set(op, arith(f));
for (const op of COMPARE) RULES.set(op, comparison);
for (const op of ["Max", "Min", "Sum", "Mean"]) RULES.set(op, variadicSame);
for (const op of REDUCE) RULES.set(op, reduce());
for (const op of ["ArgMax", "ArgMin"]) RULES.set(op, argReduce);
for (const op of ["IsNaN", "IsInf", "Not"]) RULES.set(op, boolSameShape);
RULES.set("PRelu", arith());
RULES.set("Where", where);
RULES.set("Cast", cast);
RULES.set("CastLike", castLike);
RULES.set("Constant", constant);
RULES.set("Identity", identity);
RULES.set("Shape", shapeOp);
RULES.set("Size", size);
RULES.set("Slice", slice);
RULES.set("Pad", pad);
RULES.set("Concat", concat);
RULES.set("Gather", gather);
RULES.set("Unsqueeze", unsqueeze);
RULES.set("Squeeze", squeeze);
RULES.set("Reshape", reshape);
RULES.set("Expand", expand);
RULES.set("ConstantOfShape", constantOfShape);
RULES.set("Range", range);
RULES.set("LogCumSumExp", logCumSumExp);
RULES.set("CumSum", cumSum);
RULES.set("Transpose", transpose);
RULES.set("Flatten", flatten);
RULES.set("MatMul", matmul);
RULES.set("Dropout", dropout);
for (const op of ["EyeLike", "Bernoulli", "RandomNormalLike", "RandomUniformLike"])
  RULES.set(op, likeInput);
for (const op of [
  "BatchNormalization",
  "InstanceNormalization",
  "LRN",
  "ScatterElements",
  "ScatterND",
  "Scatter",
])
  RULES.set(op, sameAsInput);
RULES.set("LayerNormalization", layerNorm);
RULES.set("GatherElements", gatherElements);
RULES.set("Tile", tile);
RULES.set("Split", split);
RULES.set("TopK", topK);
RULES.set("Gemm", gemm);
for (const op of ["GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"]) RULES.set(op, globalPool);
RULES.set("NonZero", nonZero);
RULES.set("DepthToSpace", depthSpace(true));
RULES.set("SpaceToDepth", depthSpace(false));
RULES.set("If", ifRule);
RULES.set("Loop", loop);
RULES.set("Einsum", einsum);
RULES.set("Scan", scan);

/** The ai.onnx ops whose outputs this module infers from its own rules. */
export function hasRule(op: string): boolean {
  return RULES.has(op);
}
