// Helpers for the schema tests: run a function body in onnxruntime-node, float references.

import * as ort from "onnxruntime-node";
import { graph, model } from "../../src/ir/builder.js";
import { DataType, type Dim, type Node } from "../../src/ir/types.js";
import { encodeModel } from "../../src/io/files.js";

export type OrtData = Float32Array | Float64Array | Int32Array | BigInt64Array | Uint16Array;

export interface Feed {
  /** The formal name the body reads. */
  name: string;
  /** Element type the body sees; bfloat16 is fed as float and cast inside the model. */
  elem: number;
  dims: number[];
  data: OrtData;
  /** The shape the body is told about (defaults to dims); null entries are unknown. */
  declared?: Dim[] | "unranked";
}

const ORT_NAME: Record<number, ort.Tensor.Type> = {
  [DataType.FLOAT]: "float32",
  [DataType.DOUBLE]: "float64",
  [DataType.INT32]: "int32",
  [DataType.INT64]: "int64",
  [DataType.FLOAT16]: "float16",
};

/** The element type ORT is fed/fetched in for a body element type. */
function wire(elem: number): number {
  return elem === DataType.BFLOAT16 ? DataType.FLOAT : elem;
}

/** Runs nodes (reading the feeds' names, writing `output`) in ORT; returns the output tensor. */
export async function runNodes(
  nodes: Node[],
  feeds: Feed[],
  output: { name: string; elem: number },
  opset = 18,
) {
  const pre: Node[] = [];
  const post: Node[] = [];
  const inputs = feeds.map((f) => {
    const shape = f.declared === "unranked" ? undefined : (f.declared ?? f.dims);
    if (wire(f.elem) === f.elem)
      return { name: f.name, type: { kind: "tensor" as const, elemType: f.elem, shape } };
    pre.push({
      opType: "Cast",
      domain: "",
      inputs: [`${f.name}__wire`],
      outputs: [f.name],
      attributes: [{ name: "to", type: "INT", value: BigInt(f.elem) }],
    });
    return {
      name: `${f.name}__wire`,
      type: { kind: "tensor" as const, elemType: wire(f.elem), shape },
    };
  });
  let outName = output.name;
  if (wire(output.elem) !== output.elem) {
    outName = `${output.name}__wire`;
    post.push({
      opType: "Cast",
      domain: "",
      inputs: [output.name],
      outputs: [outName],
      attributes: [{ name: "to", type: "INT", value: BigInt(wire(output.elem)) }],
    });
  }
  const m = model(
    graph({
      name: "body",
      nodes: [...pre, ...nodes, ...post],
      inputs,
      outputs: [{ name: outName, type: { kind: "tensor", elemType: wire(output.elem) } }],
    }),
    opset,
  );
  const session = await ort.InferenceSession.create(encodeModel(m));
  const feedMap: Record<string, ort.Tensor> = {};
  feeds.forEach((f, i) => {
    feedMap[inputs[i]!.name] = new ort.Tensor(ORT_NAME[wire(f.elem)]!, f.data, f.dims);
  });
  const result = await session.run(feedMap);
  await session.release();
  return result[outName]!;
}

/** Bits of float16 / bfloat16 / float32 / float64 as an ordered integer, for ulp distances. */
export function ulpDistance(a: number, b: number, elem: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b) ? 0 : Infinity;
  if (a === b) return 0;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return Infinity;
  return Math.abs(ordinal(a, elem) - ordinal(b, elem));
}

const buf = new DataView(new ArrayBuffer(8));
function ordinal(x: number, elem: number): number {
  let bits: number;
  let sign: boolean;
  if (elem === DataType.DOUBLE) {
    buf.setFloat64(0, x);
    const hi = buf.getUint32(0);
    const lo = buf.getUint32(4);
    sign = (hi & 0x80000000) !== 0;
    bits = (hi & 0x7fffffff) * 2 ** 32 + lo;
  } else {
    buf.setFloat32(0, x);
    const u = buf.getUint32(0);
    sign = (u & 0x80000000) !== 0;
    bits = u & 0x7fffffff;
    if (elem === DataType.FLOAT16) bits = f16Ordinal(Math.abs(x));
    else if (elem === DataType.BFLOAT16) bits = Math.floor(bits / 65536);
  }
  return sign ? -bits : bits;
}

/** Ordinal of a non-negative value exactly representable as float16. */
function f16Ordinal(x: number): number {
  if (x === 0) return 0;
  if (x < 2 ** -14) return Math.round(x / 2 ** -24);
  const e = Math.floor(Math.log2(x));
  const mant = Math.round((x / 2 ** e - 1) * 1024);
  return (e + 15) * 1024 + mant;
}
