// Runtime tensors: allocation by dtype, fast float16/bfloat16 conversion, elements as text.

import { OnnxError } from "../errors.js";
import {
  bfloat16BitsToNumber,
  dtypeName,
  float16Table,
  isMiniFloat,
  miniFloatTable,
  numberToBfloat16Bits,
  numberToFloat16Bits,
  numberToMiniFloatBits,
  packedBits,
} from "../ir/dtype.js";
import { DataType } from "../ir/types.js";
import { chargeBytes } from "./budget.js";
import { allocWasmBacked } from "./kernels/wasm/memory.js";
import type { RTensor, Storage } from "./types.js";

export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/**
 * float32 and int32 storage of at least this many elements lives in a shared WebAssembly memory
 * of its own where there is one (kernels/wasm/memory.ts), so that WebAssembly kernels and their
 * helper thread read it in place. It is still a plain typed array (over a SharedArrayBuffer).
 */
export const WASM_BACKED_MIN_ELEMENTS = 1 << 20;

/**
 * Zero-filled storage for n elements of a dtype: the one place tensors are allocated. The size is
 * counted against the memory budget of the run in progress (budget.ts) before anything is made.
 */
export function allocStorage(dtype: number, n: number): Storage {
  const size = storageElementSize(dtype);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new OnnxError("E_RUNTIME", `cannot allocate ${n} elements of ${dtypeName(dtype)}`);
  const elems = `${n} elements of ${dtypeName(dtype)}`;
  if (dtype === DataType.STRING) chargeBytes(n * 32, true, elems);
  else chargeBytes(n * size, false, elems);
  try {
    return makeStorage(dtype, n);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    // The budget allowed it but the engine cannot make an array this large.
    throw new OnnxError(
      "E_RUNTIME",
      `cannot allocate ${elems} (${n * (size || 32)} bytes): ${e.message}`,
    );
  }
}

type TypedArrayCtor<T> = { new (n: number): T; readonly BYTES_PER_ELEMENT: number };

/**
 * A kernel's working array of n elements (float64 results before rounding, index tables, ...):
 * counted against the memory budget like a tensor, since it is as large as one.
 */
export function scratch<T>(ctor: TypedArrayCtor<T>, n: number): T {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new OnnxError("E_RUNTIME", `cannot allocate a working array of ${n} elements`);
  const bytes = n * ctor.BYTES_PER_ELEMENT;
  chargeBytes(bytes, false, `a working array of ${n} elements`);
  try {
    return new ctor(n);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new OnnxError(
      "E_RUNTIME",
      `cannot allocate a working array of ${n} elements (${bytes} bytes): ${e.message}`,
    );
  }
}

type NumericStorage = Exclude<Storage, string[]>;
interface StorageCtor {
  new (n: number): NumericStorage;
  new (buffer: ArrayBuffer, byteOffset: number, length: number): NumericStorage;
  readonly BYTES_PER_ELEMENT: number;
}

/**
 * Each typed array and the numeric dtypes held in it (float16 and bfloat16 as their bits; float8
 * and float4e2m1 as their bits, one element a byte; int4/uint4 and int2/uint2 one element a
 * byte, packed only in raw data).
 */
const STORAGE = new Map<number, StorageCtor>(
  (
    [
      [Float32Array, [DataType.FLOAT]],
      [Float64Array, [DataType.DOUBLE]],
      [Int8Array, [DataType.INT8, DataType.INT4, DataType.INT2]],
      [
        Uint8Array,
        [
          DataType.UINT8,
          DataType.BOOL,
          DataType.UINT4,
          DataType.UINT2,
          DataType.FLOAT8E4M3FN,
          DataType.FLOAT8E4M3FNUZ,
          DataType.FLOAT8E5M2,
          DataType.FLOAT8E5M2FNUZ,
          DataType.FLOAT8E8M0,
          DataType.FLOAT4E2M1,
        ],
      ],
      [Int16Array, [DataType.INT16]],
      [Uint16Array, [DataType.UINT16, DataType.FLOAT16, DataType.BFLOAT16]],
      [Int32Array, [DataType.INT32]],
      [Uint32Array, [DataType.UINT32]],
      [BigInt64Array, [DataType.INT64]],
      [BigUint64Array, [DataType.UINT64]],
    ] as [StorageCtor, number[]][]
  ).flatMap(([ctor, dtypes]) => dtypes.map((d) => [d, ctor] as const)),
);

function unsupported(dtype: number): OnnxError {
  return new OnnxError(
    "E_UNSUPPORTED",
    `tensors of type ${dtypeName(dtype)} are not supported by the interpreter`,
  );
}

/** Storages made by kernels in their own WebAssembly memory (kernelMade). */
const made = new WeakSet<object>();
let making = 0;

/**
 * Runs a kernel (`fn`): the storages allocStorage makes in WebAssembly memory meanwhile are
 * known as the kernel's own (the executor may let a later kernel overwrite them: ctx.donated).
 */
export function asKernel<T>(fn: () => T): T {
  making++;
  try {
    return fn();
  } finally {
    making--;
  }
}

/** Whether a kernel made this storage, in a WebAssembly memory of its own (asKernel). */
export function kernelMade(data: object): boolean {
  return made.has(data);
}

/** `view`, a new view of a kernel-made storage's memory (`data`), is the kernel's as well. */
export function kernelView<T extends object>(data: object, view: T): T {
  if (made.has(data)) made.add(view);
  return view;
}

/** Zero-filled storage, unchecked. */
function makeStorage(dtype: number, n: number): Storage {
  if ((dtype === DataType.FLOAT || dtype === DataType.INT32) && n >= WASM_BACKED_MIN_ELEMENTS) {
    const shared = allocWasmBacked(n * 4);
    if (shared) {
      const data =
        dtype === DataType.FLOAT ? new Float32Array(shared, 0, n) : new Int32Array(shared, 0, n);
      if (making) made.add(data);
      return data;
    }
  }
  if (dtype === DataType.STRING) return new Array<string>(n).fill("");
  const ctor = STORAGE.get(dtype);
  if (!ctor) throw unsupported(dtype);
  return new ctor(n);
}

export function allocTensor(dtype: number, shape: number[]): RTensor {
  return { dtype, shape, data: allocStorage(dtype, elementCount(shape)) };
}

/** dtypes computed as floating point. */
export const FLOAT_TYPES: ReadonlySet<number> = new Set([
  DataType.FLOAT,
  DataType.DOUBLE,
  DataType.FLOAT16,
  DataType.BFLOAT16,
]);
/** Integer dtypes whose values fit a JS number exactly. */
export const SMALL_INT_TYPES: ReadonlySet<number> = new Set([
  DataType.INT8,
  DataType.UINT8,
  DataType.INT16,
  DataType.UINT16,
  DataType.INT32,
  DataType.UINT32,
]);
/** 64-bit integer dtypes, held as bigint. */
export const BIG_INT_TYPES: ReadonlySet<number> = new Set([DataType.INT64, DataType.UINT64]);

export function isFloatType(dtype: number): boolean {
  return (
    dtype === DataType.FLOAT ||
    dtype === DataType.DOUBLE ||
    dtype === DataType.FLOAT16 ||
    dtype === DataType.BFLOAT16
  );
}

/** The elements as float64 (float16/bfloat16 decoded; 64-bit integers may round beyond 2^53). */
export function toFloat64(t: RTensor): Float64Array {
  const n = t.data.length;
  chargeBytes(n * 8, false, `a float64 copy of ${n} elements`);
  const out = new Float64Array(n);
  const d = t.data;
  if (t.dtype === DataType.FLOAT16) {
    const table = float16Table();
    const src = d as Uint16Array;
    for (let i = 0; i < n; i++) out[i] = table[src[i]!]!;
  } else if (t.dtype === DataType.BFLOAT16) {
    const src = d as Uint16Array;
    for (let i = 0; i < n; i++) out[i] = bfloat16BitsToNumber(src[i]!);
  } else if (isMiniFloat(t.dtype)) {
    const table = miniFloatTable(t.dtype);
    const src = d as Uint8Array;
    for (let i = 0; i < n; i++) out[i] = table[src[i]!]!;
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
 * round to nearest even; float8/float4 saturate, as Cast does by default), integers truncate
 * toward zero and wrap modulo 2^bits (int4/int2 too), bool is x != 0.
 */
export function fromFloat64(dtype: number, shape: number[], values: Float64Array): RTensor {
  const n = values.length;
  const data = allocStorage(dtype, n);
  if (isMiniFloat(dtype)) {
    const dst = data as Uint8Array;
    for (let i = 0; i < n; i++) dst[i] = numberToMiniFloatBits(dtype, values[i]!);
  } else if (packedBits(dtype)) {
    wrapSubByte(dtype, data as Int8Array | Uint8Array, values);
  } else if (dtype === DataType.FLOAT16) {
    const dst = data as Uint16Array;
    for (let i = 0; i < n; i++) dst[i] = numberToFloat16Bits(values[i]!);
  } else if (dtype === DataType.BFLOAT16) {
    const dst = data as Uint16Array;
    for (let i = 0; i < n; i++) dst[i] = numberToBfloat16Bits(values[i]!);
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

/**
 * fromFloat64 for the sums of a matrix product or a convolution: a NaN among float16 and bfloat16
 * results is written as the quiet NaN 0x7e00 / 0x7fc0 (sign 0, no payload). Which of two NaNs
 * an addition passes on (and so a NaN sum's sign) is the choice of the engine's compiled code,
 * which may order an addition's operands either way; a fixed NaN keeps the results of every
 * path (TypeScript loops, WebAssembly, any number of threads) the same bits. The values are
 * overwritten.
 */
export function fromProductSums(dtype: number, shape: number[], values: Float64Array): RTensor {
  if (isHalfType(dtype))
    for (let i = 0; i < values.length; i++) if (values[i] !== values[i]) values[i] = NaN;
  return fromFloat64(dtype, shape, values);
}

/**
 * Sub-byte integers (int4/uint4, int2/uint2) from float64 values: truncated toward zero and wrapped
 * modulo 2^bits, as Cast stores them (NaN and ±inf give 0).
 */
export function wrapSubByte(
  dtype: number,
  dst: Int8Array | Uint8Array,
  values: ArrayLike<number>,
): void {
  const bits = packedBits(dtype);
  const mod = 1 << bits;
  const signed = dtype === DataType.INT4 || dtype === DataType.INT2;
  for (let i = 0; i < values.length; i++) {
    const t = Math.trunc(values[i]!);
    let w = Number.isFinite(t) ? ((t % mod) + mod) % mod : 0;
    if (signed && w >= mod / 2) w -= mod;
    dst[i] = w;
  }
}

/** Bytes per element of a dtype's storage (0 for string). */
export function storageElementSize(dtype: number): number {
  if (dtype === DataType.STRING) return 0;
  const ctor = STORAGE.get(dtype);
  if (!ctor) throw unsupported(dtype);
  return ctor.BYTES_PER_ELEMENT;
}

/** Whether the interpreter can hold tensors of a dtype. */
export function isSupportedDtype(dtype: number): boolean {
  return dtype === DataType.STRING || STORAGE.has(dtype);
}

/** Storage of a dtype viewing `bytes` (little-endian host): no copy when aligned, else a copy;
 * int4/uint4, int2/uint2 and float4e2m1 are unpacked (low bits first) into one element a byte. */
export function storageFromBytes(dtype: number, bytes: Uint8Array, n: number): Storage {
  if (packedBits(dtype)) return unpackBits(dtype, bytes, n);
  const size = storageElementSize(dtype);
  if (size === 0) throw new OnnxError("E_RUNTIME", "string tensors have no raw byte form");
  if (bytes.byteLength < n * size)
    throw new OnnxError(
      "E_RUNTIME",
      `tensor data holds ${bytes.byteLength} bytes, ${n * size} are needed`,
    );
  // A bool byte other than 0 is true (as onnxruntime reads it): such bytes are made 1 in a copy.
  if (dtype === DataType.BOOL && bytes.subarray(0, n).some((b) => b > 1))
    return Uint8Array.from(bytes.subarray(0, n), (b) => (b !== 0 ? 1 : 0));
  let buf = bytes.buffer as ArrayBuffer;
  let off = bytes.byteOffset;
  if (off % size !== 0) {
    // (Buffer.slice would be a view: copy explicitly.)
    const copy = new Uint8Array(n * size);
    copy.set(bytes.subarray(0, n * size));
    buf = copy.buffer;
    off = 0;
  }
  return new (STORAGE.get(dtype)!)(buf, off, n);
}

/** The little-endian bytes of a numeric tensor's storage (a view, no copy; packed types are
 * packed, low bits first, into a new array). */
export function storageBytes(t: RTensor): Uint8Array {
  const d = t.data;
  if (Array.isArray(d)) throw new OnnxError("E_RUNTIME", "string tensors have no raw byte form");
  const bits = packedBits(t.dtype);
  if (bits) {
    const per = 8 / bits;
    const mask = (1 << bits) - 1;
    const out = new Uint8Array(Math.ceil(d.length / per));
    const src = d as Int8Array | Uint8Array;
    for (let i = 0; i < src.length; i++)
      out[(i / per) | 0] |= (src[i]! & mask) << ((i % per) * bits);
    return out;
  }
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

/** n elements of a packed type from its bytes (low bits first), sign-extended where signed. */
function unpackBits(dtype: number, bytes: Uint8Array, n: number): Storage {
  const bits = packedBits(dtype);
  const per = 8 / bits;
  const need = Math.ceil(n / per);
  if (bytes.byteLength < need)
    throw new OnnxError(
      "E_RUNTIME",
      `tensor data holds ${bytes.byteLength} bytes, ${need} are needed`,
    );
  const out = allocStorage(dtype, n) as Int8Array | Uint8Array;
  const mask = (1 << bits) - 1;
  const signed = dtype === DataType.INT4 || dtype === DataType.INT2;
  const half = 1 << (bits - 1);
  for (let i = 0; i < n; i++) {
    let v = (bytes[(i / per) | 0]! >> ((i % per) * bits)) & mask;
    if (signed && v >= half) v -= 1 << bits;
    out[i] = v;
  }
  return out;
}

/** Decodes float16/bfloat16 bits into float32 values; other float types are returned as they are. */
export function toFloat32(t: RTensor): Float32Array | Float64Array {
  const d = t.data;
  if (isHalfType(t.dtype))
    chargeBytes(d.length * 4, false, `a float32 copy of ${d.length} elements`);
  if (t.dtype === DataType.FLOAT16) {
    const table = float16Table();
    const src = d as Uint16Array;
    const out = new Float32Array(src.length);
    for (let i = 0; i < src.length; i++) out[i] = table[src[i]!]!;
    return out;
  }
  if (t.dtype === DataType.BFLOAT16) {
    const src = d as Uint16Array;
    const out = new Float32Array(src.length);
    const u = new Uint32Array(out.buffer);
    for (let i = 0; i < src.length; i++) u[i] = src[i]! << 16;
    return out;
  }
  if (d instanceof Float32Array || d instanceof Float64Array) return d;
  return Float64Array.from(toFloat64(t));
}

/** Rounds float values into float16/bfloat16 bits storage (round to nearest even). */
export function encodeHalf(dtype: number, values: ArrayLike<number>): Uint16Array {
  const n = values.length;
  const out = new Uint16Array(n);
  if (dtype === DataType.FLOAT16)
    for (let i = 0; i < n; i++) out[i] = numberToFloat16Bits(values[i]!);
  else for (let i = 0; i < n; i++) out[i] = numberToBfloat16Bits(values[i]!);
  return out;
}

export function isHalfType(dtype: number): boolean {
  return dtype === DataType.FLOAT16 || dtype === DataType.BFLOAT16;
}

export function is64BitInt(dtype: number): boolean {
  return dtype === DataType.INT64 || dtype === DataType.UINT64;
}

export function shapeString(shape: readonly number[]): string {
  return `[${shape.join(",")}]`;
}

export function describeTensor(t: RTensor): string {
  return `${dtypeName(t.dtype)}${shapeString(t.shape)}`;
}
/** One element as a display string. */
export function elementString(t: RTensor, i: number): string {
  const d = t.data;
  if (Array.isArray(d)) return JSON.stringify(d[i]);
  if (t.dtype === DataType.BOOL) return d[i] ? "true" : "false";
  if (t.dtype === DataType.FLOAT16) return formatNumber(float16Table()[(d as Uint16Array)[i]!]!);
  if (t.dtype === DataType.BFLOAT16)
    return formatNumber(bfloat16BitsToNumber((d as Uint16Array)[i]!));
  if (isMiniFloat(t.dtype)) return formatNumber(miniFloatTable(t.dtype)[(d as Uint8Array)[i]!]!);
  const v = d[i]!;
  if (typeof v === "bigint") return v.toString();
  if (t.dtype === DataType.FLOAT) return formatNumber(Math.fround(v));
  return formatNumber(v);
}

function formatNumber(v: number): string {
  if (Number.isInteger(v) || !Number.isFinite(v)) return String(v);
  return String(Number(v.toPrecision(7)));
}
