// Cast and CastLike: a tensor converted to another element type (castTensor), as ONNX and
// onnxruntime define it for every pair of types: strings parsed and formatted, floats truncated
// toward zero into integers, half types rounded to nearest even, int64 by BigInt.

import { attrInt, attrString } from "../../ir/attributes.js";
import {
  dtypeByName,
  dtypeName,
  numberToBfloat16Bits,
  numberToFloat16Bits,
} from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { chargeBytes } from "../budget.js";
import {
  BIG_INT_TYPES,
  SMALL_INT_TYPES,
  allocStorage,
  isHalfType,
  kernelView,
  scratch,
} from "../tensor.js";
import type { Kernel, KernelContext, RTensor, Storage } from "../types.js";
import { computeView, domainOf, halfKind } from "./elementwise.js";
import { intToFloatInPlace, narrowHalfWasm, widenHalfWasm } from "./ew-wasm.js";
import { castLowPrecision, isLowPrecision } from "./low-precision.js";
import { fail, input } from "./util.js";

function formatForString(x: number, from: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "INF";
  if (x === -Infinity) return "-INF";
  if (from === DataType.FLOAT || from === DataType.FLOAT16 || from === DataType.BFLOAT16) {
    // The shortest text that reads back as the same float32.
    for (let p = 1; p <= 9; p++) {
      const s = x.toPrecision(p);
      if (Math.fround(Number(s)) === x) return String(Number(s));
    }
  }
  return String(x);
}

function parseNumber(s: string): number {
  const t = s.trim().toLowerCase();
  if (t === "nan" || t === "+nan" || t === "-nan") return NaN;
  if (t === "inf" || t === "+inf" || t === "infinity" || t === "+infinity") return Infinity;
  if (t === "-inf" || t === "-infinity") return -Infinity;
  return t === "" ? NaN : Number(t);
}

/**
 * Converts a tensor to another dtype. Floats to integers truncate toward zero (out-of-range and
 * NaN values wrap modulo 2^bits as typed arrays store them: the result is implementation-defined
 * in ONNX); to float16/bfloat16 rounds to nearest even; to bool is x != 0.
 */
export function castTensor(ctx: KernelContext, x: RTensor, to: number): RTensor {
  if (isLowPrecision(x.dtype) || isLowPrecision(to))
    return castLowPrecision(ctx, x, to, (t, d) => castTensor(ctx, t, d));
  const shape = [...x.shape];
  const n = x.data.length;
  if (domainOf(to) === undefined) fail(ctx, `casting to ${dtypeName(to)} is not supported`);
  if (x.dtype === to) return { dtype: to, shape, data: x.data.slice() as Storage };
  const src = x.data;
  // From string: parse.
  if (x.dtype === DataType.STRING) {
    const strs = src as string[];
    if (BIG_INT_TYPES.has(to)) {
      const out = allocStorage(to, n) as BigInt64Array;
      for (let i = 0; i < n; i++) {
        const s = strs[i]!.trim();
        out[i] = /^[-+]?\d+$/.test(s) ? BigInt(s) : BigInt(Math.trunc(parseNumber(s)) || 0);
      }
      return { dtype: to, shape, data: out };
    }
    const vals = scratch(Float64Array, n);
    for (let i = 0; i < n; i++) vals[i] = parseNumber(strs[i]!);
    return castTensor(ctx, { dtype: DataType.DOUBLE, shape, data: vals }, to);
  }
  // To string: format.
  if (to === DataType.STRING) {
    chargeBytes(n * 32, true, `${n} strings`);
    const out = new Array<string>(n);
    if (x.dtype === DataType.BOOL) for (let i = 0; i < n; i++) out[i] = src[i] ? "1" : "0";
    else if (BIG_INT_TYPES.has(x.dtype)) for (let i = 0; i < n; i++) out[i] = String(src[i]);
    else {
      const v = computeView(x) as Float64Array;
      for (let i = 0; i < n; i++) out[i] = formatForString(v[i]!, x.dtype);
    }
    return { dtype: to, shape, data: out };
  }
  // From 64-bit integers.
  if (BIG_INT_TYPES.has(x.dtype)) {
    const s = src as BigInt64Array;
    if (BIG_INT_TYPES.has(to)) {
      const out = allocStorage(to, n) as BigInt64Array;
      for (let i = 0; i < n; i++) out[i] = s[i]!; // wraps on store
      return { dtype: to, shape, data: out };
    }
    if (SMALL_INT_TYPES.has(to)) {
      const bits =
        to === DataType.INT8 || to === DataType.UINT8
          ? 8
          : to === DataType.INT16 || to === DataType.UINT16
            ? 16
            : 32;
      const out = allocStorage(to, n) as Int32Array;
      for (let i = 0; i < n; i++) out[i] = Number(BigInt.asIntN(bits, s[i]!));
      return { dtype: to, shape, data: out };
    }
    if (to === DataType.BOOL) {
      const out = scratch(Uint8Array, n);
      for (let i = 0; i < n; i++) out[i] = s[i] !== 0n ? 1 : 0;
      return { dtype: to, shape, data: out };
    }
    const vals = scratch(Float64Array, n);
    for (let i = 0; i < n; i++) vals[i] = Number(s[i]!);
    return castTensor(ctx, { dtype: DataType.DOUBLE, shape, data: vals }, to);
  }
  // From numbers (float, small int, bool; half types decoded exactly).
  if (isHalfType(x.dtype) && to === DataType.FLOAT) {
    const out = allocStorage(to, n) as Float32Array;
    if (widenHalfWasm(src as Uint16Array, halfKind(x.dtype), out))
      return { dtype: to, shape, data: out };
  }
  const v = (isHalfType(x.dtype) ? computeView(x) : src) as Float64Array;
  if (to === DataType.FLOAT16 || to === DataType.BFLOAT16) {
    const out = scratch(Uint16Array, n);
    if (v instanceof Float32Array && narrowHalfWasm(v, halfKind(to), out))
      return { dtype: to, shape, data: out };
    const enc = to === DataType.FLOAT16 ? numberToFloat16Bits : numberToBfloat16Bits;
    for (let i = 0; i < n; i++) out[i] = enc(v[i]!);
    return { dtype: to, shape, data: out };
  }
  if (to === DataType.FLOAT || to === DataType.DOUBLE) {
    // The typed arrays' own conversion: each element as the loop would store it.
    const out = allocStorage(to, n) as Float64Array;
    out.set(v);
    return { dtype: to, shape, data: out };
  }
  if (to === DataType.BOOL) {
    const out = scratch(Uint8Array, n);
    for (let i = 0; i < n; i++) out[i] = v[i] !== 0 ? 1 : 0;
    return { dtype: to, shape, data: out };
  }
  if (BIG_INT_TYPES.has(to)) {
    // int64: NaN, ±inf and values out of range become the minimum (what onnxruntime gives);
    // uint64: truncated and wrapped modulo 2^64, NaN and ±inf 0.
    const out = allocStorage(to, n) as BigInt64Array;
    const min = -(2n ** 63n);
    for (let i = 0; i < n; i++) {
      const t = Math.trunc(v[i]!);
      if (to === DataType.INT64)
        out[i] = Number.isFinite(t) && t >= -(2 ** 63) && t < 2 ** 63 ? BigInt(t) : min;
      else out[i] = Number.isFinite(t) ? BigInt.asUintN(64, BigInt(t)) : 0n;
    }
    return { dtype: to, shape, data: out };
  }
  const out = allocStorage(to, n) as Int32Array;
  if (to === DataType.INT32) {
    // As int64: NaN, ±inf and out-of-range values become the minimum.
    for (let i = 0; i < n; i++) {
      const t = Math.trunc(v[i]!);
      out[i] = t >= -(2 ** 31) && t < 2 ** 31 ? t : -(2 ** 31);
    }
    return { dtype: to, shape, data: out };
  }
  // Narrower and unsigned types: truncated, wrapped modulo 2^bits on store; NaN and ±inf are 0.
  for (let i = 0; i < n; i++) out[i] = Math.trunc(v[i]!);
  return { dtype: to, shape, data: out };
}

const Cast: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  // Cast-1 names the type as a string ("FLOAT"); later versions use the enum value.
  const named = attrString(ctx.node, "to", "");
  const to = named ? dtypeByName(named.toLowerCase())?.id : attrInt(ctx.node, "to");
  if (to === undefined)
    fail(ctx, named ? `unknown type '${named}' in attribute 'to'` : "attribute 'to' is required");
  if (x.dtype === DataType.INT32 && to === DataType.FLOAT && ctx.donated?.(0)) {
    // The values converted where they are (a donated int32 tensor in a memory of its own).
    const data = intToFloatInPlace(x.data as Int32Array);
    if (data) return [{ dtype: to, shape: [...x.shape], data: kernelView(x.data, data) }];
  }
  return [castTensor(ctx, x, to)];
};

const CastLike: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const like = input(ctx, inputs, 1);
  return [castTensor(ctx, x, like.dtype)];
};

export const castKernels: Record<string, Kernel> = { Cast, CastLike };
