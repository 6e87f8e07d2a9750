// Shared helpers for the Reduce/LogCumSumExp tests: a kernel context and tensor shorthands.

import { node, type AttrInput } from "../../src/ir/builder.js";
import { DataType } from "../../src/ir/types.js";
import type { KernelContext, RTensor } from "../../src/interp/types.js";

export function ctxFor(
  opType: string,
  opset: number,
  attrs: Record<string, AttrInput> = {},
): KernelContext {
  return {
    node: node(opType, ["x"], ["y"], attrs, { name: "r1" }),
    opset,
    label: `node 'r1' (${opType})`,
    maxElements: 2 ** 31 - 1,
  };
}

export const f32 = (shape: number[], v: number[]): RTensor => ({
  dtype: DataType.FLOAT,
  shape,
  data: new Float32Array(v),
});
export const f64 = (shape: number[], v: number[]): RTensor => ({
  dtype: DataType.DOUBLE,
  shape,
  data: new Float64Array(v),
});
export const i32 = (shape: number[], v: number[]): RTensor => ({
  dtype: DataType.INT32,
  shape,
  data: new Int32Array(v),
});
export const i64 = (shape: number[], v: (number | bigint)[]): RTensor => ({
  dtype: DataType.INT64,
  shape,
  data: BigInt64Array.from(v.map((x) => BigInt(x))),
});
export const axesT = (v: number[]): RTensor => i64([v.length], v);
