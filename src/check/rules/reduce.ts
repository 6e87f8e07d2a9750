// Reductions and scans along axes: the Reduce ops, ArgMax/ArgMin, TopK, CumSum, LogCumSumExp.

import { DataType, type Dim } from "../../ir/types.js";
import { hasAttribute } from "../../schema/facts.js";
import { attrIntText, int64Text } from "../../ir/attributes.js";
import * as R from "./common.js";

/** The Reduce* operators (one rule serves them all; the test generator draws from them too). */
export const REDUCE = [
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

/** All Reduce* versions: axes from the attribute (older versions) or the constant second input. */
const reduce =
  (outElem?: number): R.Rule =>
  (c) => {
    const s = R.shapeOf(c, 0);
    const elem = outElem ?? R.elemOf(c, 0);
    const keepdims = R.intAttr(c, "keepdims", 1);
    const noop = R.intAttr(c, "noop_with_empty_axes", 0);
    let axes: number[] | undefined | null;
    if (c.attr("axes")) axes = R.intsAttr(c, "axes");
    else if (R.present(c, 1)) axes = R.intsInput(c, 1) ?? null;
    else axes = undefined;
    if (!s) {
      R.out(c, 0, elem);
      return;
    }
    const r = s.length;
    if (keepdims === null || noop === null) {
      R.out(c, 0, elem, keepdims === 1 ? s.map((d) => (d === 1 ? 1 : null)) : undefined);
      return;
    }
    if (axes === null) {
      // Axes computed at run time: with keepdims the rank is known.
      R.out(c, 0, elem, keepdims ? s.map((d) => (d === 1 ? 1 : null)) : undefined);
      return;
    }
    let set: number[];
    if (!axes || axes.length === 0) {
      if (noop) {
        R.out(c, 0, elem, [...s]);
        return;
      }
      set = s.map((_, i) => i);
    } else {
      set = [];
      const exact = R.exactAxes(c);
      for (const [i, a] of axes.entries()) {
        const n = R.normAxis(c, a, r, "axis", exact?.[i]);
        if (n === undefined) return;
        if (!set.includes(n)) set.push(n);
      }
    }
    const dims: Dim[] = [];
    s.forEach((d, i) => {
      if (!set.includes(i)) dims.push(d);
      else if (keepdims) dims.push(1);
    });
    R.out(c, 0, elem, dims);
  };

const argReduce: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const keepdims = R.intAttr(c, "keepdims", 1);
  const axisAttr = R.intAttr(c, "axis", 0);
  if (!s || keepdims === null || axisAttr === null) {
    R.out(c, 0, DataType.INT64);
    return;
  }
  const axis = R.normAxis(c, axisAttr, s.length);
  if (axis === undefined) return;
  const dims = s.flatMap((d, i) => (i !== axis ? [d] : keepdims ? [1] : []));
  R.out(c, 0, DataType.INT64, dims);
};

const logCumSumExp: R.Rule = (c) => {
  const t = R.tin(c, 0);
  const s = t?.shape;
  if (s && s.length === 0) {
    c.error(
      "rank",
      `${R.opName(c)}: input '${R.inName(c, 0)}' has rank 0; LogCumSumExp needs an input of rank 1 or more`,
    );
    return;
  }
  const axis = R.intAttr(c, "axis", 0);
  if (s && axis !== null && R.normAxis(c, axis, s.length) === undefined) return;
  R.sameAsInput(c);
};

const cumSum: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const ax = c.consts[1];
  if (s && ax && ax.values.length === 1) {
    if (s.length === 0) {
      c.error(
        "rank",
        `${R.opName(c)}: input '${R.inName(c, 0)}' has rank 0; CumSum needs rank 1 or more`,
      );
      return;
    }
    if (R.normAxis(c, ax.values[0]!, s.length) === undefined) return;
  }
  R.sameAsInput(c);
};

const topK: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const axisAttr = R.intAttr(c, "axis", -1);
  const k = hasAttribute(c.schema, "k") ? R.attrIntOf(c, "k") : R.intsInput(c, 1)?.[0];
  let dims: Dim[] | undefined;
  if (s && axisAttr !== null) {
    const a = R.normAxis(c, axisAttr, s.length);
    if (a === undefined) return;
    const d = s[a];
    if (typeof k === "number" && (k < 0 || (typeof d === "number" && k > d))) {
      const exact = hasAttribute(c.schema, "k") ? undefined : R.exactInts(c, 1)?.[0];
      const text = hasAttribute(c.schema, "k") ? attrIntText(c.node, "k", k) : int64Text(k, exact);
      c.error(
        "shape-mismatch",
        `${R.opName(c)}: k = ${text} is out of range for axis ${a}${typeof d === "number" ? ` of size ${d}` : ""}`,
      );
      return;
    }
    dims = s.map((d, i) => (i === a ? (typeof k === "number" ? k : null) : d));
  }
  R.out(c, 0, R.elemOf(c, 0), dims);
  R.out(c, 1, DataType.INT64, dims);
};

const rules: Record<string, R.Rule> = {
  ArgMax: argReduce,
  ArgMin: argReduce,
  TopK: topK,
  CumSum: cumSum,
  LogCumSumExp: logCumSumExp,
};
for (const op of REDUCE) rules[op] = reduce();

export const reduceRules: Readonly<Record<string, R.Rule>> = Object.freeze(rules);
