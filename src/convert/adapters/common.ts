// Reusable adapter patterns, each named for what it does to a node. A family's table
// (adapters/<family>.ts) builds its rows from these where it can and writes its own adapter where
// the step is particular to the op.

import { typeString } from "../../check/types.js";
import { getAttr } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { Tensor } from "../../ir/tensor.js";
import { DataType, type Attribute, type Node } from "../../ir/types.js";
import { formalTypes } from "../../schema/facts.js";
import type { FormalSchema } from "../../schema/types.js";
import type { Adapter, AdapterContext } from "../adapter.js";

/** A Constant node holding `tensor`, writing a fresh name that starts with `base`. */
export function constantNode(
  c: AdapterContext,
  base: string,
  tensor: Tensor,
): { name: string; node: Node } {
  const name = c.fresh(base);
  return {
    name,
    node: {
      opType: "Constant",
      domain: "",
      inputs: [],
      outputs: [name],
      attributes: [{ name: "value", type: "TENSOR", value: tensor }],
    },
  };
}

/** A 1-D int64 tensor of the given values. */
export function int64Vector(values: readonly bigint[]): Tensor {
  const data = new BigInt64Array(values.length);
  for (let i = 0; i < values.length; i++) data[i] = values[i]!;
  return new Tensor(DataType.INT64, [values.length], { kind: "int64", values: data });
}

/** The values of an integer tensor as bigints; undefined for other element types. */
export function integerValues(t: Tensor): bigint[] | undefined {
  if (t.data.kind === "external") return undefined;
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

/** A base for fresh names derived from a node: its name, else its first output. */
export function nameBase(node: Node, suffix: string): string {
  return `${node.name || node.outputs[0] || node.opType}_${suffix}`;
}

/** The node with `inputs[index]` set (padding omitted optional inputs with ""), trailing "" trimmed. */
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
  const out = inputs.slice(0, index);
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out;
}

export function withoutAttributes(node: Node, ...names: string[]): Attribute[] {
  const out: Attribute[] = [];
  for (const a of node.attributes) if (!names.includes(a.name)) out.push(a);
  return out;
}

/** The first attribute named `name` (getAttr without a callback). */
function findAttr(attributes: readonly Attribute[], name: string): Attribute | undefined {
  for (let i = 0; i < attributes.length; i++)
    if (attributes[i]!.name === name) return attributes[i];
  return undefined;
}

/** The attributes without those named `name`, in an array of the exact size (it outlives the conversion). */
function withoutAttribute(attributes: readonly Attribute[], name: string): Attribute[] {
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

/** The context for another node (the rest as it is). */
export function withNode(c: AdapterContext, node: Node): AdapterContext {
  return c.withNode(node);
}

/**
 * The attributes of Constants holding 1-D int64 tensors, one list (its `value` attribute and
 * tensor) per distinct list of values in a conversion, shared by every Constant that holds
 * those values (IR tensors, attributes and attribute lists are immutable once built; see
 * AdapterContext.shared). Found by a numeric hash of the values, then compared: no key string.
 */
class Int64Constants {
  private readonly byHash = new Map<number, { values: bigint[]; attributes: Attribute[] }[]>();

  attributes(values: readonly bigint[]): Attribute[] {
    let h = values.length;
    for (let i = 0; i < values.length; i++) h = (Math.imul(h, 31) + Number(values[i]!)) | 0;
    let bucket = this.byHash.get(h);
    if (bucket === undefined) this.byHash.set(h, (bucket = []));
    for (const e of bucket) if (sameValues(e.values, values)) return e.attributes;
    const copy = values.slice();
    const attributes: Attribute[] = [{ name: "value", type: "TENSOR", value: int64Vector(copy) }];
    bucket.push({ values: copy, attributes });
    return attributes;
  }
}

function sameValues(a: readonly bigint[], b: readonly bigint[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const newInt64Constants = () => new Int64Constants();

/** The (shared) attribute list of a Constant holding the 1-D int64 tensor of `values`. */
function int64ConstantAttributes(c: AdapterContext, values: readonly bigint[]): Attribute[] {
  return c.shared("common.ts int64 constants", newInt64Constants).attributes(values);
}

/**
 * An attribute that became an input (Reduce `axes`, Squeeze `axes`, Split `split`, ...): the
 * values become a Constant node (so it works in function bodies too) read at input `index`.
 * Absent stays absent; with `emptyIsAbsent`, an empty list does too (it meant "all axes").
 */
export function axesAttributeToInput(
  opts: { attribute?: string; index?: number; emptyIsAbsent?: boolean } = {},
): Adapter {
  const attrName = opts.attribute ?? "axes";
  const index = opts.index ?? 1;
  const emptyIsAbsent = opts.emptyIsAbsent ?? false;
  // Every rewritten node of a long chain comes here: no intermediate arrays or objects.
  return (c) => {
    const node = c.node;
    const a = findAttr(node.attributes, attrName);
    if (!a) return undefined;
    if (a.type !== "INTS" || a.value === undefined)
      return c.fail(`attribute '${attrName}' is not a list of integers`);
    const rest = withoutAttribute(node.attributes, attrName);
    if (a.value.length === 0 && emptyIsAbsent) return [{ ...node, attributes: rest }];
    const name = c.fresh(nameBase(node, attrName));
    const constant: Node = {
      opType: "Constant",
      domain: "",
      inputs: [],
      outputs: [name],
      attributes: int64ConstantAttributes(c, a.value),
    };
    return [constant, { ...node, inputs: withInput(node.inputs, index, name), attributes: rest }];
  };
}

/**
 * An input that became an attribute (the way down): its value must be a constant (a Constant
 * node or an initializer); an omitted input stays absent. A constant nothing else reads is
 * removed by the driver. Values computed at run time block the step, naming the node.
 */
export function axesInputToAttribute(opts: { attribute?: string; index?: number } = {}): Adapter {
  const attrName = opts.attribute ?? "axes";
  const index = opts.index ?? 1;
  return (c) => {
    const values = constantIntsInput(c, index, attrName);
    const rest = withoutAttributes(c.node, attrName);
    const attributes: Attribute[] =
      values === undefined ? rest : [{ name: attrName, type: "INTS", value: values }, ...rest];
    return [{ ...c.node, inputs: withoutInput(c.node.inputs, index), attributes }];
  };
}

/**
 * The integer values of input `index` when it is a constant; undefined when the input is
 * omitted; a failure naming the value when it is computed at run time.
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
    );
  const v = integerValues(t);
  if (!v) return c.fail(`input '${name}' (${what}) is not an integer tensor`);
  return v;
}

/**
 * An attribute the version on the other side of the step does not have. Dropped when the node
 * does not set it or sets it to `meaningless` (a value that means what its absence means);
 * any other value blocks the step.
 */
export function attributeDropped(name: string, meaningless?: bigint | number | string): Adapter {
  return (c) => {
    const a = getAttr(c.node, name);
    if (!a) return undefined;
    if (meaningless !== undefined && a.value !== meaningless)
      c.fail(
        `attribute '${name}' = ${String(a.value)} has no equivalent in ${c.to.name}-${c.to.since}`,
      );
    return [{ ...c.node, attributes: withoutAttributes(c.node, name) }];
  };
}

/**
 * An attribute the new version adds with a default that keeps the old meaning: nothing to do
 * (the node does not set it). Named so that a table row says why the step is safe.
 */
export function attributeAddedWithDefault(_name: string): Adapter {
  return () => undefined;
}

/** The step changes nothing for any node of the op (the row says why in its summary). */
export const compatible: Adapter = () => undefined;

function formalAt(list: FormalSchema[], i: number): FormalSchema | undefined {
  if (i < list.length) return list[i];
  const last = list[list.length - 1];
  return last?.option === "variadic" ? last : undefined;
}

/**
 * The reason the node cannot take the step because it uses an element type the target version
 * does not accept (from the inferred types), or undefined. A type inference cannot tell blocks
 * the step only where the target dropped a type the source allowed at that position: unknown
 * types (generic function bodies) pass with a warning.
 */
export function typeRestrictionReason(c: AdapterContext): string | undefined {
  const inputType = (i: number) => {
    const e = c.inputElemType(i);
    return e !== undefined ? `tensor(${dtypeName(e)})` : typeString(c.inputType(i));
  };
  const outputType = (i: number) => {
    const e = c.outputElemType(i);
    return e !== undefined ? `tensor(${dtypeName(e)})` : typeString(c.outputType(i));
  };
  for (const [what, formalsFrom, formalsTo, names, typeOf] of [
    ["input", c.from.inputs, c.to.inputs, c.node.inputs, inputType],
    ["output", c.from.outputs, c.to.outputs, c.node.outputs, outputType],
  ] as const) {
    for (let i = 0; i < names.length; i++) {
      if (names[i] === "") continue;
      const fa = formalAt(formalsFrom, i);
      const fb = formalAt(formalsTo, i);
      if (!fa || !fb) continue;
      const before = formalTypes(c.from, fa);
      const after = new Set(formalTypes(c.to, fb));
      if (before.every((t) => after.has(t))) continue;
      const t = typeOf(i);
      if (t === undefined) {
        // Function bodies are generic (typed per call): the step is taken, with a note.
        c.warn(
          `the element type of ${what} '${names[i]}' is unknown; ${c.to.name}-${c.to.since} does not accept every type ${c.from.name}-${c.from.since} does`,
        );
        continue;
      }
      if (!after.has(t))
        return `${what} '${names[i]}' is ${describe(t)}, which ${c.to.name}-${c.to.since} does not accept`;
    }
  }
  return undefined;
}

function describe(t: string): string {
  const m = /^tensor\((.*)\)$/.exec(t);
  return m ? `${m[1]}` : t;
}

/** Blocks a step down when the node uses a dtype the target version's constraint lacks. */
export const typeRestriction: Adapter = (c) => {
  const why = typeRestrictionReason(c);
  if (why) c.fail(why);
  return undefined;
};

/** Runs `first` for its checks (it must not rewrite), then `then`. */
export function checkThen(first: Adapter, then: Adapter): Adapter {
  return (c) => {
    first(c);
    return then(c);
  };
}

/** Element types by id, for messages. */
export function elemName(elemType: number): string {
  return dtypeName(elemType);
}

/**
 * An attribute that was optional with a default and became required: the old default is
 * written out when the node does not set it.
 */
export function attributeMadeRequired(attribute: Attribute): Adapter {
  return (c) => {
    if (getAttr(c.node, attribute.name)) return undefined;
    return [{ ...c.node, attributes: [...c.node.attributes, attribute] }];
  };
}

/** Adapters applied one after another to the node (each sees the previous one's last node). */
export function inOrder(...adapters: Adapter[]): Adapter {
  return (c) => {
    let prefix: Node[] = [];
    let current: Node | undefined;
    for (const a of adapters) {
      const r = a(current ? withNode(c, current) : c);
      if (!r) continue;
      prefix = [...prefix, ...r.slice(0, -1)];
      current = r[r.length - 1];
    }
    return current ? [...prefix, current] : undefined;
  };
}

/**
 * The way down to a version without broadcasting (Sum/Max/Min/Mean 8 -> 6): allowed when
 * inference shows every input with the same static shape; otherwise blocked.
 */
export const sameShapeInputs: Adapter = (c) => {
  let first: string | undefined;
  for (let i = 0; i < c.node.inputs.length; i++) {
    const t = c.inputType(i);
    const shape =
      t && (t.kind === "tensor" || t.kind === "sparse_tensor") && t.shape ? t.shape : undefined;
    if (!shape || shape.some((d) => typeof d !== "number"))
      return c.fail(
        `input '${c.node.inputs[i]}' has no static shape; ${c.to.name}-${c.to.since} needs every input to have the output's shape (no broadcasting)`,
      );
    const text = JSON.stringify(shape);
    if (first === undefined) first = text;
    else if (text !== first)
      return c.fail(
        `inputs have different shapes (${first} and ${text}); ${c.to.name}-${c.to.since} does not broadcast`,
      );
  }
  return undefined;
};
