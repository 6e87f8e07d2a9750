// IR tensors (initializers, attribute values, sparse tensors) as runtime tensors and back.

import { OnnxError } from "../errors.js";
import { dtypeName, numberToBfloat16Bits, numberToFloat16Bits, packedBits } from "../ir/dtype.js";
import { Tensor } from "../ir/tensor.js";
import { tensorDataProblem } from "../ir/tensor-data.js";
import { DataType, type SparseTensor } from "../ir/types.js";
import { readExternalData } from "./external.node.js";
import {
  allocStorage,
  elementCount,
  storageBytes,
  storageElementSize,
  storageFromBytes,
} from "./tensor.js";
import type { RTensor, Storage } from "./types.js";

const utf8Decoder = new TextDecoder();
const utf8Encoder = new TextEncoder();

/**
 * An IR tensor as a runtime tensor. Raw data is viewed in place when its offset is aligned to
 * the element size (so the result must be treated as read-only); data in a file (external data,
 * a large model's raw data) is read first.
 */
export function fromIRTensor(t: Tensor, where?: string): RTensor {
  const dtype = t.dataType;
  const shape = [...t.dims];
  const label = where ?? (t.name ? `tensor '${t.name}'` : undefined);
  const bad = tensorDataProblem(t);
  if (bad) throw new OnnxError("E_MODEL", `tensor ${bad}`, label);
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
  // Data left in a file is read now, into a buffer of the run's (the model is not changed).
  const d: Tensor["data"] =
    t.data.kind === "lazy" || (t.data.kind === "external" && t.data.range)
      ? { kind: "raw", bytes: t.rawBytes() }
      : t.data.kind === "external"
        ? { kind: "raw", bytes: readExternalData(t, label) }
        : t.data;
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
      // int4/uint4, int2/uint2, float4e2m1: each int32 holds one byte of packed elements.
      if (packedBits(dtype))
        return { dtype, shape, data: storageFromBytes(dtype, Uint8Array.from(d.values), n) };
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
    for (let i = 0; i < n; i++) (data as Uint16Array)[i] = numberToFloat16Bits(values[i]!);
  else if (dtype === DataType.BFLOAT16)
    for (let i = 0; i < n; i++) (data as Uint16Array)[i] = numberToBfloat16Bits(values[i]!);
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
