// The in-memory model. Plain objects that mirror the ONNX messages closely enough that nothing
// is lost between bytes and IR, while using JS-friendly types: camelCase names, numbers where
// values are small (dims, versions), bigint where int64 precision matters (attribute ints,
// int64 tensor data), and views over the file's bytes for raw tensor data.

import type { Tensor } from "./tensor.js";

/** Values of TensorProto.DataType. */
export const DataType = {
  UNDEFINED: 0,
  FLOAT: 1,
  UINT8: 2,
  INT8: 3,
  UINT16: 4,
  INT16: 5,
  INT32: 6,
  INT64: 7,
  STRING: 8,
  BOOL: 9,
  FLOAT16: 10,
  DOUBLE: 11,
  UINT32: 12,
  UINT64: 13,
  COMPLEX64: 14,
  COMPLEX128: 15,
  BFLOAT16: 16,
  FLOAT8E4M3FN: 17,
  FLOAT8E4M3FNUZ: 18,
  FLOAT8E5M2: 19,
  FLOAT8E5M2FNUZ: 20,
  UINT4: 21,
  INT4: 22,
  FLOAT4E2M1: 23,
  FLOAT8E8M0: 24,
  UINT2: 25,
  INT2: 26,
} as const;
export type DataType = (typeof DataType)[keyof typeof DataType];

/** A dimension: a known size, a symbolic name, or unknown (null). */
export type Dim = number | string | null;

export interface TypeBase {
  denotation?: string;
}
export interface TensorType extends TypeBase {
  kind: "tensor" | "sparse_tensor";
  /** 0 when the element type is not set. */
  elemType: number;
  /** Absent: rank unknown. */
  shape?: Dim[];
  /** Per-dimension denotations, kept only when some dimension has one. */
  dimDenotations?: (string | undefined)[];
}
export interface SequenceType extends TypeBase {
  kind: "sequence";
  elem?: Type;
}
export interface OptionalType extends TypeBase {
  kind: "optional";
  elem?: Type;
}
export interface MapType extends TypeBase {
  kind: "map";
  keyType: number;
  value?: Type;
}
export interface OpaqueType extends TypeBase {
  kind: "opaque";
  domain?: string;
  name?: string;
}
/** A TypeProto with no value set. */
export interface EmptyType extends TypeBase {
  kind: "none";
}
export type Type = TensorType | SequenceType | OptionalType | MapType | OpaqueType | EmptyType;

export type MetadataProps = [key: string, value: string][];

export interface ValueInfo {
  name: string;
  type?: Type;
  docString?: string;
  metadataProps?: MetadataProps;
}

export interface SparseTensor {
  values: Tensor;
  indices: Tensor;
  dims: number[];
}

export type AttrType =
  | "UNDEFINED"
  | "FLOAT"
  | "INT"
  | "STRING"
  | "TENSOR"
  | "GRAPH"
  | "SPARSE_TENSOR"
  | "TYPE_PROTO"
  | "FLOATS"
  | "INTS"
  | "STRINGS"
  | "TENSORS"
  | "GRAPHS"
  | "SPARSE_TENSORS"
  | "TYPE_PROTOS";

/** The value of an attribute, by its type. */
export interface AttrValueMap {
  UNDEFINED: undefined;
  FLOAT: number;
  INT: bigint;
  STRING: string;
  TENSOR: Tensor;
  GRAPH: Graph;
  SPARSE_TENSOR: SparseTensor;
  TYPE_PROTO: Type;
  FLOATS: number[];
  INTS: bigint[];
  STRINGS: string[];
  TENSORS: Tensor[];
  GRAPHS: Graph[];
  SPARSE_TENSORS: SparseTensor[];
  TYPE_PROTOS: Type[];
}

export type Attribute = {
  [K in AttrType]: {
    name: string;
    type: K;
    /** Undefined for a reference (refAttrName set). */
    value: AttrValueMap[K] | undefined;
    /** Inside a function body: the name of the calling node's attribute this one stands for. */
    refAttrName?: string;
    docString?: string;
  };
}[AttrType];

export interface Node {
  opType: string;
  /** "" is ai.onnx. */
  domain: string;
  name?: string;
  /** "" marks an omitted optional input. */
  inputs: string[];
  outputs: string[];
  attributes: Attribute[];
  overload?: string;
  docString?: string;
  metadataProps?: MetadataProps;
  /** Kept as decoded; this project does not interpret device placement. */
  deviceConfigurations?: unknown[];
}

export interface Graph {
  name?: string;
  nodes: Node[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  initializers: Tensor[];
  sparseInitializers: SparseTensor[];
  valueInfo: ValueInfo[];
  docString?: string;
  /** Kept as decoded (TensorAnnotation messages). */
  quantizationAnnotation?: unknown[];
  metadataProps?: MetadataProps;
}

export interface OpsetId {
  domain: string;
  version: number;
}

export interface Function {
  name: string;
  domain: string;
  overload?: string;
  inputs: string[];
  outputs: string[];
  /** Attribute names without defaults. */
  attributes: string[];
  /** Attributes with defaults. */
  attributeProtos: Attribute[];
  nodes: Node[];
  opsetImports: OpsetId[];
  valueInfo: ValueInfo[];
  docString?: string;
  metadataProps?: MetadataProps;
}

export interface Model {
  irVersion: number;
  opsetImports: OpsetId[];
  producerName?: string;
  producerVersion?: string;
  domain?: string;
  modelVersion?: bigint;
  docString?: string;
  graph: Graph;
  metadataProps?: MetadataProps;
  functions: Function[];
  /** Kept as decoded (TrainingInfoProto messages). */
  trainingInfo?: unknown[];
  /** Kept as decoded (DeviceConfigurationProto messages). */
  configuration?: unknown[];
}

/** The dims of a tensor type when every one is static; undefined otherwise. */
export function staticShape(t: Type | undefined): number[] | undefined {
  if (!t || t.kind !== "tensor" || !t.shape) return undefined;
  return t.shape.every((d) => typeof d === "number") ? (t.shape as number[]) : undefined;
}
