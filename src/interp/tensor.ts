// Runtime tensors: allocation by dtype, and fast float16/bfloat16 conversion.

import { OnnxError } from "../errors.js";
import { dtypeName, numberToFloat16Bits } from "../ir/dtype.js";
import { DataType } from "../ir/types.js";
import type { RTensor, Storage } from "./types.js";

export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Zero-filled storage for n elements of a dtype. */
export function allocStorage(dtype: number, n: number): Storage {
  switch (dtype) {
    case DataType.FLOAT:
      return new Float32Array(n);
    case DataType.DOUBLE:
      return new Float64Array(n);
    case DataType.FLOAT16:
    case DataType.BFLOAT16:
    case DataType.UINT16:
      return new Uint16Array(n);
    case DataType.INT8:
      return new Int8Array(n);
    case DataType.UINT8:
    case DataType.BOOL:
      return new Uint8Array(n);
    case DataType.INT16:
      return new Int16Array(n);
    case DataType.INT32:
      return new Int32Array(n);
    case DataType.UINT32:
      return new Uint32Array(n);
    case DataType.INT64:
      return new BigInt64Array(n);
    case DataType.UINT64:
      return new BigUint64Array(n);
    case DataType.STRING:
      return new Array<string>(n).fill("");
    default:
      throw new OnnxError("E_UNSUPPORTED", `tensors of type ${dtypeName(dtype)} are not supported by the interpreter`);
  }
}

export function allocTensor(dtype: number, shape: number[]): RTensor {
  return { dtype, shape, data: allocStorage(dtype, elementCount(shape)) };
}

// float16 → float32: a 65536-entry table (256 KiB), built once on first use.
let f16Table: Float32Array | undefined;
export function float16Table(): Float32Array {
  if (!f16Table) {
    f16Table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) {
      const sign = h & 0x8000 ? -1 : 1;
      const exp = (h >> 10) & 0x1f;
      const frac = h & 0x3ff;
      let v: number;
      if (exp === 0) v = frac * 2 ** -24;
      else if (exp === 31) v = frac ? NaN : Infinity;
      else v = (1 + frac / 1024) * 2 ** (exp - 15);
      f16Table[h] = sign * v;
    }
  }
  return f16Table;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32/float64 value → float16 bits, round to nearest even (from the exact value). */
export function toFloat16Bits(x: number): number {
  return numberToFloat16Bits(x);
}

/** bfloat16 bits → number. */
export function fromBfloat16Bits(b: number): number {
  u32[0] = b << 16;
  return f32[0]!;
}

/**
 * number → bfloat16 bits, round to nearest even. Rounds from float32 first (double rounding can
 * differ from direct rounding only in ties that float32 already broke; accepted, as ONNX does).
 */
export function toBfloat16Bits(x: number): number {
  f32[0] = x;
  const u = u32[0]!;
  if ((u & 0x7f800000) === 0x7f800000 && (u & 0x7fffff) !== 0) return ((u >>> 16) | 0x40) & 0xffff;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/** Whether a dtype is computed as floating point. */
export function isFloatType(dtype: number): boolean {
  return dtype === DataType.FLOAT || dtype === DataType.DOUBLE || dtype === DataType.FLOAT16 || dtype === DataType.BFLOAT16;
}

/** The elements as float64 (float16/bfloat16 decoded; 64-bit integers may round beyond 2^53). */
export function toFloat64(t: RTensor): Float64Array {
  const n = t.data.length;
  const out = new Float64Array(n);
  const d = t.data;
  if (t.dtype === DataType.FLOAT16) {
    const table = float16Table();
    const src = d as Uint16Array;
    for (let i = 0; i < n; i++) out[i] = table[src[i]!]!;
  } else if (t.dtype === DataType.BFLOAT16) {
    const src = d as Uint16Array;
    for (let i = 0; i < n; i++) out[i] = fromBfloat16Bits(src[i]!);
  } else if (d instanceof BigInt64Array || d instanceof BigUint64Array) {
    for (let i = 0; i < n; i++) out[i] = Number(d[i]!);
  } else if (Array.isArray(d)) {
    throw new OnnxError("E_RUNTIME", "string tensors have no numeric value");
  } else {
    out.set(d as ArrayLike<number>);
  }
  return out;
}

/**
 * Builds a tensor of `dtype` from float64 values: floats round to the type (float16/bfloat16
 * round to nearest even), integers truncate toward zero and wrap modulo 2^bits, bool is x != 0.
 */
export function fromFloat64(dtype: number, shape: number[], values: Float64Array): RTensor {
  const n = values.length;
  const data = allocStorage(dtype, n);
  if (dtype === DataType.FLOAT16) {
    const dst = data as Uint16Array;
    for (let i = 0; i < n; i++) dst[i] = toFloat16Bits(values[i]!);
  } else if (dtype === DataType.BFLOAT16) {
    const dst = data as Uint16Array;
    for (let i = 0; i < n; i++) dst[i] = toBfloat16Bits(values[i]!);
  } else if (dtype === DataType.BOOL) {
    const dst = data as Uint8Array;
    for (let i = 0; i < n; i++) dst[i] = values[i] !== 0 ? 1 : 0;
  } else if (data instanceof BigInt64Array || data instanceof BigUint64Array) {
    for (let i = 0; i < n; i++) {
      const v = values[i]!;
      data[i] = Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n;
    }
  } else if (Array.isArray(data)) {
    throw new OnnxError("E_RUNTIME", "cannot make a string tensor from numbers");
  } else if (data instanceof Float32Array || data instanceof Float64Array) {
    data.set(values);
  } else {
    // Typed integer arrays wrap on store; truncate first (NaN → 0 as typed arrays do).
    for (let i = 0; i < n; i++) (data as Int32Array)[i] = Math.trunc(values[i]!);
  }
  return { dtype, shape, data };
}
