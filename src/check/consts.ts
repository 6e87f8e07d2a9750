// Small constant values the inference follows through the graph (axes, shapes, pads, slice
// bounds): from Constant nodes and initializers, and through the few ops that compute them.

import { clampToNumber } from "../ir/attributes.js";
import { dtypeInfo } from "../ir/dtype.js";
import type { Tensor } from "../ir/tensor.js";
import { DataType } from "../ir/types.js";

/** A known value: numbers (64-bit integers converted, saturating beyond 2^53). */
export interface ConstVal {
  elemType: number;
  dims: number[];
  values: number[];
  /** The model's own values, when some of `values` saturated past 2^53 (for messages). */
  exact?: bigint[];
}

/** Larger constants are not followed: they are data, not shapes. */
export const MAX_CONST_ELEMENTS = 4096;

/** The most bytes a folded constant may take (fold-constants' default `limit`). */
export const DEFAULT_FOLD_LIMIT = 1 << 20;

export function constFromTensor(t: Tensor): ConstVal | undefined {
  if (t.dataType === DataType.STRING || !t.readable) return undefined;
  if (
    !dtypeInfo(t.dataType) ||
    t.dataType === DataType.COMPLEX64 ||
    t.dataType === DataType.COMPLEX128
  )
    return undefined;
  if (t.elementCount > MAX_CONST_ELEMENTS) return undefined;
  try {
    const raw = t.values() as (number | bigint | boolean)[];
    if (raw.length !== t.elementCount) return undefined;
    const values = raw.map((v) =>
      typeof v === "bigint" ? clampToNumber(v) : typeof v === "boolean" ? (v ? 1 : 0) : v,
    );
    const big = raw.filter((v): v is bigint => typeof v === "bigint");
    const saturated =
      big.length === raw.length && values.some((v) => Math.abs(v) === Number.MAX_SAFE_INTEGER);
    return {
      elemType: t.dataType,
      dims: [...t.dims],
      values,
      ...(saturated ? { exact: big } : {}),
    };
  } catch {
    return undefined;
  }
}

export function isIntegerType(elemType: number): boolean {
  switch (elemType) {
    case DataType.INT8:
    case DataType.INT16:
    case DataType.INT32:
    case DataType.INT64:
    case DataType.UINT8:
    case DataType.UINT16:
    case DataType.UINT32:
    case DataType.UINT64:
    case DataType.BOOL:
      return true;
    default:
      return false;
  }
}

/** Converts values as Cast would, for the types shapes are made of (ints, bool, floats). */
export function castValues(values: number[], to: number): number[] | undefined {
  if (to === DataType.BOOL) return values.map((v) => (v !== 0 ? 1 : 0));
  if (isIntegerType(to)) return values.map((v) => (Number.isFinite(v) ? Math.trunc(v) : NaN));
  if (to === DataType.FLOAT) return values.map((v) => Math.fround(v));
  if (to === DataType.DOUBLE || to === DataType.FLOAT16 || to === DataType.BFLOAT16) return values;
  return undefined;
}

/** Elementwise on two constants when one is a single value or both have the same size. */
export function binaryConst(
  a: ConstVal,
  b: ConstVal,
  f: (x: number, y: number) => number,
  elemType = a.elemType,
): ConstVal | undefined {
  const na = a.values.length;
  const nb = b.values.length;
  let dims: number[];
  if (na === nb && a.dims.length === b.dims.length) dims = a.dims;
  else if (nb === 1 && b.dims.length <= a.dims.length) dims = a.dims;
  else if (na === 1 && a.dims.length <= b.dims.length) dims = b.dims;
  else return undefined;
  const n = Math.max(na, nb);
  const values = new Array<number>(n);
  for (let i = 0; i < n; i++)
    values[i] = f(a.values[na === 1 ? 0 : i]!, b.values[nb === 1 ? 0 : i]!);
  return { elemType, dims: [...dims], values };
}
