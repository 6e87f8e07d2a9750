// legalize-reduce-sum: ReduceSum over static, adjacent axes of a float tensor, for a target
// without it (NNAPI), as a MatMul with a vector of ones: the reduced axes merged into one of R
// elements (a Reshape, where there is more than one), then x · ones[R, 1] when they end the shape,
// else ones[1, R] · x over [before, R, after], and a Reshape to ReduceSum's output shape where the
// MatMul's differs. Each product x·1 is x exactly (±inf and NaN included), so the MatMul adds the
// same R values ReduceSum adds: a valid summation, rounded in the order the MatMul kernel adds,
// where ReduceSum's rounds in its own (docs/semantics.md gives the bound and what was measured);
// a sum of -0 values only may come out +0.

import { attrInt } from "../ir/attributes.js";
import { DataType } from "../ir/types.js";
import { ints, legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";
import { reducedAxes } from "./legalize-reduce-max.js";

const FLOATS: readonly number[] = [DataType.FLOAT, DataType.FLOAT16, DataType.DOUBLE];
const product = (ds: number[]) => ds.reduce((p, d) => p * d, 1);

function sumByMatMul(site: Site): boolean {
  const n = site.node;
  const x = n.inputs[0];
  const shape = x ? site.shape(x) : undefined;
  const dt = x ? site.elem(x) : undefined;
  if (!x || !shape || dt === undefined || !FLOATS.includes(dt) || !site.has("MatMul")) return false;
  const axes = reducedAxes(site, shape.length);
  if (!axes?.length || axes.some((a, i) => i > 0 && a !== axes[i - 1]! + 1)) return false;
  const [first, last] = [axes[0]!, axes[axes.length - 1]!];
  const R = product(axes.map((a) => shape[a]!));
  if (R === 0) return false;
  const keep = attrInt(n, "keepdims", 1) === 1;
  const outShape = shape.flatMap((d, i) => (!axes.includes(i) ? [d] : keep ? [1] : []));
  const [before, after] = [shape.slice(0, first), shape.slice(last + 1)];
  const atEnd = after.length === 0;
  // the MatMul's operand: x itself where the reduced axis is one and in place, else reshaped
  const inPlace = axes.length === 1 && (atEnd || (after.length === 1 && shape.length >= 2));
  const operandShape = atEnd ? [...before, R] : [product(before), R, product(after)];
  const mmShape = atEnd
    ? [...before, 1]
    : inPlace
      ? [...before, 1, ...after]
      : [operandShape[0]!, 1, operandShape[2]!];
  const direct = mmShape.length === outShape.length && mmShape.every((d, i) => d === outShape[i]);
  if (!((inPlace && direct) || site.has("Reshape"))) return false;
  const operand = inPlace ? x : site.add("Reshape", [x, ints(site, "shape", operandShape)]);
  const ones = site.constant("ones", dt, atEnd ? [R, 1] : [1, R], new Array(R).fill(1));
  const mm = site.add(
    "MatMul",
    atEnd ? [operand, ones] : [ones, operand],
    {},
    direct ? [...site.out] : undefined,
  );
  if (!direct) site.add("Reshape", [mm, ints(site, "shape", outShape)], {}, [...site.out]);
  return true;
}

export function legalizeReduceSum(options: LegalizeOptions) {
  return legalizePass(
    "legalize-reduce-sum",
    ["ReduceSum"],
    "ReduceSum made a MatMul with ones",
    sumByMatMul,
    options,
  );
}
