// Tensors between the interpreter and onnxruntime-node, both ways: for the tests (through
// ./ort.ts) and for the scripts that judge on onnxruntime (scripts/infer-coverage.ts,
// scripts/generate/differential.ts). No vitest here, so scripts can import it.

import * as ort from "onnxruntime-node";
import type { RTensor } from "../../src/interp/types.js";
import { DataType } from "../../src/ir/types.js";

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
export const FROM_ORT = Object.fromEntries(
  Object.entries(ORT_TYPE).map(([k, v]) => [v, Number(k)]),
);

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
