// onnxruntime-node as the independent runtime: tensors in and out, and one call to run a model.

import * as ort from "onnxruntime-node";
import { encodeModel } from "../../src/io/files.js";
import type { Model } from "../../src/ir/types.js";
import { DataType } from "../../src/ir/types.js";
import { fromFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";

export const ORT_TYPE: Record<number, ort.Tensor.Type> = {
  [DataType.FLOAT]: "float32",
  [DataType.DOUBLE]: "float64",
  [DataType.FLOAT16]: "float16",
  [DataType.INT8]: "int8",
  [DataType.UINT8]: "uint8",
  [DataType.INT16]: "int16",
  [DataType.UINT16]: "uint16",
  [DataType.INT32]: "int32",
  [DataType.UINT32]: "uint32",
  [DataType.INT64]: "int64",
  [DataType.UINT64]: "uint64",
  [DataType.BOOL]: "bool",
  [DataType.STRING]: "string",
};
const FROM_ORT = Object.fromEntries(Object.entries(ORT_TYPE).map(([k, v]) => [v, Number(k)]));

export function toOrt(t: RTensor): ort.Tensor {
  const type = ORT_TYPE[t.dtype];
  if (!type) throw new Error(`onnxruntime-node has no tensor type for element type ${t.dtype}`);
  return new ort.Tensor(type, t.data as never, t.shape);
}

export function fromOrt(t: ort.Tensor): RTensor {
  const dtype = FROM_ORT[t.type];
  if (dtype === undefined) throw new Error(`unsupported onnxruntime tensor type ${t.type}`);
  let data = t.data as RTensor["data"];
  if (dtype === DataType.FLOAT16 && !(data instanceof Uint16Array))
    data = new Uint16Array((data as unknown as Uint16Array).buffer);
  if (dtype === DataType.BOOL && !(data instanceof Uint8Array))
    data = Uint8Array.from(data as unknown as ArrayLike<number>);
  return { dtype, shape: [...t.dims], data };
}

/** Runs a model on onnxruntime-node; returns the graph outputs by name. */
export async function runOrt(
  m: Model,
  feeds: Record<string, RTensor>,
): Promise<Record<string, RTensor>> {
  const session = await ort.InferenceSession.create(encodeModel(m));
  try {
    const out = await session.run(
      Object.fromEntries(Object.entries(feeds).map(([k, v]) => [k, toOrt(v)])),
    );
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, fromOrt(v)]));
  } finally {
    await session.release();
  }
}

/** A deterministic pseudo-random generator (xorshift32). */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** A tensor of pseudo-random values in [lo, hi) (rounded for integer types). */
export function randomTensor(
  dtype: number,
  shape: number[],
  seed: number,
  lo = -3,
  hi = 3,
): RTensor {
  const r = rng(seed);
  const n = shape.reduce((p, d) => p * d, 1);
  const v = Float64Array.from({ length: n }, () => lo + (hi - lo) * r());
  if (dtype === DataType.INT64)
    return { dtype, shape, data: BigInt64Array.from(v, (x) => BigInt(Math.round(x))) };
  if (dtype === DataType.BOOL)
    return { dtype, shape, data: Uint8Array.from(v, (x) => (x > 0 ? 1 : 0)) };
  const integer =
    dtype !== DataType.FLOAT && dtype !== DataType.DOUBLE && dtype !== DataType.FLOAT16;
  return fromFloat64(dtype, shape, integer ? v.map(Math.round) : v);
}
