// Moving tensors in and out of the interpreter: IR tensors (initializers, attributes),
// TensorProto files, .npy files and small JSON literals.

import { OnnxError } from "../errors.js";
import { dtypeByName, dtypeName } from "../ir/dtype.js";
import { Tensor } from "../ir/tensor.js";
import protobuf from "protobufjs";
import { DataType, type SparseTensor, type Type } from "../ir/types.js";
import { loadExternalData } from "../io/files.js";
import { ProtoReader } from "../io/from-proto.js";
import { ProtoWriter } from "../io/to-proto.js";
import { decodeMessage, encodeMessage } from "../proto/wire.js";
import {
  allocStorage,
  elementCount,
  fromBfloat16Bits,
  float16Table,
  storageBytes,
  storageElementSize,
  storageFromBytes,
  toBfloat16Bits,
  toFloat16Bits,
} from "./tensor.js";
import type { RTensor, RValue, Storage } from "./types.js";

const utf8Decoder = new TextDecoder();
const utf8Encoder = new TextEncoder();

/**
 * An IR tensor as a runtime tensor. Raw data is viewed in place when its offset is aligned to
 * the element size (so the result must be treated as read-only); external data is read first.
 */
export function fromIRTensor(t: Tensor, where?: string): RTensor {
  const dtype = t.dataType;
  const shape = [...t.dims];
  const label = where ?? (t.name ? `tensor '${t.name}'` : undefined);
  if (shape.some((d) => !Number.isSafeInteger(d) || d < 0))
    throw new OnnxError("E_MODEL", `tensor has an invalid shape [${shape.join(",")}]`, label);
  const n = elementCount(shape);
  try {
    storageElementSize(dtype);
  } catch {
    throw new OnnxError(
      "E_UNSUPPORTED",
      `tensors of type ${dtypeName(dtype)} are not supported by the interpreter`,
      label,
    );
  }
  if (t.data.kind === "external") loadExternalData(t, label);
  const d = t.data;
  const wrong = (have: number) =>
    new OnnxError(
      "E_RUNTIME",
      `tensor of shape [${shape.join(",")}] holds ${have} values, ${n} expected`,
      label,
    );
  switch (d.kind) {
    case "none":
      if (n !== 0) throw wrong(0);
      return { dtype, shape, data: allocStorage(dtype, 0) };
    case "raw":
      if (dtype === DataType.STRING)
        throw new OnnxError("E_RUNTIME", "string tensor stored as raw data", label);
      try {
        return { dtype, shape, data: storageFromBytes(dtype, d.bytes, n) };
      } catch (e) {
        if (e instanceof OnnxError) throw new OnnxError(e.code, e.message, label);
        throw e;
      }
    case "string":
      if (d.values.length !== n) throw wrong(d.values.length);
      return { dtype, shape, data: d.values.map((b) => utf8Decoder.decode(b)) };
    case "float":
    case "double": {
      if (d.values.length !== n) throw wrong(d.values.length);
      if (dtype === DataType.FLOAT && d.values instanceof Float32Array)
        return { dtype, shape, data: d.values };
      if (dtype === DataType.DOUBLE && d.values instanceof Float64Array)
        return { dtype, shape, data: d.values };
      return { dtype, shape, data: numbersToStorage(dtype, d.values) };
    }
    case "int32": {
      if (d.values.length !== n) throw wrong(d.values.length);
      if (dtype === DataType.INT32) return { dtype, shape, data: d.values };
      const data = allocStorage(dtype, n);
      if (
        data instanceof Uint16Array ||
        data instanceof Uint8Array ||
        data instanceof Int8Array ||
        data instanceof Int16Array
      ) {
        // int32_data holds float16/bfloat16 bit patterns and small integers alike.
        for (let i = 0; i < n; i++) data[i] = d.values[i]!;
        if (dtype === DataType.BOOL)
          for (let i = 0; i < n; i++) data[i] = d.values[i] !== 0 ? 1 : 0;
        return { dtype, shape, data };
      }
      return { dtype, shape, data: numbersToStorage(dtype, d.values) };
    }
    case "int64":
      if (d.values.length !== n) throw wrong(d.values.length);
      if (dtype === DataType.INT64) return { dtype, shape, data: d.values };
      return { dtype, shape, data: numbersToStorage(dtype, Array.from(d.values, Number)) };
    case "uint64":
      if (d.values.length !== n) throw wrong(d.values.length);
      if (dtype === DataType.UINT64) return { dtype, shape, data: d.values };
      return { dtype, shape, data: numbersToStorage(dtype, Array.from(d.values, Number)) };
  }
  throw new OnnxError("E_RUNTIME", "tensor data is in an unknown form", label);
}

function numbersToStorage(dtype: number, values: ArrayLike<number>): Storage {
  const n = values.length;
  const data = allocStorage(dtype, n);
  if (dtype === DataType.FLOAT16)
    for (let i = 0; i < n; i++) (data as Uint16Array)[i] = toFloat16Bits(values[i]!);
  else if (dtype === DataType.BFLOAT16)
    for (let i = 0; i < n; i++) (data as Uint16Array)[i] = toBfloat16Bits(values[i]!);
  else if (data instanceof BigInt64Array || data instanceof BigUint64Array)
    for (let i = 0; i < n; i++) data[i] = BigInt(Math.trunc(values[i]!));
  else if (Array.isArray(data)) for (let i = 0; i < n; i++) data[i] = String(values[i]);
  else if (dtype === DataType.BOOL)
    for (let i = 0; i < n; i++) (data as Uint8Array)[i] = values[i] ? 1 : 0;
  else (data as Float64Array).set(values);
  return data;
}

/** A runtime tensor as an IR tensor holding raw data (a view of the storage) or strings. */
export function toIRTensor(t: RTensor, name = ""): Tensor {
  if (t.dtype === DataType.STRING)
    return new Tensor(
      t.dtype,
      [...t.shape],
      { kind: "string", values: (t.data as string[]).map((s) => utf8Encoder.encode(s)) },
      name,
    );
  return new Tensor(t.dtype, [...t.shape], { kind: "raw", bytes: storageBytes(t) }, name);
}

/** The bytes of a TensorProto message holding the tensor. */
export function encodeTensorProto(t: RTensor, name = ""): Uint8Array {
  return encodeMessage("TensorProto", new ProtoWriter().tensor(toIRTensor(t, name)));
}

/**
 * Decodes a TensorProto message (a backend-test input_*.pb / output_*.pb file). External data is
 * resolved against `baseDir`, the folder of the file the message came from, under the same rules
 * as a model's; without a folder, external data is refused.
 */
export function decodeTensorProto(
  bytes: Uint8Array,
  where?: string,
  baseDir?: string,
): { name: string; tensor: RTensor } {
  const msg = decodeMessage("TensorProto", bytes, where);
  const t = new ProtoReader(baseDir !== undefined ? { baseDir } : {}).tensor(msg);
  if (t.dataType === 0)
    throw new OnnxError("E_DECODE", "not a TensorProto: it has no data type", where);
  if (t.data.kind === "external" && t.data.baseDir === undefined)
    throw new OnnxError(
      "E_IO",
      `tensor '${t.name}' has external data, but was not read from a file whose folder could hold it`,
      where,
    );
  return { name: t.name, tensor: fromIRTensor(t, where) };
}

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

/** Most dimensions a JSON tensor may have (deeper nesting is refused before it is walked). */
const MAX_JSON_RANK = 64;

/**
 * A tensor from a JSON literal (nested arrays or a scalar) of the given dtype. Numbers, true/false,
 * strings for string tensors; "nan", "inf", "-inf" are accepted for floats; int64 values may be
 * written as strings to keep precision.
 */
export function parseJsonTensor(text: string, dtype: number, where?: string): RTensor {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new OnnxError("E_USAGE", `invalid JSON: ${(e as Error).message}`, where);
  }
  const shape: number[] = [];
  let probe: unknown = value;
  while (Array.isArray(probe)) {
    shape.push(probe.length);
    probe = probe[0];
    if (shape.length > MAX_JSON_RANK)
      throw new OnnxError(
        "E_USAGE",
        `JSON arrays nest more than ${MAX_JSON_RANK} deep; a tensor given as JSON has at most ${MAX_JSON_RANK} dimensions`,
        where,
      );
  }
  const flat: unknown[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth === shape.length) {
      if (Array.isArray(v))
        throw new OnnxError(
          "E_USAGE",
          "nested arrays are ragged (not a rectangular tensor)",
          where,
        );
      flat.push(v);
      return;
    }
    if (!Array.isArray(v) || v.length !== shape[depth])
      throw new OnnxError("E_USAGE", "nested arrays are ragged (not a rectangular tensor)", where);
    for (const x of v) walk(x, depth + 1);
  };
  walk(value, 0);
  const n = flat.length;
  const data = allocStorage(dtype, n);
  for (let i = 0; i < n; i++) {
    const v = flat[i];
    if (Array.isArray(data)) {
      if (typeof v !== "string")
        throw new OnnxError("E_USAGE", `element ${i} is not a string`, where);
      data[i] = v;
      continue;
    }
    let num: number | bigint;
    if (typeof v === "boolean") num = v ? 1 : 0;
    else if (typeof v === "number") num = v;
    else if (typeof v === "string") {
      const s = v.trim().toLowerCase();
      if (s === "nan") num = NaN;
      else if (s === "inf" || s === "+inf" || s === "infinity") num = Infinity;
      else if (s === "-inf" || s === "-infinity") num = -Infinity;
      else if (
        /^[-+]?\d+$/.test(s) &&
        (data instanceof BigInt64Array || data instanceof BigUint64Array)
      )
        num = BigInt(s);
      else if (s !== "" && !Number.isNaN(Number(s))) num = Number(s);
      else throw new OnnxError("E_USAGE", `element ${i} ('${v}') is not a number`, where);
    } else throw new OnnxError("E_USAGE", `element ${i} is not a number`, where);
    if (data instanceof BigInt64Array || data instanceof BigUint64Array) {
      if (typeof num === "number" && !Number.isInteger(num))
        throw new OnnxError("E_USAGE", `element ${i} (${num}) is not an integer`, where);
      if (typeof num === "number" && !Number.isSafeInteger(num))
        throw new OnnxError(
          "E_USAGE",
          `element ${i} (${num}) is too large to be exact as a JSON number; write it as a string`,
          where,
        );
      const big = typeof num === "bigint" ? num : BigInt(num);
      const fits =
        data instanceof BigInt64Array
          ? BigInt.asIntN(64, big) === big
          : BigInt.asUintN(64, big) === big;
      if (!fits)
        throw new OnnxError(
          "E_USAGE",
          `element ${i} (${big}) is out of range for ${dtypeName(dtype)}`,
          where,
        );
      data[i] = big;
    } else if (dtype === DataType.FLOAT16) (data as Uint16Array)[i] = toFloat16Bits(Number(num));
    else if (dtype === DataType.BFLOAT16) (data as Uint16Array)[i] = toBfloat16Bits(Number(num));
    else if (dtype === DataType.BOOL) (data as Uint8Array)[i] = Number(num) !== 0 ? 1 : 0;
    else {
      const x = Number(num);
      if (dtype !== DataType.FLOAT && dtype !== DataType.DOUBLE && !Number.isInteger(x))
        throw new OnnxError("E_USAGE", `element ${i} (${x}) is not an integer`, where);
      (data as Float64Array)[i] = x;
      // Integer arrays wrap silently (300 becomes 44 in int8): refuse instead.
      if (dtype !== DataType.FLOAT && dtype !== DataType.DOUBLE && data[i] !== x)
        throw new OnnxError(
          "E_USAGE",
          `element ${i} (${x}) is out of range for ${dtypeName(dtype)}`,
          where,
        );
    }
  }
  return { dtype, shape, data };
}

/** One element as a display string. */
export function elementString(t: RTensor, i: number): string {
  const d = t.data;
  if (Array.isArray(d)) return JSON.stringify(d[i]);
  if (t.dtype === DataType.BOOL) return d[i] ? "true" : "false";
  if (t.dtype === DataType.FLOAT16) return formatNumber(float16Table()[(d as Uint16Array)[i]!]!);
  if (t.dtype === DataType.BFLOAT16) return formatNumber(fromBfloat16Bits((d as Uint16Array)[i]!));
  const v = d[i]!;
  if (typeof v === "bigint") return v.toString();
  if (t.dtype === DataType.FLOAT) return formatNumber(Math.fround(v));
  return formatNumber(v);
}

function formatNumber(v: number): string {
  if (Number.isInteger(v) || !Number.isFinite(v)) return String(v);
  return String(Number(v.toPrecision(7)));
}

/** "name: float [2,3] = 1, 2, 3, ..." with the first `limit` values. */
export function summarizeTensor(name: string, t: RTensor, limit = 8): string {
  const n = t.data.length;
  const shown: string[] = [];
  for (let i = 0; i < Math.min(n, limit); i++) shown.push(elementString(t, i));
  const tail = n > limit ? `, ... (${n} values)` : "";
  return `${name}: ${dtypeName(t.dtype)} [${t.shape.join(",")}] = ${n === 0 ? "(empty)" : shown.join(", ") + tail}`;
}

export function dtypeFromName(name: string): number | undefined {
  return dtypeByName(name)?.id;
}

// SequenceProto and OptionalProto (onnx-data.proto) are not in the model schema; their few fields
// are read directly: name = 1, elem_type = 2, then tensor(s) = 3, sequence = 5, optional = 7.
const SEQ_TENSORS = 3;
const SEQ_SEQUENCES = 5;
const SEQ_OPTIONALS = 7;

interface DataMessage {
  name: string;
  elemType: number;
  tensors: Uint8Array[];
  sequences: Uint8Array[];
  optionals: Uint8Array[];
  other: number[];
}

function readDataMessage(bytes: Uint8Array, what: string, where?: string): DataMessage {
  const r = protobuf.Reader.create(bytes);
  const out: DataMessage = {
    name: "",
    elemType: 0,
    tensors: [],
    sequences: [],
    optionals: [],
    other: [],
  };
  try {
    while (r.pos < r.len) {
      const tag = r.uint32();
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field === 1 && wire === 2) out.name = r.string();
      else if (field === 2 && wire === 0) out.elemType = r.int32();
      else if (
        wire === 2 &&
        (field === SEQ_TENSORS || field === SEQ_SEQUENCES || field === SEQ_OPTIONALS)
      ) {
        const b = r.bytes();
        (field === SEQ_TENSORS
          ? out.tensors
          : field === SEQ_SEQUENCES
            ? out.sequences
            : out.optionals
        ).push(b);
      } else {
        if (wire === 2) out.other.push(field);
        r.skipType(wire);
      }
    }
  } catch (e) {
    throw new OnnxError("E_DECODE", `not a valid ${what}: ${(e as Error).message}`, where);
  }
  return out;
}

/**
 * Decodes a backend-test value file by the declared type: a TensorProto for tensors, a
 * SequenceProto of tensors for sequences, an OptionalProto for optionals.
 */
export function decodeValueProto(
  bytes: Uint8Array,
  type: Type | undefined,
  where?: string,
  baseDir?: string,
): { name: string; value: RValue } {
  if (!type || type.kind === "tensor" || type.kind === "none") {
    const { name, tensor } = decodeTensorProto(bytes, where, baseDir);
    return { name, value: tensor };
  }
  if (type.kind === "sequence") {
    const m = readDataMessage(bytes, "SequenceProto", where);
    if (m.sequences.length || m.optionals.length || m.other.length)
      throw new OnnxError("E_UNSUPPORTED", "only sequences of tensors are supported", where);
    const items = m.tensors.map((b) => decodeTensorProto(b, where, baseDir).tensor);
    const elem =
      type.elem && type.elem.kind === "tensor" ? type.elem.elemType : (items[0]?.dtype ?? 0);
    return { name: m.name, value: { kind: "sequence", elemDtype: elem, items } };
  }
  if (type.kind === "optional") {
    const m = readDataMessage(bytes, "OptionalProto", where);
    if (m.tensors.length)
      return { name: m.name, value: decodeTensorProto(m.tensors[0]!, where, baseDir).tensor };
    if (m.sequences.length)
      return {
        name: m.name,
        value: decodeValueProto(m.sequences[0]!, type.elem ?? { kind: "sequence" }, where, baseDir)
          .value,
      };
    if (m.other.length || m.optionals.length)
      throw new OnnxError("E_UNSUPPORTED", "optional of this kind is not supported", where);
    return { name: m.name, value: { kind: "optional-none" } };
  }
  throw new OnnxError("E_UNSUPPORTED", `values of kind ${type.kind} are not supported`, where);
}

/**
 * A sparse tensor made dense: zeros (empty strings) everywhere but at its indices, which are
 * either linear positions ([NNZ]) or coordinates ([NNZ, rank]).
 */
export function sparseToDense(s: SparseTensor, where?: string): RTensor {
  const label = where ?? `sparse tensor '${s.values.name}'`;
  const values = fromIRTensor(s.values, label);
  const indices = fromIRTensor(s.indices, label);
  const dims = s.dims;
  if (dims.some((d) => !Number.isSafeInteger(d) || d < 0))
    throw new OnnxError("E_MODEL", `invalid shape [${dims.join(",")}]`, label);
  const nnz = values.data.length;
  if (values.shape.length !== 1)
    throw new OnnxError(
      "E_MODEL",
      `values must be 1-D, not of shape [${values.shape.join(",")}]`,
      label,
    );
  const idx = indices.data;
  if (!(idx instanceof BigInt64Array))
    throw new OnnxError("E_MODEL", `indices must be int64, not ${dtypeName(indices.dtype)}`, label);
  const linear = indices.shape.length === 1;
  if (
    !(linear
      ? indices.shape[0] === nnz
      : indices.shape.length === 2 && indices.shape[0] === nnz && indices.shape[1] === dims.length)
  )
    throw new OnnxError(
      "E_MODEL",
      `indices of shape [${indices.shape.join(",")}] do not fit ${nnz} values of a rank-${dims.length} tensor`,
      label,
    );
  const total = dims.reduce((a, b) => a * b, 1);
  const out = allocStorage(values.dtype, total);
  for (let k = 0; k < nnz; k++) {
    let pos = 0;
    if (linear) pos = Number(idx[k]!);
    else
      for (let r = 0; r < dims.length; r++) {
        const i = Number(idx[k * dims.length + r]!);
        if (!(i >= 0 && i < dims[r]!))
          throw new OnnxError(
            "E_MODEL",
            `index ${i} of value ${k} is out of range for dimension ${r} of size ${dims[r]}`,
            label,
          );
        pos = pos * dims[r]! + i;
      }
    if (!(pos >= 0 && pos < total))
      throw new OnnxError(
        "E_MODEL",
        `position ${pos} of value ${k} is out of range for ${total} elements`,
        label,
      );
    (out as { [i: number]: unknown })[pos] = values.data[k];
  }
  return { dtype: values.dtype, shape: [...dims], data: out };
}
