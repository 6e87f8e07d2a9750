// Runtime values of the interpreter and the kernel contract.

import type { Graph, Node } from "../ir/types.js";

/**
 * Element storage by dtype: float → Float32Array, double → Float64Array, float16/bfloat16 →
 * Uint16Array (bit patterns), int8 → Int8Array, uint8/bool → Uint8Array, int16 → Int16Array,
 * uint16 → Uint16Array, int32 → Int32Array, uint32 → Uint32Array, int64 → BigInt64Array,
 * uint64 → BigUint64Array, string → string[].
 */
export type Storage =
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array
  | string[];

/** A tensor at run time: dense, row-major. */
export interface RTensor {
  /** TensorProto.DataType value. */
  dtype: number;
  shape: number[];
  data: Storage;
}

/** Sequence / optional values some ops produce; tensors are the common case. */
export type RValue =
  RTensor | { kind: "sequence"; elemDtype: number; items: RTensor[] } | { kind: "optional-none" };

export interface KernelContext {
  node: Node;
  /** The version of the node's domain that the model (or function) imports. */
  opset: number;
  /** "node 'x' (ReduceSum)": for error messages. */
  label: string;
  /** Largest element count a kernel may allocate. */
  maxElements: number;
  /** Most iterations a Loop may run (default DEFAULT_MAX_ITERATIONS). */
  maxIterations?: number;
  /**
   * Whether input i's storage may be overwritten and returned as an output: no value but this
   * input holds it, nothing reads it after this node, and a kernel of this run made it (never a
   * graph input's or an initializer's). Absent: never.
   */
  donated?(i: number): boolean;
}

/** A kernel computes a node's outputs from its inputs (undefined for an omitted optional input). */
export type Kernel = (ctx: KernelContext, inputs: (RValue | undefined)[]) => RValue[];

/** A body (If branch, Loop/Scan/SequenceMap body) to run on these inputs. */
export interface BodyRun {
  graph: Graph;
  inputs: RValue[];
}

/**
 * The kernel of an op with bodies: it yields each body run and is resumed with the body's outputs
 * (outer-scope values visible to the body). The executor runs bodies on its own stack of frames,
 * so a model whose calls and bodies alternate thousands deep runs without recursion.
 */
export type BodyKernel = (
  ctx: KernelContext,
  inputs: (RValue | undefined)[],
) => Generator<BodyRun, RValue[], RValue[]>;
