// Ops that make a tensor from attributes or a shape: Constant, ConstantOfShape, Range, and the
// *Like ops whose output has an input's shape.

import { clampToNumber, int64sText } from "../../ir/attributes.js";
import { type Tensor } from "../../ir/tensor.js";
import { DataType, type Dim } from "../../ir/types.js";
import { constFromTensor, MAX_CONST_ELEMENTS } from "../consts.js";
import { dimAdd, dimFloorDiv } from "../dim-expr.js";
import { formatShape, isTensor } from "../types.js";
import * as R from "./common.js";

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

const constant: R.Rule = (c) => {
  const given = VALUE_ATTRS.filter((n) => c.attr(n));
  if (given.length !== 1) {
    c.error(
      "bad-attribute-value",
      given.length === 0
        ? `${R.opName(c)} needs one value attribute (value, value_float, value_ints, ...), none is set`
        : `${R.opName(c)} needs exactly one value attribute, got ${given.join(", ")}`,
    );
    return;
  }
  const a = c.attr(given[0]!)!;
  if (a.value === undefined) {
    // A reference inside a function: the type follows from the attribute's kind where it can.
    if (a.type === "FLOAT") R.out(c, 0, DataType.FLOAT, []);
    else if (a.type === "INT") R.out(c, 0, DataType.INT64, []);
    else if (a.type === "FLOATS") R.out(c, 0, DataType.FLOAT, [null]);
    else if (a.type === "INTS") R.out(c, 0, DataType.INT64, [null]);
    else if (a.type === "STRING") R.out(c, 0, DataType.STRING, []);
    else if (a.type === "STRINGS") R.out(c, 0, DataType.STRING, [null]);
    return;
  }
  switch (a.type) {
    case "TENSOR": {
      const t = a.value as Tensor;
      R.out(c, 0, t.dataType, [...t.dims]);
      R.setConst(c, 0, constFromTensor(t));
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
      R.out(c, 0, DataType.FLOAT, []);
      R.setConst(c, 0, { elemType: DataType.FLOAT, dims: [], values: [a.value] });
      return;
    case "FLOATS":
      R.out(c, 0, DataType.FLOAT, [a.value.length]);
      R.setConst(c, 0, { elemType: DataType.FLOAT, dims: [a.value.length], values: [...a.value] });
      return;
    case "INT":
      R.out(c, 0, DataType.INT64, []);
      R.setConst(c, 0, { elemType: DataType.INT64, dims: [], values: [clampToNumber(a.value)] });
      return;
    case "INTS":
      R.out(c, 0, DataType.INT64, [a.value.length]);
      R.setConst(c, 0, {
        elemType: DataType.INT64,
        dims: [a.value.length],
        values: a.value.map(clampToNumber),
      });
      return;
    case "STRING":
      R.out(c, 0, DataType.STRING, []);
      return;
    case "STRINGS":
      R.out(c, 0, DataType.STRING, [a.value.length]);
      return;
    default:
  }
};

const constantOfShape: R.Rule = (c) => {
  const v = c.attr("value");
  const elem = v && v.type === "TENSOR" && v.value ? v.value.dataType : v ? 0 : DataType.FLOAT;
  const target = R.intsInput(c, 0);
  if (target && target.some((d) => d < 0)) {
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: the shape [${int64sText(target, R.exactInts(c, 0))}] has a negative dimension`,
    );
    return;
  }
  if (target) {
    R.out(c, 0, elem, target);
    const n = R.product(target);
    const k = v && v.type === "TENSOR" && v.value ? constFromTensor(v.value) : undefined;
    const fill = v ? k?.values[0] : 0;
    if (n !== undefined && n <= MAX_CONST_ELEMENTS && fill !== undefined && elem) {
      R.setConst(c, 0, { elemType: elem, dims: target, values: new Array<number>(n).fill(fill) });
    }
    return;
  }
  const sy = c.syms[0];
  if (sy) {
    R.out(c, 0, elem, sy);
    return;
  }
  const k = c.inputs[0];
  const n = isTensor(k) && k.shape?.length === 1 ? k.shape[0] : undefined;
  R.out(c, 0, elem, typeof n === "number" ? R.unknownDims(n) : undefined);
};

/** The length of Range(start, n, step) for a size n: known when start ≤ 0 < step. */
function rangeLength(n: string, start: number, step: number): Dim {
  if (!Number.isInteger(start) || !Number.isInteger(step) || start > 0 || step <= 0) return null;
  return dimFloorDiv(dimAdd(n, step - 1 - start), step);
}

const range: R.Rule = (c) => {
  const elem = R.elemOf(c, 0) || R.elemOf(c, 1) || R.elemOf(c, 2);
  for (let i = 0; i < 3; i++) {
    const s = R.shapeOf(c, i);
    if (s && s.length !== 0 && !(s.length === 1 && s[0] === 1)) {
      c.error(
        "rank",
        `${R.opName(c)}: input '${R.inName(c, i)}' must be a scalar, got shape ${formatShape(s)}`,
      );
    }
  }
  const [a, b, d] = [c.consts[0], c.consts[1], c.consts[2]];
  if (a && b && d) {
    const start = a.values[0]!;
    const delta = d.values[0]!;
    if (delta === 0) {
      c.error("bad-attribute-value", `${R.opName(c)}: delta is 0`);
      return;
    }
    const n = Math.max(0, Math.ceil((b.values[0]! - start) / delta));
    R.out(c, 0, elem, [n]);
    if (n <= MAX_CONST_ELEMENTS) {
      R.setConst(c, 0, {
        elemType: elem,
        dims: [n],
        values: Array.from({ length: n }, (_, i) => start + i * delta),
      });
    }
    return;
  }
  // Range(s, n, k) with n a size known by data propagation (a symbol or an expression of one)
  // and numbers s ≤ 0 < k: ceil((n - s)/k) values.
  const limit = c.syms[1];
  const start = a?.values[0];
  const step = d?.values[0];
  const n =
    limit?.length === 1 && typeof limit[0] === "string" && start !== undefined && step !== undefined
      ? rangeLength(limit[0], start, step)
      : null;
  R.out(c, 0, elem, [n]);
};

/** Output 0 has input 0's shape; its element type is the `dtype` attribute when given. */
const likeInput: R.Rule = (c) => {
  const t = R.tin(c, 0);
  const dtype = R.attrIntOf(c, "dtype");
  R.out(c, 0, typeof dtype === "number" ? dtype : (t?.elemType ?? 0), t?.shape);
};

const rules: Record<string, R.Rule> = {
  Constant: constant,
  ConstantOfShape: constantOfShape,
  Range: range,
  EyeLike: likeInput,
  Bernoulli: likeInput,
  RandomNormalLike: likeInput,
  RandomUniformLike: likeInput,
};

export const generatorRules: Readonly<Record<string, R.Rule>> = Object.freeze(rules);
