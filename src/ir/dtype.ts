// Facts about each ONNX element type, and conversions for the 16-bit float formats.

import { getFloat16, setFloat16 } from "@petamoriken/float16";
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

const scratch = new DataView(new ArrayBuffer(4));

export function float16BitsToNumber(bits: number): number {
  scratch.setUint16(0, bits, true);
  return getFloat16(scratch, 0, true);
}
/** Round to nearest even. */
export function numberToFloat16Bits(x: number): number {
  setFloat16(scratch, 0, x, true);
  return scratch.getUint16(0, true);
}

export function bfloat16BitsToNumber(bits: number): number {
  scratch.setUint32(0, (bits & 0xffff) << 16, true);
  return scratch.getFloat32(0, true);
}
/** Round to nearest even from the float32 nearest to x; NaN stays a quiet NaN. */
export function numberToBfloat16Bits(x: number): number {
  scratch.setFloat32(0, x, true);
  const u = scratch.getUint32(0, true);
  if ((u & 0x7f800000) === 0x7f800000 && (u & 0x007fffff) !== 0)
    return ((u >>> 16) | 0x40) & 0xffff;
  const rounded = u + 0x7fff + ((u >>> 16) & 1);
  return (rounded >>> 16) & 0xffff;
}
