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

/** The integer element types of 8 to 64 bits, signed and unsigned. */
export const INTEGER_TYPES: readonly number[] = [
  DataType.INT8,
  DataType.INT16,
  DataType.INT32,
  DataType.INT64,
  DataType.UINT8,
  DataType.UINT16,
  DataType.UINT32,
  DataType.UINT64,
];

/** The IEEE-style float element types arithmetic ops take (float8 and float4 excluded). */
export const FLOAT_TYPES: readonly number[] = [
  DataType.FLOAT,
  DataType.DOUBLE,
  DataType.FLOAT16,
  DataType.BFLOAT16,
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

// ---- 8-, 4- and 2-bit types ----------------------------------------------------------------
//
// float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0) and float4e2m1 are decoded from their bits by
// a table and encoded by rounding to nearest even (e8m0: by its round mode); int4/uint4 and
// int2/uint2 are integers packed two (four) to a byte in raw data, low bits first.

/**
 * The range of a quantized integer type: 8- and 16-bit, int32, and the 4- and 2-bit ones; undefined
 * for others.
 */
export function quantizedRange(id: number): [number, number] | undefined {
  switch (id) {
    case DataType.UINT8:
      return [0, 255];
    case DataType.INT8:
      return [-128, 127];
    case DataType.UINT16:
      return [0, 65535];
    case DataType.INT16:
      return [-32768, 32767];
    case DataType.INT32:
      return [-2147483648, 2147483647];
  }
  return subByteIntRange(id);
}

/** Bits per element of the packed integer and float4 types (4 or 2); 0 for others. */
export function packedBits(id: number): number {
  if (id === DataType.INT4 || id === DataType.UINT4 || id === DataType.FLOAT4E2M1) return 4;
  if (id === DataType.INT2 || id === DataType.UINT2) return 2;
  return 0;
}

/** The range of a sub-byte integer type ([min, max]); undefined for others. */
export function subByteIntRange(id: number): [number, number] | undefined {
  switch (id) {
    case DataType.INT4:
      return [-8, 7];
    case DataType.UINT4:
      return [0, 15];
    case DataType.INT2:
      return [-2, 1];
    case DataType.UINT2:
      return [0, 3];
  }
  return undefined;
}

/** The minifloat formats: exponent and mantissa bits, bias, and how they spend their codes. */
interface MiniFloat {
  exp: number;
  man: number;
  bias: number;
  /** "ieee": all-ones exponent is inf/NaN; "fn": only S.1111.111 is NaN, no inf; "fnuz": only
   * 0x80 (negative zero) is NaN, no inf, no -0; "none": no inf, no NaN (float4e2m1). */
  special: "ieee" | "fn" | "fnuz" | "none";
  bits: number;
}

const MINIFLOATS = new Map<number, MiniFloat>([
  [DataType.FLOAT8E4M3FN, { exp: 4, man: 3, bias: 7, special: "fn", bits: 8 }],
  [DataType.FLOAT8E4M3FNUZ, { exp: 4, man: 3, bias: 8, special: "fnuz", bits: 8 }],
  [DataType.FLOAT8E5M2, { exp: 5, man: 2, bias: 15, special: "ieee", bits: 8 }],
  [DataType.FLOAT8E5M2FNUZ, { exp: 5, man: 2, bias: 16, special: "fnuz", bits: 8 }],
  [DataType.FLOAT4E2M1, { exp: 2, man: 1, bias: 1, special: "none", bits: 4 }],
]);

/** Whether the type is a float8 or float4 type (held as its bits, one element per byte). */
export function isMiniFloat(id: number): boolean {
  return MINIFLOATS.has(id) || id === DataType.FLOAT8E8M0;
}

function decodeMini(f: MiniFloat, code: number): number {
  const signBit = 1 << (f.bits - 1);
  const sign = code & signBit ? -1 : 1;
  const e = (code >> f.man) & ((1 << f.exp) - 1);
  const m = code & ((1 << f.man) - 1);
  const eMax = (1 << f.exp) - 1;
  if (f.special === "fnuz" && code === signBit) return NaN;
  if (f.special === "fn" && e === eMax && m === (1 << f.man) - 1) return NaN;
  if (f.special === "ieee" && e === eMax) return m ? NaN : sign * Infinity;
  const v = e === 0 ? m * 2 ** (1 - f.bias - f.man) : (1 + m / (1 << f.man)) * 2 ** (e - f.bias);
  return sign * v;
}

const miniTables = new Map<number, Float64Array>();

/** The value of each code of a float8/float4 type (256 or 16 entries). */
export function miniFloatTable(id: number): Float64Array {
  let t = miniTables.get(id);
  if (!t) {
    if (id === DataType.FLOAT8E8M0) {
      t = new Float64Array(256);
      for (let c = 0; c < 256; c++) t[c] = c === 255 ? NaN : 2 ** (c - 127);
    } else {
      const f = MINIFLOATS.get(id);
      if (!f) throw new Error(`${dtypeName(id)} is not a minifloat type`);
      t = new Float64Array(1 << f.bits);
      for (let c = 0; c < t.length; c++) t[c] = decodeMini(f, c);
    }
    miniTables.set(id, t);
  }
  return t;
}

/** The largest finite value of a float8/float4 type. */
function maxFinite(id: number): number {
  let max = 0;
  for (const v of miniFloatTable(id)) if (Number.isFinite(v) && v > max) max = v;
  return max;
}
const maxFinites = new Map<number, number>();

/**
 * number → the bits of a float8/float4 type, rounded to nearest even, as ONNX's Cast does. With
 * `saturate` (Cast's default, QuantizeLinear's), values beyond the largest finite one and ±inf
 * become ±that value; without, they become ±inf (e5m2) or NaN. NaN is the type's NaN
 * (float4e2m1 has none: 0). float8e8m0 (no sign, no zero) takes float32's exponent, rounded as
 * `round` says ("up": any mantissa bit goes to the next power of two; "nearest": half or more);
 * inf and NaN give its NaN.
 */
export function numberToMiniFloatBits(
  id: number,
  x: number,
  saturate = true,
  round: "up" | "down" | "nearest" = "up",
): number {
  if (id === DataType.FLOAT8E8M0) return toE8M0(x, saturate, round);
  const f = MINIFLOATS.get(id);
  if (!f) throw new Error(`${dtypeName(id)} is not a minifloat type`);
  let max = maxFinites.get(id);
  if (max === undefined) maxFinites.set(id, (max = maxFinite(id)));
  const signBit = 1 << (f.bits - 1);
  const neg = x < 0 || Object.is(x, -0);
  // NaN: S.1111.111 (fn), 0x80 (fnuz), a quiet NaN 0x7e (e5m2); float4e2m1 has none.
  const nanCode =
    f.special === "fn" ? 0x7f : f.special === "fnuz" ? 0x80 : f.special === "ieee" ? 0x7e : 0;
  const signed = (code: number) =>
    neg && !(f.special === "fnuz" && (code === 0 || code === 0x80)) ? code | signBit : code;
  if (Number.isNaN(x)) return nanCode;
  const table = miniFloatTable(id);
  const top = table.indexOf(max); // the positive code of the largest finite value
  const a = Math.abs(x);
  if (a > max) {
    // Beyond the largest value: it, when saturating (or when rounding would come back to it).
    const step = max - table[top - 1]!;
    const roundsToMax = a < max + step / 2 || (a === max + step / 2 && (top & 1) === 0);
    if (saturate || f.special === "none" || (roundsToMax && a !== Infinity)) return signed(top);
    if (f.special === "ieee") return signed(((1 << f.exp) - 1) << f.man);
    return f.special === "fn" ? signed(nanCode) : nanCode;
  }
  // Codes 0..top are increasing: the nearest, ties to the even code.
  let lo = 0;
  let hi = top;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (table[mid]! <= a) lo = mid;
    else hi = mid;
  }
  const dl = a - table[lo]!;
  const dh = table[hi]! - a;
  return signed(dl < dh || (dl === dh && (lo & 1) === 0) ? lo : hi);
}

function toE8M0(x: number, saturate: boolean, round: "up" | "down" | "nearest"): number {
  f32[0] = x;
  const u = u32[0]!;
  const e = (u >>> 23) & 0xff;
  const m = u & 0x7fffff;
  if (e === 0xff) return 0xff; // inf and NaN
  let c = e;
  if (round === "up" ? m !== 0 : round === "nearest" ? m >= 0x400000 : false) c++;
  if (c > 254) return saturate ? 254 : 255;
  return c;
}
