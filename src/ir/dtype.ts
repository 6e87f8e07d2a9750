// Facts about each ONNX element type, and conversions for the 16-bit float formats.

import { DataType } from "./types.js";

export interface DTypeInfo {
  id: number;
  /** The name ONNX text syntax and type constraints use: float, int64, bfloat16, ... */
  name: string;
  /** Bytes per element in raw_data; fractional for 4- and 2-bit types; 0 for string. */
  size: number;
  /** Which TensorProto typed field holds the data when raw_data is not used. */
  field: "float_data" | "int32_data" | "string_data" | "int64_data" | "double_data" | "uint64_data";
}

const info = (id: number, name: string, size: number, field: DTypeInfo["field"]): DTypeInfo => ({
  id,
  name,
  size,
  field,
});

export const DTYPES: readonly DTypeInfo[] = [
  info(DataType.FLOAT, "float", 4, "float_data"),
  info(DataType.UINT8, "uint8", 1, "int32_data"),
  info(DataType.INT8, "int8", 1, "int32_data"),
  info(DataType.UINT16, "uint16", 2, "int32_data"),
  info(DataType.INT16, "int16", 2, "int32_data"),
  info(DataType.INT32, "int32", 4, "int32_data"),
  info(DataType.INT64, "int64", 8, "int64_data"),
  info(DataType.STRING, "string", 0, "string_data"),
  info(DataType.BOOL, "bool", 1, "int32_data"),
  info(DataType.FLOAT16, "float16", 2, "int32_data"),
  info(DataType.DOUBLE, "double", 8, "double_data"),
  info(DataType.UINT32, "uint32", 4, "uint64_data"),
  info(DataType.UINT64, "uint64", 8, "uint64_data"),
  info(DataType.COMPLEX64, "complex64", 8, "float_data"),
  info(DataType.COMPLEX128, "complex128", 16, "double_data"),
  info(DataType.BFLOAT16, "bfloat16", 2, "int32_data"),
  info(DataType.FLOAT8E4M3FN, "float8e4m3fn", 1, "int32_data"),
  info(DataType.FLOAT8E4M3FNUZ, "float8e4m3fnuz", 1, "int32_data"),
  info(DataType.FLOAT8E5M2, "float8e5m2", 1, "int32_data"),
  info(DataType.FLOAT8E5M2FNUZ, "float8e5m2fnuz", 1, "int32_data"),
  info(DataType.UINT4, "uint4", 0.5, "int32_data"),
  info(DataType.INT4, "int4", 0.5, "int32_data"),
  info(DataType.FLOAT4E2M1, "float4e2m1", 0.5, "int32_data"),
  info(DataType.FLOAT8E8M0, "float8e8m0", 1, "int32_data"),
  info(DataType.UINT2, "uint2", 0.25, "int32_data"),
  info(DataType.INT2, "int2", 0.25, "int32_data"),
];

const byId = new Map(DTYPES.map((d) => [d.id, d]));
const byName = new Map(DTYPES.map((d) => [d.name, d]));

export function dtypeInfo(id: number): DTypeInfo | undefined {
  return byId.get(id);
}
export function dtypeByName(name: string): DTypeInfo | undefined {
  return byName.get(name);
}
export function dtypeName(id: number): string {
  return byId.get(id)?.name ?? `dtype(${id})`;
}

/** Bytes needed for n elements of the type in raw_data (sub-byte types are packed). */
export function rawByteLength(id: number, n: number): number {
  const d = byId.get(id);
  if (!d || d.size === 0) return -1;
  return Math.ceil(n * d.size);
}

// float16 → number: a 65536-entry table (256 KiB), built once on first use; hot loops index it.
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

export function float16BitsToNumber(bits: number): number {
  return float16Table()[bits & 0xffff]!;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const f64w = new Uint32Array(f64.buffer);

/**
 * number → float16 bits, rounded to nearest even from the exact value (no intermediate float32
 * rounding). Works on the double's bits: no allocation, no table.
 */
export function numberToFloat16Bits(x: number): number {
  f64[0] = x;
  const hi = f64w[1]!;
  const lo = f64w[0]!;
  const sign = (hi >>> 16) & 0x8000;
  const exp = (hi >>> 20) & 0x7ff;
  if (exp === 0x7ff) return sign | (((hi & 0xfffff) | lo) !== 0 ? 0x7e00 : 0x7c00);
  const e = exp - 1023;
  if (e > 15) return sign | 0x7c00;
  if (e >= -14) {
    // Normal: keep the top 10 of the 52 mantissa bits, round on the rest.
    const m10 = (hi >>> 10) & 0x3ff;
    const rest = hi & 0x3ff;
    const up = rest > 0x200 || (rest === 0x200 && (lo !== 0 || (m10 & 1) === 1)) ? 1 : 0;
    return sign | ((((e + 15) << 10) | m10) + up); // a carry may reach the exponent, even inf
  }
  if (e < -26) return sign; // below half the smallest subnormal
  // Subnormal: units of 2^-24 (scaling by a power of two is exact).
  const m = Math.abs(x) * 16777216;
  let q = Math.floor(m);
  const frac = m - q;
  if (frac > 0.5 || (frac === 0.5 && (q & 1) === 1)) q++;
  return sign | q;
}

export function bfloat16BitsToNumber(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0]!;
}

/**
 * number → bfloat16 bits, round to nearest even from the float32 nearest to x (double rounding
 * can differ from direct rounding only in ties that float32 already broke; accepted, as ONNX
 * does). NaN stays a quiet NaN.
 */
export function numberToBfloat16Bits(x: number): number {
  f32[0] = x;
  const u = u32[0]!;
  if ((u & 0x7f800000) === 0x7f800000 && (u & 0x7fffff) !== 0) return ((u >>> 16) | 0x40) & 0xffff;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}
