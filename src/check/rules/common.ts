// What every rule shares: the context a rule reads and fills, typed access to attributes and
// inputs, axis normalisation, and the rule of ops whose output is their first input's type.

import { attrIntText, clampToNumber, getAttr, int64Text } from "../../ir/attributes.js";
import { type Attribute, type Dim, type Node, type Type } from "../../ir/types.js";
import { type OpVersion } from "../../schema/types.js";
import { isIntegerType, MAX_CONST_ELEMENTS, type ConstVal } from "../consts.js";
import { type ProblemCode } from "../report.js";
import { isTensor, tensorOf } from "../types.js";

export interface RuleCtx {
  node: Node;
  /** The operator version the node resolves to (rules run only for resolved nodes). */
  schema: OpVersion;
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

export function attrIntOf(c: RuleCtx, name: string): number | undefined | null {
  const a = c.attr(name);
  if (!a) return undefined;
  if (a.type !== "INT" || a.value === undefined) return null;
  return clampToNumber(a.value);
}

export function intAttr(c: RuleCtx, name: string, dflt: number): number | null {
  const v = attrIntOf(c, name);
  return v === undefined ? dflt : v;
}

export function intsAttr(c: RuleCtx, name: string): number[] | undefined | null {
  const a = c.attr(name);
  if (!a) return undefined;
  if (a.type !== "INTS" || a.value === undefined) return null;
  return a.value.map(clampToNumber);
}

// ---- inputs, outputs, axes ----

export const opName = (c: RuleCtx) => `${c.node.opType}-${c.schema.since}`;

export function tin(c: RuleCtx, i: number) {
  const t = c.inputs[i];
  return isTensor(t) ? t : undefined;
}

export function shapeOf(c: RuleCtx, i: number): Dim[] | undefined {
  return tin(c, i)?.shape;
}

export function elemOf(c: RuleCtx, i: number): number {
  return tin(c, i)?.elemType ?? 0;
}

/**
 * The first input's shape; when it is unknown, undefined, and the first output is set to the
 * input's element type with no shape (all a rule can say then).
 */
export function shapeOrUnknownOut(c: RuleCtx): Dim[] | undefined {
  const s = shapeOf(c, 0);
  if (!s) out(c, 0, elemOf(c, 0));
  return s;
}

export function present(c: RuleCtx, i: number): boolean {
  return (c.node.inputs[i] ?? "") !== "";
}

export function out(c: RuleCtx, i: number, elemType: number, shape?: Dim[]): void {
  c.outputs[i] = tensorOf(elemType, shape);
}

export function inName(c: RuleCtx, i: number): string {
  return c.node.inputs[i] ?? "";
}

/** Integer values of a constant input (1-D or scalar). */
export function intsInput(c: RuleCtx, i: number): number[] | undefined {
  if (!present(c, i)) return undefined;
  const k = c.consts[i];
  return k && isIntegerType(k.elemType) ? k.values : undefined;
}

/** Normalises an axis against a rank; reports and returns undefined when out of range. */
export function normAxis(
  c: RuleCtx,
  axis: number,
  rank: number,
  what = "axis",
  exact?: bigint | number,
): number | undefined {
  if (axis < -rank || axis >= rank) {
    const range =
      rank === 0 ? "a rank-0 input has no axes" : `valid range is [${-rank}, ${rank - 1}]`;
    // A value past 2^53 was saturated to a number: the model's own value is printed.
    const shown = exact !== undefined ? int64Text(axis, exact) : attrIntText(c.node, what, axis);
    c.error(
      "axis-out-of-range",
      `${opName(c)}: ${what} ${shown} is out of range for input '${inName(c, 0)}' of rank ${rank} (${range})`,
    );
    return undefined;
  }
  return axis < 0 ? axis + rank : axis;
}

/** The model's own int64s of constant input `from` or INTS attribute `from`, for messages. */
export function exactInts(c: RuleCtx, from: number | string): bigint[] | undefined {
  if (typeof from === "number") return c.consts[from]?.exact;
  const a = getAttr(c.node, from);
  return a?.type === "INTS" ? a.value : undefined;
}

/** The model's own axes of a node with an `axes` attribute or a constant axes input 1. */
export const exactAxes = (c: RuleCtx): bigint[] | undefined =>
  exactInts(c, getAttr(c.node, "axes") ? "axes" : 1);

/** A 1-D integer input's values, each known, symbolic or unknown (null). */
export function symInput(c: RuleCtx, i: number): Dim[] | undefined {
  if (!present(c, i)) return undefined;
  return intsInput(c, i) ?? c.syms[i];
}

export function setConst(c: RuleCtx, i: number, v: ConstVal | undefined): void {
  if (v && v.values.length <= MAX_CONST_ELEMENTS) c.outConsts[i] = v;
}

/** Row-major strides of a static shape (elements between neighbours along each axis). */
export const stridesOf = (dims: number[]): number[] =>
  dims.map((_, i) => dims.slice(i + 1).reduce((x, y) => x * y, 1));

export function product(dims: Dim[]): number | undefined {
  let n = 1;
  for (const d of dims) {
    if (typeof d !== "number") return undefined;
    n *= d;
  }
  return n;
}

/** `n` unknown dimensions; none when `n` is not a valid rank (a malformed shape tensor upstream). */
export function unknownDims(n: number): Dim[] | undefined {
  return Number.isSafeInteger(n) && n >= 0 && n <= 1024 ? new Array<Dim>(n).fill(null) : undefined;
}

export const sameAsInput: Rule = (c) => {
  const t = tin(c, 0);
  if (t) c.outputs[0] = { ...t, kind: "tensor" };
};
