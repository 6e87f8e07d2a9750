// Small node-building helpers for adapters: copies of the node with attributes or inputs changed,
// constants made as Constant nodes (so that they also work inside functions and subgraphs), and
// constant inputs read back as numbers.

import { attr, getAttr, type AttrInput } from "../../ir/index.js";
import { Tensor } from "../../ir/tensor.js";
import { DataType, type Attribute, type Node, type TensorType } from "../../ir/types.js";
import type { OpVersion } from "../../schema/types.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { checkThen, constantNode, typeRestriction } from "./common.js";

/** A copy of `n` (never the same object) with some attributes replaced, added or (undefined) removed. */
export function withAttributes(n: Node, changes: Record<string, Attribute | undefined>): Node {
  const attributes = n.attributes.filter((a) => !(a.name in changes));
  for (const a of Object.values(changes)) if (a) attributes.push(a);
  return { ...n, inputs: [...n.inputs], outputs: [...n.outputs], attributes };
}

/** A copy of `n` without the named attributes (common.ts's withoutAttributes gives the list). */
export function nodeWithoutAttributes(n: Node, ...names: string[]): Node {
  return withAttributes(n, Object.fromEntries(names.map((x) => [x, undefined])));
}

/** Input names with trailing omitted ("") inputs dropped. */
export function trimInputs(inputs: string[]): string[] {
  const out = [...inputs];
  while (out.length && out[out.length - 1] === "") out.pop();
  return out;
}

/** A new node of the ai.onnx domain (named after the adapted node when it has a name). */
export function opNode(
  c: AdapterContext,
  opType: string,
  inputs: string[],
  outputs: string[],
  attrs: Record<string, AttrInput | Attribute> = {},
): Node {
  const attributes = Object.entries(attrs).map(([k, v]) =>
    typeof v === "object" && v !== null && "type" in v && "name" in v && !(v instanceof Tensor)
      ? (v as Attribute)
      : attr(k, v as AttrInput),
  );
  const n: Node = { opType, domain: "", inputs, outputs, attributes };
  if (c.node.name) n.name = c.fresh(`${c.node.name}_${opType.toLowerCase()}`);
  return n;
}

/** A Constant node holding `t` and the name it writes (common.ts's constantNode as a pair). */
function constantOf(c: AdapterContext, base: string, t: Tensor): [Node, string] {
  const k = constantNode(c, base, t);
  return [k.node, k.name];
}

/** A Constant node holding a 1-D int64 tensor (a scalar when `scalar` is set). */
export function int64Constant(
  c: AdapterContext,
  base: string,
  values: readonly (number | bigint)[],
  scalar = false,
): [Node, string] {
  const t = Tensor.from(
    DataType.INT64,
    scalar ? [] : [values.length],
    values.map((v) => BigInt(v)),
  );
  return constantOf(c, base, t);
}

/** A Constant scalar (or 1-D when `dims` is given) of a numeric element type. */
export function numberConstant(
  c: AdapterContext,
  base: string,
  elemType: number,
  values: readonly number[],
  dims: number[] = [],
): [Node, string] {
  const v =
    elemType === DataType.INT64 || elemType === DataType.UINT64
      ? values.map((x) => BigInt(x))
      : [...values];
  return constantOf(c, base, Tensor.from(elemType, dims, v));
}

/**
 * The i-th input's values as numbers when it is a constant; undefined when it is omitted; `fail`s with
 * `what` when it is computed at run time.
 */
export function constantValues(c: AdapterContext, i: number, what: string): number[] | undefined {
  const name = c.node.inputs[i];
  if (name === undefined || name === "") return undefined;
  const t = c.constantInput(i);
  if (!t)
    c.fail(
      `${what} (input '${name}') is computed at run time; ${c.to.name}-${c.to.since} needs it as a constant`,
    );
  return t.values().map((v) => Number(v));
}

/** The tensor type of the node's i-th input, when inference knows it. */
export function tensorTypeOf(c: AdapterContext, i: number): TensorType | undefined {
  const t = c.inputType(i);
  return t && (t.kind === "tensor" || t.kind === "sparse_tensor") ? t : undefined;
}

/** The rank of the node's i-th input, when known. */
export function rankOf(c: AdapterContext, i: number): number | undefined {
  return tensorTypeOf(c, i)?.shape?.length;
}

/** The element type of the node's i-th input, or a refusal naming `why` it is needed. */
export function elemTypeOf(c: AdapterContext, i: number, why: string): number {
  const t = tensorTypeOf(c, i)?.elemType;
  if (!t) c.fail(`the element type of input '${c.node.inputs[i]}' is unknown (needed ${why})`);
  return t;
}

/** The schema's default of an attribute of `v` (undefined when it has none). */
export function schemaDefault(
  v: OpVersion,
  name: string,
): number | string | number[] | string[] | undefined {
  return v.attributes.find((a) => a.name === name)?.default;
}

/** An INT attribute's value, or the schema default of the version the node is at. */
export function intAttr(c: AdapterContext, name: string): number | undefined {
  const a = getAttr(c.node, name);
  if (a && a.type === "INT" && a.value !== undefined) return Number(a.value);
  const d = schemaDefault(c.from, name);
  return typeof d === "number" ? d : undefined;
}

/** A FLOAT attribute's value, or the schema default of the version the node is at. */
export function floatAttr(c: AdapterContext, name: string): number | undefined {
  const a = getAttr(c.node, name);
  if (a && a.type === "FLOAT" && a.value !== undefined) return a.value;
  const d = schemaDefault(c.from, name);
  return typeof d === "number" ? d : undefined;
}

/** A STRING attribute's value, or the schema default of the version the node is at. */
export function stringAttr(c: AdapterContext, name: string): string | undefined {
  const a = getAttr(c.node, name);
  if (a && a.type === "STRING" && a.value !== undefined) return a.value;
  const d = schemaDefault(c.from, name);
  return typeof d === "string" ? d : undefined;
}

/** An INTS attribute's values (undefined when absent). */
export function intsAttr(c: AdapterContext, name: string): number[] | undefined {
  const a = getAttr(c.node, name);
  return a && a.type === "INTS" && a.value !== undefined ? a.value.map(Number) : undefined;
}

/** Normalises a possibly negative axis against a rank. */
export function normAxis(axis: number, rank: number): number {
  return axis < 0 ? axis + rank : axis;
}

/** A FLOATS attribute's values (undefined when absent). */
export function floatsAttr(c: AdapterContext, name: string): number[] | undefined {
  const a = getAttr(c.node, name);
  return a && a.type === "FLOATS" && a.value !== undefined ? [...a.value] : undefined;
}

/**
 * Rows whose adapters first refuse a node using an element type the target version lacks (a
 * row wins over the plan's own type check, so the row must make it).
 */
export function typeChecked(rows: readonly AdapterRow[]): AdapterRow[] {
  return rows.map((r) => ({ ...r, adapter: checkThen(typeRestriction, r.adapter) }));
}

/**
 * A list of nodes being built for one adapted node: constants and ops whose outputs get fresh
 * names from `base` (usually the node's output).
 */
export function nodeSequence(c: AdapterContext, base: string) {
  const nodes: Node[] = [];
  return {
    nodes,
    /** A fresh name `${base}_${suffix}`. */
    name: (suffix: string) => c.fresh(`${base}_${suffix}`),
    /** An int64 constant (1-D, or a scalar), returning the name it writes. */
    ints(suffix: string, values: readonly (number | bigint)[], scalar = false): string {
      const [n, name] = int64Constant(c, `${base}_${suffix}`, values, scalar);
      nodes.push(n);
      return name;
    },
    /** An op writing a fresh `${base}_${suffix}`, returning that name. */
    op(
      type: string,
      inputs: string[],
      suffix: string,
      attrs: Record<string, AttrInput> = {},
    ): string {
      const out = c.fresh(`${base}_${suffix}`);
      nodes.push(opNode(c, type, inputs, [out], attrs));
      return out;
    },
  };
}

/** A row maker for one ai.onnx op: `rowsOf("Dropout")(10, 12, summary, adapter)`. */
export function rowsOf(op: string) {
  return (from: number, to: number, summary: string, adapter: Adapter): AdapterRow => ({
    domain: "",
    op,
    from,
    to,
    summary,
    adapter,
  });
}
