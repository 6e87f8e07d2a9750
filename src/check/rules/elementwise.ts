// Elementwise ops: unary ops (and the others whose output has the first input's type and shape),
// arithmetic with constant folding, comparisons and logic, variadic Max/Min/Sum/Mean, Where.

import { DataType, type Dim } from "../../ir/types.js";
import {
  broadcastsMultidirectionally,
  intAttributeDefault,
  softmaxAlongAxis,
} from "../../schema/facts.js";
import { binaryConst, isIntegerType } from "../consts.js";
import { symBinary, symWhere, anyKnown, allKnown, type SymOp } from "../sym-values.js";
import { broadcastShapes, formatShape, isTensor } from "../types.js";
import * as R from "./common.js";

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
  "Swish",
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

const boolSameShape: R.Rule = (c) => {
  const t = R.tin(c, 0);
  R.out(c, 0, DataType.BOOL, t?.shape);
};

/** Broadcasts the given inputs' shapes; reports a clash. Undefined if some shape is unknown. */
function broadcastInputs(c: R.RuleCtx, idx: number[]): Dim[] | undefined {
  const shapes: Dim[][] = [];
  for (const i of idx) {
    if (!R.present(c, i)) continue;
    const s = R.shapeOf(c, i);
    if (!s) return undefined;
    shapes.push(s);
  }
  if (shapes.length === 0) return undefined;
  const r = broadcastShapes(shapes);
  if (typeof r === "string") {
    const names = idx.filter((i) => R.present(c, i)).map((i) => `'${R.inName(c, i)}'`);
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: inputs ${names.join(", ")} have incompatible shapes: ${r}`,
    );
    return undefined;
  }
  return r;
}

function allInputs(c: R.RuleCtx): number[] {
  return c.node.inputs.map((_, i) => i);
}

/**
 * Before multidirectional broadcasting, the other inputs were broadcast to the first (with
 * `broadcast`/`axis` attributes, equal shapes, or per channel for PRelu): the result has the
 * first input's shape.
 */
function elementwiseShape(c: R.RuleCtx): Dim[] | undefined {
  return broadcastsMultidirectionally(c.schema)
    ? broadcastInputs(c, allInputs(c))
    : R.shapeOf(c, 0);
}

const arith =
  (f?: (x: number, y: number, integer: boolean) => number): R.Rule =>
  (c) => {
    const shape = elementwiseShape(c);
    const elem = R.elemOf(c, 0) || R.elemOf(c, 1);
    R.out(c, 0, elem, shape);
    const a = c.consts[0];
    const b = c.consts[1];
    if (f && a && b && c.node.inputs.length === 2) {
      const integer = isIntegerType(a.elemType);
      R.setConst(
        c,
        0,
        binaryConst(a, b, (x, y) => f(x, y, integer)),
      );
    } else if (SYM_OPS.has(c.node.opType)) propagate(c, c.node.opType as SymOp, shape);
  };

const SYM_OPS: ReadonlySet<string> = new Set(["Add", "Sub", "Mul", "Div"]);

/** Shape values known in part through Add/Sub/Mul/Div/Equal/Max/Min (1-D integer operands). */
function propagate(c: R.RuleCtx, op: SymOp, shape: Dim[] | undefined): void {
  if (c.node.inputs.length !== 2 || !shape || shape.length > 1) return;
  const a = R.symInput(c, 0);
  const b = R.symInput(c, 1);
  if (!a || !b) return;
  const v = symBinary(op, a, b);
  if (!v || !anyKnown(v)) return;
  if (allKnown(v))
    R.setConst(c, 0, {
      elemType: op === "Equal" ? DataType.BOOL : R.elemOf(c, 0),
      dims: [...shape] as number[],
      values: v,
    });
  else c.outSyms[0] = v;
}

const comparison: R.Rule = (c) => {
  const shape = elementwiseShape(c);
  R.out(c, 0, DataType.BOOL, shape);
  if (c.node.opType === "Equal") propagate(c, "Equal", shape);
};

const variadicSame: R.Rule = (c) => {
  const elem = c.inputs.map((t) => (isTensor(t) ? t.elemType : 0)).find((e) => e) ?? 0;
  const shape = elementwiseShape(c);
  R.out(c, 0, elem, shape);
  if (c.node.opType === "Max" || c.node.opType === "Min") propagate(c, c.node.opType, shape);
};

const where: R.Rule = (c) => {
  const shape = broadcastInputs(c, [0, 1, 2]);
  R.out(c, 0, R.elemOf(c, 1) || R.elemOf(c, 2), shape);
  if (!shape || shape.length > 1) return;
  const [k, x, y] = [R.symInput(c, 0), R.symInput(c, 1), R.symInput(c, 2)];
  const v = k && x && y ? symWhere(k, x, y) : undefined;
  if (!v || !anyKnown(v)) return;
  if (allKnown(v))
    R.setConst(c, 0, { elemType: R.elemOf(c, 1), dims: [...shape] as number[], values: v });
  else c.outSyms[0] = v;
};

/** SwiGLU: A and B of one shape (no broadcasting); Y has it. */
const swiGlu: R.Rule = (c) => {
  R.sameAsInput(c);
  const a = R.shapeOf(c, 0);
  const b = R.shapeOf(c, 1);
  if (!a || !b) return;
  const differ =
    a.length !== b.length ||
    a.some((d, i) => typeof d === "number" && typeof b[i] === "number" && d !== b[i]);
  if (differ)
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: '${R.inName(c, 0)}' ${formatShape(a)} and '${R.inName(c, 1)}' ${formatShape(b)} must have the same shape (SwiGLU does not broadcast)`,
    );
};

/**
 * Softmax/LogSoftmax/Hardmax: the input's type, and the axis (given or the version's default)
 * in range — before version 13 against the input coerced to 2-D at the axis (rank at least 1,
 * as the kernel reads it), from 13 against the input's rank.
 */
const softmaxFamily: R.Rule = (c) => {
  R.sameAsInput(c);
  const s = R.shapeOf(c, 0);
  const axis = R.intAttr(c, "axis", intAttributeDefault(c.schema, "axis") ?? -1);
  if (!s || axis === null) return;
  R.normAxis(c, axis, softmaxAlongAxis(c.schema) ? s.length : Math.max(s.length, 1));
};

const rules: Record<string, R.Rule> = {};
for (const op of UNARY) rules[op] = R.sameAsInput;
for (const op of ["Softmax", "LogSoftmax", "Hardmax"]) rules[op] = softmaxFamily;
for (const [op, f] of Object.entries(ARITH)) rules[op] = arith(f);
for (const op of COMPARE) rules[op] = comparison;
for (const op of ["Max", "Min", "Sum", "Mean"]) rules[op] = variadicSame;
for (const op of ["IsNaN", "IsInf", "Not"]) rules[op] = boolSameShape;
rules.PRelu = arith();
rules.Where = where;
rules.SwiGLU = swiGlu;

export const elementwiseRules: Readonly<Record<string, R.Rule>> = Object.freeze(rules);
