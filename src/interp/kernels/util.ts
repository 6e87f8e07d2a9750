// Helpers shared by the kernels: checked inputs, checked allocation, axes, broadcasting.

import { OnnxError } from "../../errors.js";
import { bfloat16BitsToNumber, dtypeName, float16Table } from "../../ir/dtype.js";
import { attrIntText, clampToNumber, int64Text } from "../../ir/attributes.js";
import { DataType } from "../../ir/types.js";
import { allocStorage, isFloatType, scratch } from "../tensor.js";
import type { KernelContext, RTensor, RValue, Storage } from "../types.js";

/** Indexed access to any storage, for code that only moves elements. */
export type AnyStore = { [i: number]: unknown; length: number };

/** The product of a list of dimensions (1 for none). */
export const prod = (xs: readonly number[]) => xs.reduce((p, d) => p * d, 1);

export function fail(ctx: KernelContext, message: string): never {
  throw new OnnxError("E_RUNTIME", message, ctx.label);
}

export function isTensor(v: RValue | undefined): v is RTensor {
  return v !== undefined && !("kind" in v);
}

/** Input `i` as a tensor; an error naming the node when it is absent or not a tensor. */
export function input(ctx: KernelContext, inputs: (RValue | undefined)[], i: number): RTensor {
  const v = optInput(ctx, inputs, i);
  if (v === undefined) fail(ctx, `input ${i} is required but was not given`);
  return v;
}

export function optInput(
  ctx: KernelContext,
  inputs: (RValue | undefined)[],
  i: number,
): RTensor | undefined {
  const v = inputs[i];
  if (v === undefined) return undefined;
  if (!isTensor(v)) fail(ctx, `input ${i} must be a tensor`);
  return v;
}

/** The optional inputs `from` to `from + count - 1` (optInput each), in order. */
export function optInputs(
  ctx: KernelContext,
  inputs: (RValue | undefined)[],
  from: number,
  count: number,
): (RTensor | undefined)[] {
  const out: (RTensor | undefined)[] = [];
  for (let i = from; i < from + count; i++) out.push(optInput(ctx, inputs, i));
  return out;
}

/** Element count of a shape, checked against overflow and the context's limit. */
export function checkedCount(ctx: KernelContext, shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) {
    if (!Number.isInteger(d) || d < 0)
      fail(ctx, `invalid dimension ${d} in shape [${shape.join(",")}]`);
    n *= d;
  }
  if (!Number.isSafeInteger(n))
    fail(ctx, `shape [${shape.join(",")}] has too many elements: the count overflows`);
  if (n > ctx.maxElements)
    fail(
      ctx,
      `shape [${shape.join(",")}] has ${n} elements, more than the limit of ${ctx.maxElements} (--max-elements)`,
    );
  return n;
}

/** A zero-filled tensor, checked against the element limit. */
export function alloc(ctx: KernelContext, dtype: number, shape: number[]): RTensor {
  const n = checkedCount(ctx, shape);
  return { dtype, shape, data: allocStorage(dtype, n) };
}

/**
 * Normalises an axis in [-rank, rank-1]; an error naming the node otherwise. The error quotes
 * `exact` (the model's value of a saturated axis) or else the node's attribute `what`.
 */
export function normAxis(
  ctx: KernelContext,
  axis: number,
  rank: number,
  what = "axis",
  exact?: bigint | number,
): number {
  if (!Number.isInteger(axis) || axis < -rank || axis >= rank) {
    const shown = exact !== undefined ? int64Text(axis, exact) : attrIntText(ctx.node, what, axis);
    fail(ctx, `${what} ${shown} is out of range for rank ${rank} (valid: [${-rank}, ${rank - 1}])`);
  }
  return axis < 0 ? axis + rank : axis;
}

/** An integer tensor's values as numbers (int64 beyond 2^53 saturates to ±MAX_SAFE_INTEGER). */
export function intValues(ctx: KernelContext, t: RTensor, what: string): number[] {
  const d = t.data;
  if (Array.isArray(d)) fail(ctx, `${what} must be an integer tensor, got ${dtypeName(t.dtype)}`);
  if (
    t.dtype === DataType.FLOAT ||
    t.dtype === DataType.DOUBLE ||
    t.dtype === DataType.FLOAT16 ||
    t.dtype === DataType.BFLOAT16
  )
    fail(ctx, `${what} must be an integer tensor, got ${dtypeName(t.dtype)}`);
  const out = new Array<number>(d.length);
  for (let i = 0; i < d.length; i++) {
    const v = d[i]!;
    if (typeof v === "bigint") {
      out[i] = clampToNumber(v);
    } else out[i] = v;
  }
  return out;
}

/** An integer tensor's own values, which messages quote where intValues saturated them. */
export function exactValues(t: RTensor): ArrayLike<bigint | number> | undefined {
  return Array.isArray(t.data) ? undefined : (t.data as ArrayLike<bigint | number>);
}

/** Element i of integer tensor t, whose intValues are `vals`, as a message quotes it. */
export const indexText = (t: RTensor, vals: readonly number[], i: number): string =>
  int64Text(vals[i]!, exactValues(t)?.[i]);

/** A scalar (or one-element) input as a number. */
export function scalarNumber(ctx: KernelContext, t: RTensor, what: string): number {
  if (t.data.length !== 1)
    fail(ctx, `${what} must hold exactly one value, got shape [${t.shape.join(",")}]`);
  const v = t.data[0]!;
  if (typeof v === "string") fail(ctx, `${what} must be numeric`);
  if (t.dtype === DataType.FLOAT16 || t.dtype === DataType.BFLOAT16) return toNumberAt(t, 0);
  return Number(v);
}

/** Element i as a JS number (float16/bfloat16 decoded). */
export function toNumberAt(t: RTensor, i: number): number {
  const v = t.data[i]!;
  if (t.dtype === DataType.FLOAT16) return float16Table()[v as number]!;
  if (t.dtype === DataType.BFLOAT16) return bfloat16BitsToNumber(v as number);
  return Number(v);
}

export function strides(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i]!;
  }
  return s;
}

/** The multidirectional (numpy-style) broadcast of shapes; an error naming the node if incompatible. */
export function broadcastShapes(
  ctx: KernelContext,
  shapes: readonly (readonly number[])[],
): number[] {
  const rank = shapes.reduce((r, s) => Math.max(r, s.length), 0);
  const out = new Array<number>(rank).fill(1);
  for (let i = 0; i < rank; i++) {
    let dim = 1;
    for (const s of shapes) {
      const d = s[s.length - rank + i] ?? 1;
      if (d === 1) continue;
      if (dim !== 1 && dim !== d)
        fail(
          ctx,
          `shapes ${shapes.map((x) => `[${x.join(",")}]`).join(" and ")} cannot be broadcast together`,
        );
      dim = d;
    }
    // A zero-sized dimension broadcasts against 1 only.
    out[i] = shapes.some((s) => (s[s.length - rank + i] ?? 1) === 0) ? 0 : dim;
  }
  return out;
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/**
 * For each element of `outShape` (row-major), the index of the element of a tensor of `inShape`
 * it reads under broadcasting. Null when the shapes are equal (the identity map).
 */
export function broadcastIndex(
  inShape: readonly number[],
  outShape: readonly number[],
): Int32Array | null {
  if (sameShape(inShape, outShape)) return null;
  const rank = outShape.length;
  if (rank === 0) return new Int32Array(1);
  let n = 1;
  for (const d of outShape) n *= d;
  const map = scratch(Int32Array, n);
  if (n === 0) return map;
  const inStrides = new Array<number>(rank).fill(0);
  let acc = 1;
  for (let i = inShape.length - 1; i >= 0; i--) {
    const o = rank - inShape.length + i;
    inStrides[o] = inShape[i] === 1 ? 0 : acc;
    acc *= inShape[i]!;
  }
  if (acc === 1) return map; // a single element: every output reads index 0
  const counter = new Array<number>(rank).fill(0);
  const last = rank - 1;
  const innerLen = outShape[last]!;
  const innerStride = inStrides[last]!;
  let base = 0;
  let o = 0;
  while (o < n) {
    let idx = base;
    for (let j = 0; j < innerLen; j++) {
      map[o++] = idx;
      idx += innerStride;
    }
    // advance the odometer over the outer dimensions
    let k = last - 1;
    while (k >= 0) {
      counter[k]!++;
      base += inStrides[k]!;
      if (counter[k]! < outShape[k]!) break;
      base -= inStrides[k]! * counter[k]!;
      counter[k] = 0;
      k--;
    }
    if (k < 0) break;
  }
  return map;
}

/** Storage of the same kind as `like` for n elements. */
export function sameKindStorage(dtype: number, n: number): Storage {
  return allocStorage(dtype, n);
}

/** Input `i` as a floating-point tensor (float16, bfloat16, float, double); an error naming it otherwise. */
export function floatInput(
  ctx: KernelContext,
  inputs: (RValue | undefined)[],
  i: number,
  what: string,
): RTensor {
  const t = input(ctx, inputs, i);
  if (
    t.dtype !== DataType.FLOAT &&
    t.dtype !== DataType.DOUBLE &&
    t.dtype !== DataType.FLOAT16 &&
    t.dtype !== DataType.BFLOAT16
  )
    fail(ctx, `${what} must be a floating-point tensor, got ${dtypeName(t.dtype)}`);
  return t;
}

/** An error naming the node unless `t` holds floating-point numbers. */
export function requireFloat(ctx: KernelContext, t: RTensor, what = "input"): void {
  if (!isFloatType(t.dtype)) fail(ctx, `${what} must be floating point, got ${dtypeName(t.dtype)}`);
}
