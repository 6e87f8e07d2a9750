// Short ways to make IR objects, for passes and tests.

import { OnnxError } from "../errors.js";
import { Tensor } from "./tensor.js";
import type {
  AttrType,
  Attribute,
  Dim,
  Function,
  Graph,
  MetadataProps,
  Model,
  Node,
  OpsetId,
  TensorType,
  ValueInfo,
} from "./types.js";
import { dtypeByName } from "./dtype.js";

export type AttrInput =
  number | bigint | string | number[] | bigint[] | string[] | Tensor | Graph | boolean;

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/**
 * An integer as int64. A number read from an int64 (Number(INT64_MAX) is 2^63, rounded up) is
 * clamped into the range rather than wrapped: "to the end" stays the largest int64.
 */
function int64(x: number): bigint {
  const b = BigInt(x);
  return b > INT64_MAX ? INT64_MAX : b < INT64_MIN ? INT64_MIN : b;
}

/** Makes an attribute from a JS value: integers become INT(S), other numbers FLOAT(S). */
export function attr(name: string, value: AttrInput, type?: AttrType): Attribute {
  if (value instanceof Tensor) return { name, type: "TENSOR", value };
  if (typeof value === "bigint") return { name, type: "INT", value };
  if (typeof value === "boolean") return { name, type: "INT", value: value ? 1n : 0n };
  if (typeof value === "number") {
    if (type === "FLOAT" || (type === undefined && !Number.isInteger(value)))
      return { name, type: "FLOAT", value: Math.fround(value) };
    return { name, type: "INT", value: int64(value) };
  }
  if (typeof value === "string") return { name, type: "STRING", value };
  if (Array.isArray(value)) {
    const v = value as unknown[];
    if (type === "STRINGS" || (v.length > 0 && typeof v[0] === "string"))
      return { name, type: "STRINGS", value: v as string[] };
    if (
      type === "FLOATS" ||
      (type === undefined && v.some((x) => typeof x === "number" && !Number.isInteger(x)))
    )
      return { name, type: "FLOATS", value: (v as number[]).map((x) => Math.fround(x)) };
    return {
      name,
      type: "INTS",
      value: v.map((x) => (typeof x === "bigint" ? x : int64(x as number))),
    };
  }
  return { name, type: "GRAPH", value };
}

export function node(
  opType: string,
  inputs: string[],
  outputs: string[],
  attrs: Record<string, AttrInput> = {},
  extra: Partial<Node> = {},
): Node {
  return {
    opType,
    domain: "",
    inputs,
    outputs,
    attributes: Object.entries(attrs).map(([k, v]) => attr(k, v)),
    ...extra,
  };
}

export function tensorType(elem: string | number, shape?: Dim[]): TensorType {
  const elemType = typeof elem === "number" ? elem : dtypeByName(elem)?.id;
  if (elemType === undefined) throw new OnnxError("E_USAGE", `unknown element type '${elem}'`);
  return shape ? { kind: "tensor", elemType, shape } : { kind: "tensor", elemType };
}

export function valueInfo(name: string, elem?: string | number, shape?: Dim[]): ValueInfo {
  return elem === undefined ? { name } : { name, type: tensorType(elem, shape) };
}

/** A graph with nothing in it (and the name, when given). */
/** A function with nothing in it yet. */
export function emptyFunction(): Function {
  return {
    name: "",
    domain: "",
    inputs: [],
    outputs: [],
    attributes: [],
    attributeProtos: [],
    nodes: [],
    opsetImports: [],
    valueInfo: [],
  };
}

export function emptyGraph(name?: string): Graph {
  return {
    ...(name !== undefined ? { name } : {}),
    nodes: [],
    inputs: [],
    outputs: [],
    initializers: [],
    sparseInitializers: [],
    valueInfo: [],
  };
}

export function graph(parts: Partial<Graph> & { nodes: Node[] }): Graph {
  return { ...emptyGraph(), ...parts };
}

export function model(g: Graph, opset: number | OpsetId[] = 18, irVersion = 8): Model {
  const opsetImports = typeof opset === "number" ? [{ domain: "", version: opset }] : opset;
  return { irVersion, opsetImports, graph: g, functions: [] };
}

/**
 * A copy of `n` with new inputs, outputs and name (attributes shared). Written out field by
 * field rather than spread: every copy then has one object shape, which is about twice as fast
 * to make and to read on large models. Every optional field of Node is carried over (a test
 * compares it with the spread).
 */
export function nodeWith(n: Node, inputs: string[], outputs: string[], name: string): Node {
  // (nodeWithRecord below makes the same shape with metadataProps last, as set afterwards.)
  const out: Node = {
    opType: n.opType,
    domain: n.domain,
    name,
    inputs,
    outputs,
    attributes: n.attributes,
  };
  if (n.overload !== undefined) out.overload = n.overload;
  if (n.docString !== undefined) out.docString = n.docString;
  if (n.metadataProps !== undefined) out.metadataProps = n.metadataProps;
  if (n.deviceConfigurations !== undefined) out.deviceConfigurations = n.deviceConfigurations;
  return out;
}

/**
 * nodeWith for a node that carries none of Node's optional fields, given `metadataProps` at
 * once: the same fields in the same order as nodeWith then setting metadataProps, made in one
 * allocation (the expander gives each node it puts in its origin record: one list per call).
 * Undefined when `n` carries an optional field (use nodeWith, then set it).
 */
export function nodeWithRecord(
  n: Node,
  inputs: string[],
  outputs: string[],
  name: string,
  metadataProps: MetadataProps,
): Node | undefined {
  if (
    n.overload !== undefined ||
    n.docString !== undefined ||
    n.metadataProps !== undefined ||
    n.deviceConfigurations !== undefined
  )
    return undefined;
  const { opType, domain, attributes } = n;
  return { opType, domain, name, inputs, outputs, attributes, metadataProps };
}
