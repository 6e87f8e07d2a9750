// NumPy .npy files as runtime tensors.

import { OnnxError } from "../errors.js";
import { DataType } from "../ir/types.js";
import { elementCount, storageElementSize, storageFromBytes } from "./tensor.js";
import type { RTensor } from "./types.js";

const utf8Decoder = new TextDecoder();

const NPY_DTYPES: Record<string, number> = {
  f2: DataType.FLOAT16,
  f4: DataType.FLOAT,
  f8: DataType.DOUBLE,
  i1: DataType.INT8,
  i2: DataType.INT16,
  i4: DataType.INT32,
  i8: DataType.INT64,
  u1: DataType.UINT8,
  u2: DataType.UINT16,
  u4: DataType.UINT32,
  u8: DataType.UINT64,
  b1: DataType.BOOL,
};

/** Reads a NumPy .npy file (version 1-3, C order, little-endian numeric or bool data). */
export function decodeNpy(bytes: Uint8Array, where?: string): RTensor {
  const bad = (why: string) => new OnnxError("E_DECODE", `not a readable .npy file: ${why}`, where);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b))
    throw bad("missing the \\x93NUMPY signature");
  const major = bytes[6]!;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let headerLen: number;
  let start: number;
  if (major === 1) {
    headerLen = view.getUint16(8, true);
    start = 10;
  } else if (major === 2 || major === 3) {
    if (bytes.length < 12) throw bad("truncated header");
    headerLen = view.getUint32(8, true);
    start = 12;
  } else throw bad(`format version ${major} is unknown`);
  if (start + headerLen > bytes.length) throw bad("truncated header");
  const header = utf8Decoder.decode(bytes.subarray(start, start + headerLen));
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || shapeText === undefined)
    throw bad("header lacks descr, fortran_order or shape");
  if (fortran === "True") throw bad("Fortran-order arrays are not supported; save with C order");
  const order = descr[0];
  const code = descr.slice(1);
  if (order === ">" && code !== "i1" && code !== "u1" && code !== "b1")
    throw bad(`big-endian data ('${descr}') is not supported`);
  const dtype = NPY_DTYPES[code];
  if (dtype === undefined) throw bad(`element type '${descr}' is not supported`);
  const shape = shapeText
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map(Number);
  if (shape.some((d) => !Number.isInteger(d) || d < 0))
    throw bad(`shape (${shapeText}) is invalid`);
  const n = elementCount(shape);
  const dataStart = start + headerLen;
  const size = storageElementSize(dtype);
  if (bytes.length - dataStart < n * size)
    throw bad(`data is truncated: ${n * size} bytes needed, ${bytes.length - dataStart} present`);
  const data = storageFromBytes(dtype, bytes.subarray(dataStart), n);
  return { dtype, shape, data };
}
