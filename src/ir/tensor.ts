// A constant tensor as stored in a model (initializer, Constant value, attribute).
// The bytes stay where they were decoded: raw data is a view of the file's buffer, never a copy;
// the data of a large model (external data files, and large raw data of a model file read in
// ranges) stays in its file as a byte range, read only when something needs the values.

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

/**
 * Bytes that stay where they are until read: a file (Node) or a Blob (the page), read
 * synchronously in ranges. The IR knows no file system; io/ makes sources.
 */
export interface ByteSource {
  /** The file's name or path, for messages. */
  readonly name: string;
  /** Its size in bytes. */
  readonly size: number;
  /**
   * Identity of the bytes: two sources with the same key hold the same bytes (a file's device,
   * inode, size and change time; a Blob's own identity), so equal ranges of them are equal.
   */
  readonly key: string;
  /** The bytes of [offset, offset + length), in a buffer of their own. */
  read(offset: number, length: number): Uint8Array;
}

/** A range of a source: where a tensor's bytes are until they are read. */
export interface ByteRange {
  readonly source: ByteSource;
  readonly offset: number;
  readonly length: number;
}

/** Where a tensor's data lives. Exactly one form is used. */
export type TensorData =
  | { kind: "raw"; bytes: Uint8Array }
  /** Raw data left in place in its source (a model file read in ranges): read when needed. */
  | { kind: "lazy"; range: ByteRange }
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
      /** The range of the data file, once the loader has opened and checked it. */
      range?: ByteRange;
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
    const io = n > 0 ? elementIO(dataType, "writing") : undefined;
    for (let i = 0; i < n; i++) io!.set(view, i, values[i] as Elem);
    return new Tensor(dataType, dims, { kind: "raw", bytes }, name);
  }

  static scalar(dataType: number, value: number | bigint | boolean, name = ""): Tensor {
    return Tensor.from(dataType, [], [value] as ArrayLike<number | bigint | boolean>, name);
  }

  /**
   * Little-endian bytes of the data, as raw_data would hold them, read bit-exactly from whichever
   * field holds it. External data must be loaded first; string tensors have no raw form.
   */
  rawBytes(): Uint8Array {
    const d = this.data;
    switch (d.kind) {
      case "raw":
        return d.bytes;
      case "none":
        return new Uint8Array(0);
      case "lazy":
        return readRange(d.range);
      case "external":
        if (d.range) return readRange(d.range);
        throw new Error(`tensor '${this.name}' has external data that was not loaded`);
      case "string":
        throw new Error(`tensor '${this.name}' holds strings, which have no raw form`);
      case "float":
      case "double":
      case "int64":
        return bytesOf(d.values);
      case "uint64":
        if (this.dataType !== DataType.UINT32) return bytesOf(d.values);
        return bytesOf(Uint32Array.from(d.values, (v) => Number(BigInt.asUintN(32, v))));
      case "int32": {
        const size = dtypeInfo(this.dataType)?.size ?? 0;
        if (size === 4) return bytesOf(d.values);
        if (size === 2) return bytesOf(Uint16Array.from(d.values, (v) => v & 0xffff));
        // One byte per entry; for 4- and 2-bit types each entry holds a packed byte.
        return Uint8Array.from(d.values, (v) => v & 0xff);
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
      case "lazy":
      case "external":
        return rawValues(this.rawBytes(), t, this.elementCount);
      case "string": {
        const dec = new TextDecoder();
        return d.values.map((b) => dec.decode(b));
      }
      case "raw":
        return rawValues(d.bytes, t, this.elementCount);
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

  /** Where the bytes are while they are not in memory (lazy, or external data the loader opened). */
  get range(): ByteRange | undefined {
    const d = this.data;
    return d.kind === "lazy" ? d.range : d.kind === "external" ? d.range : undefined;
  }

  /**
   * Whether the values can be read: held in memory, or in a range of a source. False for
   * external data whose file was never opened (a model parsed without its folder).
   */
  get readable(): boolean {
    return this.data.kind !== "external" || this.data.range !== undefined;
  }

  /** Whether the bytes are in memory (reading them costs nothing and no I/O). */
  get inMemory(): boolean {
    return this.data.kind !== "lazy" && this.data.kind !== "external";
  }

  /**
   * Bytes of the data as raw data holds them, without reading it: the range's length, the raw
   * bytes' length, or the typed values' bytes; -1 for strings and unopened external data.
   */
  get byteLength(): number {
    const d = this.data;
    switch (d.kind) {
      case "raw":
        return d.bytes.length;
      case "lazy":
        return d.range.length;
      case "external":
        return d.range ? d.range.length : -1;
      case "none":
        return 0;
      case "string":
        return -1;
      default: {
        const n = rawByteLength(this.dataType, this.elementCount);
        return n >= 0 ? n : d.values.byteLength;
      }
    }
  }
}

/** Reads a range, checking that the source gave all of it. */
export function readRange(r: ByteRange): Uint8Array {
  const bytes = r.source.read(r.offset, r.length);
  if (bytes.length !== r.length)
    throw new Error(
      `'${r.source.name}' ended early: ${bytes.length} of ${r.length} bytes at offset ${r.offset}`,
    );
  return bytes;
}

/** The elements of raw little-endian data (complex types interleaved). */
function rawValues(bytes: Uint8Array, t: number, count: number): TensorValues {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = t === DataType.COMPLEX64 || t === DataType.COMPLEX128 ? count * 2 : count;
  const out: Elem[] = new Array(n);
  const io = n > 0 ? elementIO(t, "reading") : undefined;
  for (let i = 0; i < n; i++) out[i] = io!.get(view, i);
  return out as TensorValues;
}

type Elem = number | bigint | boolean;

/** How one element of a type sits in raw data: read and written at element index i. */
interface ElementIO {
  get(view: DataView, i: number): Elem;
  set(view: DataView, i: number, v: Elem): void;
}

type NumberKind =
  "Float32" | "Float64" | "Int8" | "Uint8" | "Int16" | "Uint16" | "Int32" | "Uint32";
type Getter = (this: DataView, at: number, littleEndian: boolean) => number;
type Setter = (this: DataView, at: number, v: number, littleEndian: boolean) => void;

/** A type stored as a plain little-endian number, through DataView's get<kind>/set<kind>. */
function plain(kind: NumberKind): ElementIO {
  const bytes = Number(kind.replace(/\D/g, "")) / 8;
  const get = DataView.prototype[`get${kind}`] as Getter;
  const set = DataView.prototype[`set${kind}`] as Setter;
  return {
    get: (view, i) => get.call(view, i * bytes, true),
    set: (view, i, v) => set.call(view, i * bytes, Number(v), true),
  };
}

/** A 64-bit integer type: bigints wrapped to 64 bits; numbers truncated first. */
function int64(signed: boolean): ElementIO {
  const wrap = (v: Elem) => {
    const b = typeof v === "bigint" ? v : BigInt(Math.trunc(Number(v)));
    return signed ? BigInt.asIntN(64, b) : BigInt.asUintN(64, b);
  };
  return signed
    ? {
        get: (view, i) => view.getBigInt64(i * 8, true),
        set: (view, i, v) => view.setBigInt64(i * 8, wrap(v), true),
      }
    : {
        get: (view, i) => view.getBigUint64(i * 8, true),
        set: (view, i, v) => view.setBigUint64(i * 8, wrap(v), true),
      };
}

/** A 16-bit float type: its bits converted exactly to a number, and a number rounded to its bits. */
function half(toNumber: (bits: number) => number, toBits: (v: number) => number): ElementIO {
  return {
    get: (view, i) => toNumber(view.getUint16(i * 2, true)),
    set: (view, i, v) => view.setUint16(i * 2, toBits(Number(v)), true),
  };
}

const BOOL: ElementIO = {
  get: (view, i) => view.getUint8(i) !== 0,
  set: (view, i, v) => view.setUint8(i, v ? 1 : 0),
};

const ELEMENTS = new Map<number, ElementIO>([
  [DataType.FLOAT, plain("Float32")],
  [DataType.COMPLEX64, plain("Float32")],
  [DataType.DOUBLE, plain("Float64")],
  [DataType.COMPLEX128, plain("Float64")],
  [DataType.UINT8, plain("Uint8")],
  [DataType.INT8, plain("Int8")],
  [DataType.UINT16, plain("Uint16")],
  [DataType.INT16, plain("Int16")],
  [DataType.INT32, plain("Int32")],
  [DataType.UINT32, plain("Uint32")],
  [DataType.INT64, int64(true)],
  [DataType.UINT64, int64(false)],
  [DataType.FLOAT16, half(float16BitsToNumber, numberToFloat16Bits)],
  [DataType.BFLOAT16, half(bfloat16BitsToNumber, numberToBfloat16Bits)],
  [DataType.BOOL, BOOL],
]);
const BYTE = plain("Uint8");

/** The element access of a type: from the table, or a byte for the other one-byte types (float8). */
function elementIO(t: number, doing: "reading" | "writing"): ElementIO {
  const io = ELEMENTS.get(t) ?? (dtypeInfo(t)?.size === 1 ? BYTE : undefined);
  if (!io) throw new Error(`${doing} elements of ${dtypeName(t)} is not supported`);
  return io;
}

function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
