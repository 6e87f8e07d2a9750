// A constant tensor as stored in a model (initializer, Constant value, attribute).
// The bytes stay where they were decoded: raw data is a view of the file's buffer, never a copy.

import {
  bfloat16BitsToNumber,
  dtypeInfo,
  dtypeName,
  float16BitsToNumber,
  numberToBfloat16Bits,
  numberToFloat16Bits,
  rawByteLength,
} from "./dtype.js";
import { DataType, type MetadataProps } from "./types.js";

/** Where a tensor's data lives. Exactly one form is used. */
export type TensorData =
  | { kind: "raw"; bytes: Uint8Array }
  | { kind: "float"; values: Float32Array }
  | { kind: "int32"; values: Int32Array }
  | { kind: "int64"; values: BigInt64Array }
  | { kind: "double"; values: Float64Array }
  | { kind: "uint64"; values: BigUint64Array }
  | { kind: "string"; values: Uint8Array[] }
  | {
      kind: "external";
      /** The external_data entries as stored (location, offset, length, checksum, ...). */
      entries: MetadataProps;
      /** Folder the location is relative to (the model's folder), when known. */
      baseDir?: string;
    }
  | { kind: "none" };

/** Values as JS numbers, bigints (64-bit integers), booleans or strings. */
export type TensorValues = number[] | bigint[] | boolean[] | string[];

export class Tensor {
  name: string;
  dataType: number;
  dims: number[];
  data: TensorData;
  docString?: string;
  metadataProps?: MetadataProps;
  segment?: { begin?: bigint; end?: bigint };

  constructor(dataType: number, dims: number[], data: TensorData, name = "") {
    this.dataType = dataType;
    this.dims = dims;
    this.data = data;
    this.name = name;
  }

  get elementCount(): number {
    let n = 1;
    for (const d of this.dims) n *= d;
    return n;
  }

  get typeName(): string {
    return dtypeName(this.dataType);
  }

  /** Builds a tensor stored as raw data from JS values. */
  static from(
    dataType: number,
    dims: number[],
    values: ArrayLike<number | bigint | boolean> | string[],
    name = "",
  ): Tensor {
    if (dataType === DataType.STRING) {
      const enc = new TextEncoder();
      return new Tensor(
        dataType,
        dims,
        { kind: "string", values: (values as string[]).map((s) => enc.encode(s)) },
        name,
      );
    }
    const n = values.length;
    const bytes = new Uint8Array(rawByteLength(dataType, n));
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < n; i++)
      writeElement(view, dataType, i, values[i] as number | bigint | boolean);
    return new Tensor(dataType, dims, { kind: "raw", bytes }, name);
  }

  static scalar(dataType: number, value: number | bigint | boolean, name = ""): Tensor {
    return Tensor.from(dataType, [], [value] as ArrayLike<number | bigint | boolean>, name);
  }

  /** Little-endian bytes of the data, as raw_data would hold them. External data must be loaded first. */
  rawBytes(): Uint8Array {
    const d = this.data;
    switch (d.kind) {
      case "raw":
        return d.bytes;
      case "none":
        return new Uint8Array(0);
      case "external":
        throw new Error(`tensor '${this.name}' has external data that was not loaded`);
      case "string":
        throw new Error(`tensor '${this.name}' holds strings, which have no raw form`);
      default: {
        const values = this.values();
        const bytes = new Uint8Array(Math.max(0, rawByteLength(this.dataType, values.length)));
        const view = new DataView(bytes.buffer);
        for (let i = 0; i < values.length; i++)
          writeElement(view, this.dataType, i, values[i] as number | bigint | boolean);
        return bytes;
      }
    }
  }

  /**
   * The elements as JS values: numbers for float and up-to-32-bit integer types (float16 and
   * bfloat16 converted exactly), bigint for int64/uint64, boolean for bool, string for string.
   * Complex types give interleaved real/imaginary numbers.
   */
  values(): TensorValues {
    const d = this.data;
    const t = this.dataType;
    switch (d.kind) {
      case "none":
        return [];
      case "external":
        throw new Error(`tensor '${this.name}' has external data that was not loaded`);
      case "string": {
        const dec = new TextDecoder();
        return d.values.map((b) => dec.decode(b));
      }
      case "raw": {
        const view = new DataView(d.bytes.buffer, d.bytes.byteOffset, d.bytes.byteLength);
        const n =
          t === DataType.COMPLEX64 || t === DataType.COMPLEX128
            ? this.elementCount * 2
            : this.elementCount;
        const out: (number | bigint | boolean)[] = new Array(n);
        for (let i = 0; i < n; i++) out[i] = readElement(view, t, i);
        return out as TensorValues;
      }
      case "int32": {
        const src = d.values;
        if (t === DataType.BOOL) return Array.from(src, (v) => v !== 0);
        if (t === DataType.FLOAT16) return Array.from(src, (v) => float16BitsToNumber(v & 0xffff));
        if (t === DataType.BFLOAT16)
          return Array.from(src, (v) => bfloat16BitsToNumber(v & 0xffff));
        return Array.from(src);
      }
      case "int64":
        return Array.from(d.values);
      case "uint64":
        if (t === DataType.UINT32) return Array.from(d.values, (v) => Number(v));
        return Array.from(d.values);
      case "float":
      case "double":
        return Array.from(d.values);
    }
  }

  /** Values as numbers (64-bit integers converted; may round beyond 2^53). */
  numbers(): number[] {
    return (this.values() as (number | bigint | boolean)[]).map((v) => Number(v));
  }

  describe(): string {
    return `${this.typeName}[${this.dims.join(",")}]`;
  }
}

function readElement(view: DataView, t: number, i: number): number | bigint | boolean {
  switch (t) {
    case DataType.FLOAT:
    case DataType.COMPLEX64:
      return view.getFloat32(i * 4, true);
    case DataType.DOUBLE:
    case DataType.COMPLEX128:
      return view.getFloat64(i * 8, true);
    case DataType.UINT8:
      return view.getUint8(i);
    case DataType.INT8:
      return view.getInt8(i);
    case DataType.UINT16:
      return view.getUint16(i * 2, true);
    case DataType.INT16:
      return view.getInt16(i * 2, true);
    case DataType.INT32:
      return view.getInt32(i * 4, true);
    case DataType.UINT32:
      return view.getUint32(i * 4, true);
    case DataType.INT64:
      return view.getBigInt64(i * 8, true);
    case DataType.UINT64:
      return view.getBigUint64(i * 8, true);
    case DataType.BOOL:
      return view.getUint8(i) !== 0;
    case DataType.FLOAT16:
      return float16BitsToNumber(view.getUint16(i * 2, true));
    case DataType.BFLOAT16:
      return bfloat16BitsToNumber(view.getUint16(i * 2, true));
    default: {
      const info = dtypeInfo(t);
      if (info && info.size === 1) return view.getUint8(i);
      throw new Error(`reading elements of ${dtypeName(t)} is not supported`);
    }
  }
}

function writeElement(view: DataView, t: number, i: number, v: number | bigint | boolean): void {
  const num = typeof v === "bigint" ? Number(v) : Number(v);
  switch (t) {
    case DataType.FLOAT:
    case DataType.COMPLEX64:
      return view.setFloat32(i * 4, num, true);
    case DataType.DOUBLE:
    case DataType.COMPLEX128:
      return view.setFloat64(i * 8, num, true);
    case DataType.UINT8:
      return view.setUint8(i, num);
    case DataType.INT8:
      return view.setInt8(i, num);
    case DataType.UINT16:
      return view.setUint16(i * 2, num, true);
    case DataType.INT16:
      return view.setInt16(i * 2, num, true);
    case DataType.INT32:
      return view.setInt32(i * 4, num, true);
    case DataType.UINT32:
      return view.setUint32(i * 4, num, true);
    case DataType.INT64:
      return view.setBigInt64(
        i * 8,
        BigInt.asIntN(64, typeof v === "bigint" ? v : BigInt(Math.trunc(num))),
        true,
      );
    case DataType.UINT64:
      return view.setBigUint64(
        i * 8,
        BigInt.asUintN(64, typeof v === "bigint" ? v : BigInt(Math.trunc(num))),
        true,
      );
    case DataType.BOOL:
      return view.setUint8(i, v ? 1 : 0);
    case DataType.FLOAT16:
      return view.setUint16(i * 2, numberToFloat16Bits(num), true);
    case DataType.BFLOAT16:
      return view.setUint16(i * 2, numberToBfloat16Bits(num), true);
    default: {
      const info = dtypeInfo(t);
      if (info && info.size === 1) return view.setUint8(i, num);
      throw new Error(`writing elements of ${dtypeName(t)} is not supported`);
    }
  }
}
