// Small builders for interpreter tests: one-node models and tensors from plain arrays.

import { attr, graph, model, node, valueInfo, type AttrInput } from "../../src/ir/builder.js";
import type { Attribute, Model, Node, ValueInfo } from "../../src/ir/types.js";
import { DataType } from "../../src/ir/types.js";
import { run, type RunOptions } from "../../src/interp/executor.js";
import { setGemmDisabled } from "../../src/interp/kernels/wasm/gemm.js";
import { fromFloat64, toFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";

export { DataType };

/** A tensor of dtype from numbers (bigints for 64-bit ints; floats rounded to the type). */
export function T(
  dtype: number,
  shape: number[],
  values: (number | bigint | boolean | string)[],
): RTensor {
  if (dtype === DataType.STRING) return { dtype, shape, data: values as string[] };
  if (dtype === DataType.INT64)
    return { dtype, shape, data: BigInt64Array.from(values, (v) => BigInt(v as number | bigint)) };
  if (dtype === DataType.UINT64)
    return { dtype, shape, data: BigUint64Array.from(values, (v) => BigInt(v as number | bigint)) };
  return fromFloat64(
    dtype,
    shape,
    Float64Array.from(values, (v) => Number(v)),
  );
}

export const f32 = (shape: number[], v: number[]) => T(DataType.FLOAT, shape, v);
export const i64 = (shape: number[], v: (number | bigint)[]) => T(DataType.INT64, shape, v);

/** The values of a tensor as plain JS numbers (bigint kept for 64-bit ints). */
export function vals(t: RTensor): (number | bigint | string)[] {
  if (t.data instanceof BigInt64Array || t.data instanceof BigUint64Array)
    return Array.from(t.data);
  if (Array.isArray(t.data)) return t.data;
  return Array.from(toFloat64(t));
}

/** The bytes a typed array views. */
export const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

export interface OneNodeSpec {
  op: string;
  inputs: RTensor[];
  /** Input names; "" omits an optional input. Defaults to x0, x1, ... */
  names?: string[];
  attrs?: Record<string, AttrInput>;
  attributes?: Attribute[];
  outputs?: number;
  opset?: number;
  extra?: Partial<Node>;
}

/** A model holding a single node whose inputs are graph inputs (typed from the given tensors). */
export function oneNodeModel(spec: OneNodeSpec): Model {
  const names = spec.names ?? spec.inputs.map((_, i) => `x${i}`);
  const outs = Array.from({ length: spec.outputs ?? 1 }, (_, i) => `y${i}`);
  const n = node(spec.op, names, outs, spec.attrs ?? {}, spec.extra ?? {});
  if (spec.attributes) n.attributes.push(...spec.attributes);
  const inputs: ValueInfo[] = [];
  let k = 0;
  names.forEach((name) => {
    if (name === "") return;
    const t = spec.inputs[k++]!;
    inputs.push(valueInfo(name, t.dtype, t.shape));
  });
  return model(
    graph({ nodes: [n], inputs, outputs: outs.map((o) => valueInfo(o)) }),
    spec.opset ?? 18,
  );
}

/**
 * One node's first output on the fast paths (WebAssembly product, elementwise and the other
 * float32 paths) and on the general loops (fast paths off): [fast, general].
 */
export function fastAndGeneral(spec: OneNodeSpec): [RTensor, RTensor] {
  setGemmDisabled(true);
  let general: RTensor;
  try {
    general = runOne(spec)[0]!;
  } finally {
    setGemmDisabled(false);
  }
  return [runOne(spec)[0]!, general];
}

/** Runs one node and returns its outputs in order. */
export function runOne(spec: OneNodeSpec, opts: RunOptions = {}): RTensor[] {
  const m = oneNodeModel(spec);
  const feeds: Record<string, RTensor> = {};
  let k = 0;
  for (const name of spec.names ?? spec.inputs.map((_, i) => `x${i}`))
    if (name !== "") feeds[name] = spec.inputs[k++]!;
  const out = run(m, feeds, opts);
  return m.graph.outputs.map((o) => out[o.name]!);
}

export { attr, graph, model, node, valueInfo };
