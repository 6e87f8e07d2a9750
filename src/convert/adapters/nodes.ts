// The adapter kit, part two: building nodes and reading what a node holds. Copies of a node with
// attributes or inputs changed, new ops and Constant nodes (constants are written as Constant
// nodes so that they also work inside functions and subgraphs), constant inputs read back,
// attribute values with the schema's defaults, and what inference knows of an input.
// Part one (kit.ts) holds the row constructor and the patterns.

import { attr, getAttr, type AttrInput } from "../../ir/index.js";
import { Tensor } from "../../ir/tensor.js";
import { DataType, type Attribute, type Node, type TensorType } from "../../ir/types.js";
import { defaultAttribute } from "../../schema/defaults.js";
import type { AdapterContext } from "../adapter.js";

// ---- copies of a node ----

/** A copy of `n` (never the same object) with some attributes replaced, added or (undefined) removed. */
export function withAttributes(n: Node, changes: Record<string, Attribute | undefined>): Node {
  const attributes = n.attributes.filter((a) => !Object.hasOwn(changes, a.name));
  for (const a of Object.values(changes)) if (a) attributes.push(a);
  return { ...n, inputs: [...n.inputs], outputs: [...n.outputs], attributes };
}

/** The node's attributes without the named ones (a new list). */
export function withoutAttributes(node: Node, ...names: string[]): Attribute[] {
  const out: Attribute[] = [];
  for (const a of node.attributes) if (!names.includes(a.name)) out.push(a);
  return out;
}

/** A copy of `n` (never the same object) without the named attributes. */
export function nodeWithoutAttributes(n: Node, ...names: string[]): Node {
  return {
    ...n,
    inputs: [...n.inputs],
    outputs: [...n.outputs],
    attributes: withoutAttributes(n, ...names),
  };
}

/** The first attribute named `name` (getAttr without a callback, for the hot patterns). */
export function findAttr(attributes: readonly Attribute[], name: string): Attribute | undefined {
  for (let i = 0; i < attributes.length; i++)
    if (attributes[i]!.name === name) return attributes[i];
  return undefined;
}

/** The attributes without those named `name`, in an array of the exact size (it outlives the conversion). */
export function withoutAttribute(attributes: readonly Attribute[], name: string): Attribute[] {
  let n = 0;
  for (let i = 0; i < attributes.length; i++) if (attributes[i]!.name !== name) n++;
  const out = new Array<Attribute>(n);
  let j = 0;
  for (let i = 0; i < attributes.length; i++) {
    const a = attributes[i]!;
    if (a.name !== name) out[j++] = a;
  }
  return out;
}

/** Input names with trailing omitted ("") inputs dropped (a new list). */
export function trimInputs(inputs: readonly string[]): string[] {
  const out = [...inputs];
  while (out.length && out[out.length - 1] === "") out.pop();
  return out;
}

/** The inputs with `inputs[index]` set (padding omitted optional inputs with ""), trailing "" trimmed. */
export function withInput(inputs: readonly string[], index: number, name: string): string[] {
  // Sized once (the result outlives the conversion: no spare capacity from pushes).
  let n = Math.max(inputs.length, index + 1);
  while (n > 0 && (n - 1 === index ? name : (inputs[n - 1] ?? "")) === "") n--;
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = i === index ? name : (inputs[i] ?? "");
  return out;
}

/** Inputs without the one at `index` (later ones would shift: only for trailing inputs). */
export function withoutInput(inputs: readonly string[], index: number): string[] {
  return trimInputs(inputs.slice(0, index));
}

// ---- new nodes ----

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

/** A Constant node writing `name` with the given attributes (`value` and its tensor). */
export function constantWriting(name: string, attributes: Attribute[]): Node {
  return { opType: "Constant", domain: "", inputs: [], outputs: [name], attributes };
}

/** A Constant node holding `tensor`, and the fresh name (starting with `base`) it writes. */
export function constantNode(c: AdapterContext, base: string, tensor: Tensor): [Node, string] {
  const name = c.fresh(base);
  return [constantWriting(name, [{ name: "value", type: "TENSOR", value: tensor }]), name];
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
  return constantNode(c, base, t);
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
  return constantNode(c, base, Tensor.from(elemType, dims, v));
}

/** A base for fresh names derived from a node: its name, else its first output, else its op. */
export function nameBase(node: Node, suffix: string): string {
  return `${node.name || node.outputs[0] || node.opType}_${suffix}`;
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

// ---- constant inputs ----

/** The values of an integer tensor as bigints; undefined for other element types. */
export function integerValues(t: Tensor): bigint[] | undefined {
  if (!t.readable) return undefined;
  const v = t.values();
  switch (t.dataType) {
    case DataType.INT64:
    case DataType.UINT64:
      return v as bigint[];
    case DataType.INT32:
    case DataType.INT16:
    case DataType.INT8:
    case DataType.UINT32:
    case DataType.UINT16:
    case DataType.UINT8:
      return (v as number[]).map((x) => BigInt(x));
    default:
      return undefined;
  }
}

/**
 * The integer values of input `index` when it is a constant, for an attribute of the target
 * version; undefined when the input is omitted; a failure naming the value when it is computed
 * at run time or is not an integer tensor.
 */
export function constantIntsInput(
  c: AdapterContext,
  index: number,
  what: string,
): bigint[] | undefined {
  const name = c.node.inputs[index] ?? "";
  if (name === "") return undefined;
  const t = c.constantInput(index);
  if (!t)
    return c.fail(
      `input '${name}' (${what}) is computed at run time; ${c.to.name}-${c.to.since} needs it as an attribute, known before run time`,
      { kind: "fix-dims", input: index },
    );
  const v = integerValues(t);
  if (!v) return c.fail(`input '${name}' (${what}) is not an integer tensor`);
  return v;
}

/**
 * The i-th input's values as numbers when it is a constant; undefined when it is omitted; `fail`s with
 * `what` when it is computed at run time.
 */
export function constantValues(c: AdapterContext, i: number, what: string): number[] | undefined {
  const name = c.node.inputs[i] ?? "";
  if (name === "") return undefined;
  const t = c.constantInput(i);
  if (!t)
    c.fail(
      `${what} (input '${name}') is computed at run time; ${c.to.name}-${c.to.since} needs it as a constant`,
      { kind: "fix-dims", input: i },
    );
  return t.values().map((v) => Number(v));
}

// ---- attributes, with the defaults of the version the node is at ----

/**
 * The node's attribute `name` of type `type`, else the schema default of the version the node is
 * at (schema/facts.ts defaultAttribute: of the attribute's own type), else undefined.
 */
function typedAttr(
  c: AdapterContext,
  name: string,
  type: Attribute["type"],
): Attribute | undefined {
  const a = getAttr(c.node, name);
  if (a && a.type === type && a.value !== undefined) return a;
  const d = defaultAttribute(c.from, name);
  return d && d.type === type ? d : undefined;
}

/** An INT attribute's value, or the schema default of the version the node is at. */
export function intAttr(c: AdapterContext, name: string): number | undefined {
  const a = typedAttr(c, name, "INT");
  return a?.type === "INT" && a.value !== undefined ? Number(a.value) : undefined;
}

/** A FLOAT attribute's value, or the schema default of the version the node is at. */
export function floatAttr(c: AdapterContext, name: string): number | undefined {
  const a = typedAttr(c, name, "FLOAT");
  return a?.type === "FLOAT" ? a.value : undefined;
}

/** A STRING attribute's value, or the schema default of the version the node is at. */
export function stringAttr(c: AdapterContext, name: string): string | undefined {
  const a = typedAttr(c, name, "STRING");
  return a?.type === "STRING" ? a.value : undefined;
}

/** An INTS attribute's values, or the schema default of the version the node is at. */
export function intsAttr(c: AdapterContext, name: string): number[] | undefined {
  const a = typedAttr(c, name, "INTS");
  return a?.type === "INTS" ? a.value?.map(Number) : undefined;
}

/** A FLOATS attribute's values, or the schema default of the version the node is at. */
export function floatsAttr(c: AdapterContext, name: string): number[] | undefined {
  const a = typedAttr(c, name, "FLOATS");
  return a?.type === "FLOATS" && a.value ? [...a.value] : undefined;
}

/** A STRINGS attribute's values, or the schema default of the version the node is at. */
export function stringsAttr(c: AdapterContext, name: string): string[] | undefined {
  const a = typedAttr(c, name, "STRINGS");
  return a?.type === "STRINGS" && a.value ? [...a.value] : undefined;
}

// ---- what inference knows of an input ----

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

/** Normalises a possibly negative axis against a rank. */
export function normAxis(axis: number, rank: number): number {
  return axis < 0 ? axis + rank : axis;
}
